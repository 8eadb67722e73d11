#!/bin/bash
# The Python bindings on the GPU (both packages' tests), then kopt_w8a16's KoptLinear by rows beside bf16 weights and PyTorch's int8 kernel.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p $OUT/r
(cd tests/library && PYTHONPATH=$OLDPWD/.device/python timeout 300 python3 -m unittest -v test_python_w8a16_gpu test_python_w8a16 test_python_binding_gpu test_python_binding) > $OUT/r/binding-tests.txt 2>&1; echo "rc $?" >> $OUT/r/binding-tests.txt
tail -25 $OUT/r/binding-tests.txt
PYTHONPATH=.device/python timeout 240 python3 bench/koptlinear_rows.py --bits 8 --shapes 4096x4096,4096x1024,4096x14336,14336x4096,7168x9216 --rows 1,2,4,8,16,24,32,48,64,128 > $OUT/r/rows-w8.txt 2>&1; echo "rc $?" >> $OUT/r/rows-w8.txt
cat $OUT/r/rows-w8.txt
date -u
