#!/bin/bash
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cd tests/library && PYTHONPATH=$OLDPWD/.device/python python3 -m unittest -v test_python_binding_gpu test_python_binding 2>&1 | tail -18; cd $OLDPWD
cd kernels/w4a16_gemv/python/examples && PYTHONPATH=$OLDPWD/.device/python timeout 400 python3 llama_decode.py --layers 4 --group 128 --steps 32 2>&1 | grep -v Warning
