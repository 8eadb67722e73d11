#!/usr/bin/env bash
# After the dispatch's rewrite: the batched and library GPU tests, the W4A16 example's checks at every bucket, and
# 8 rows timed (the sixteen-warp build for 7168x9216 and 1536x6144).
cd "$(dirname "$0")/.."
B=.device; R=$OUT/dispatch; mkdir -p $R
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 100 $B/kopt_tests --gtest_filter='*Batch*:*Library*' > $R/gpu-tests.txt 2>&1; echo "tests rc $?"; grep -E "PASSED|FAILED" $R/gpu-tests.txt | tail -3
timeout 150 $B/kopt_w4a16_example --rows 1,2,3,4,5,8,9,13,16,17 7168x9216 7168x1536 5120x6144 5120x3584 5120x768 5120x256 4608x7168 3072x5120 1536x6144 384x5120 512x7168 2016x777/g32 4096x100/g128 9472x3584 3456x5120 5120x256/g128 > $R/library-example.txt 2>&1
echo "w4a16 example rc $?: $(tail -1 $R/library-example.txt)"
timeout 100 $B/kopt_w4a16_example --rows 8 > $R/m8.txt 2>&1; grep -E "7168 x 9216|1536 x 6144|4608 x 7168" $R/m8.txt | cut -c1-60
date -u
