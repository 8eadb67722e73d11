#!/usr/bin/env bash
# The final commit: the whole GPU suite (kopt_tests' GPU tests, adversarial kernels included, and the library's
# tests), then bench/library_standing.py (the library at M = 1 to 16 beside PyTorch's peers).
cd "$(dirname "$0")/.."
B=.device; R=$OUT/final; mkdir -p $R
export PYTHONUNBUFFERED=1
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 330 $B/kopt_tests --gtest_filter='GpuTest.*:W8a16GpuTest.*:WorkerPoolTest.*Gpu*' > $R/gpu-tests.txt 2>&1; echo "kopt_tests GPU rc $?"; grep -E "PASSED|FAILED|tests ran" $R/gpu-tests.txt | tail -4
timeout 100 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -2
date -u
timeout 150 python3 bench/library_standing.py --example $B/kopt_w4a16_example --out $R/standing > $R/standing.txt 2>&1; echo "standing rc $?"; tail -4 $R/standing.txt
date -u
tar czf $OUT/final.tgz -C $OUT final && rm -rf $R
