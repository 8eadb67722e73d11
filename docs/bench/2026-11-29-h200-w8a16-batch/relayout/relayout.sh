#!/bin/bash
# The batched builds without the dtype pairs' unlaunched relayout kernels: the library example at 2-16 rows, the binding's GPU tests.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
.device/kopt_w4a16_example --rows 1,2,3,4,8,16 7168x9216 5120x3072 384x5120 2016x777/g32 4096x7168/g128 > $OUT/w4-example.txt 2>&1; echo "rc $?" >> $OUT/w4-example.txt
(cd tests/library && PYTHONPATH=$OLDPWD/.device/python python3 -m unittest test_python_binding_gpu test_python_binding) > $OUT/binding.txt 2>&1; echo "rc $?" >> $OUT/binding.txt
.device/kopt_tests --gtest_filter='GpuTest.Klanes*:GpuTest.Xrows*' > $OUT/seeds-gpu.txt 2>&1; echo "rc $?" >> $OUT/seeds-gpu.txt
date -u
