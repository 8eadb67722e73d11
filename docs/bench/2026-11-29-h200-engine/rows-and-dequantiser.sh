#!/bin/bash
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cd tests/library && PYTHONPATH=$OLDPWD/.device/python python3 -m unittest test_python_binding_gpu test_python_binding 2>&1 | tail -4; cd $OLDPWD
PYTHONPATH=.device/python python3 .probe/deq.py
PYTHONPATH=.device/python timeout 300 python3 bench/koptlinear_rows.py --rows 1,16,24,32,48,64,128,512,2048
