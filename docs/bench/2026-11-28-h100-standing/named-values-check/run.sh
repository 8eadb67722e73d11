#!/usr/bin/env bash
# The klanes seed with named values in its contract on the GPU: its GPU tests, and kopt eval on three shapes.
cd "$(dirname "$0")/.."
B=.device
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 100 $B/kopt_tests --gtest_filter='GpuTest.Klanes*' > $OUT/gpu-tests.txt 2>&1; echo "tests rc $?"; grep -E "OK \]|FAILED|PASSED" $OUT/gpu-tests.txt | tail -6
timeout 60 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=16 --param X16=1 --param GROUPS=2 --param SPREAD=1 --shape 16x7168x9216 --shape 16x384x5120 --shape 9x2016x777/g32 > $OUT/eval.txt 2>&1; echo "eval rc $?"; grep -E "^shape|time:" $OUT/eval.txt
date -u
