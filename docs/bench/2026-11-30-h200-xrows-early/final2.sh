#!/usr/bin/env bash
# The GPU suite of the staged commit: kopt_tests' GPU tests (adversarial kernels included), the library's
# tests, both bindings' GPU tests.
B=.device; R=$OUT/suite; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
timeout 420 $B/kopt_tests --gtest_filter='GpuTest.*:W8a16GpuTest.*:WorkerPoolTest.*Gpu*' > $R/gpu-tests.txt 2>&1; echo "kopt_tests GPU rc $?"
grep -E "PASSED|FAILED|tests ran|SKIPPED" $R/gpu-tests.txt | tail -6
timeout 60 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -3
(cd tests/library && PYTHONPATH=$OLDPWD/$B/python timeout 100 python3 -m unittest test_python_binding_gpu test_python_w8a16_gpu) > $R/python-tests.txt 2>&1; echo "python rc $?"; tail -3 $R/python-tests.txt
date -u | tee -a $R/head.txt
