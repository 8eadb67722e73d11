#!/usr/bin/env bash
# The seeds' launch bounds through the prelude's KOPT_LAUNCH_BOUNDS: the GPU suite (every seed at its knobs,
# klanes, xrows), the library's tests and its example at 1 to 16 rows.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/lb; mkdir -p $R
echo "build $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 60 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -2
timeout 60 $B/kopt_w4a16_example --rows 1,2,3,4,8,16 7168x9216 5120x256 14336x4096 3584x8192 > $R/example.txt 2>&1; echo "example rc $?"; tail -1 $R/example.txt
timeout 320 $B/kopt_tests --gtest_filter='GpuTest.*:W8a16GpuTest.*:WorkerPoolTest.*Gpu*' > $R/gpu-tests.txt 2>&1; echo "kopt_tests GPU rc $?"; grep -E "PASSED|FAILED|tests ran" $R/gpu-tests.txt | tail -4
date -u
