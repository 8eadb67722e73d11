#!/bin/bash
# The Python binding on the GPU: its tests, the host time per call (before/after), KoptLinear by rows, the Llama example.
set -x
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
cd tests/library && PYTHONPATH=$OLDPWD/.device/python python3 -m unittest -v test_python_binding_gpu test_python_binding 2>&1 | tail -20; cd $OLDPWD
PYTHONPATH=.probe/old python3 .probe/host.py
PYTHONPATH=.device/python python3 .probe/host.py
PYTHONPATH=.probe/old python3 .probe/host.py
PYTHONPATH=.device/python python3 .probe/host.py
PYTHONPATH=.device/python timeout 300 python3 bench/koptlinear_rows.py
