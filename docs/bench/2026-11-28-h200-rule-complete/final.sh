#!/usr/bin/env bash
# The library with the rule from all 92 probes: its tests, its example at the edge probes and long K (1, 2, 16 rows)
# and on the contest shapes, then the whole GPU suite.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/final; mkdir -p $R
echo "build $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 100 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -2
timeout 120 $B/kopt_w4a16_example --rows 1,2,16 256x65536 16384x512 8192x128 2048x64 1024x16 4096x32 16384x16 1024x1024 49152x1024 256x4096 14336x4096 28672x8192 > $R/example-edges.txt 2>&1; echo "example edges rc $?"; tail -1 $R/example-edges.txt
timeout 60 $B/kopt_w4a16_example > $R/example-contest.txt 2>&1; echo "example contest rc $?"; tail -1 $R/example-contest.txt
date -u
timeout 330 $B/kopt_tests --gtest_filter='GpuTest.*:W8a16GpuTest.*:WorkerPoolTest.*Gpu*' > $R/gpu-tests.txt 2>&1; echo "kopt_tests GPU rc $?"; grep -E "PASSED|FAILED|tests ran|SKIPPED" $R/gpu-tests.txt | tail -5
date -u
