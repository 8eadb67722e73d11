#!/usr/bin/env bash
# The whole GPU suite of the staged commit: kopt_tests' GPU tests (adversarial kernels included) and the library's tests.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/suite; mkdir -p $R
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u
timeout 400 $B/kopt_tests --gtest_filter='GpuTest.*:W8a16GpuTest.*:WorkerPoolTest.*Gpu*' > $R/gpu-tests.txt 2>&1; echo "kopt_tests GPU rc $?"; grep -E "PASSED|FAILED|tests ran|SKIPPED" $R/gpu-tests.txt | tail -6
timeout 120 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED|tests ran|SKIPPED" $R/library-tests.txt | tail -4
date -u
tar czf $OUT/suite.tgz -C $OUT suite && rm -rf $R
