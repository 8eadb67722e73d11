#!/usr/bin/env bash
# The library as committed (BATCH 8 only in xrows builds of at most five warps of 32 lanes): its example
# at 2 to 4 rows of the contest shapes, two rounds, then at 1 to 16 rows in fp16 -> fp32 with more shapes.
B=.device; R=$OUT/final3; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
C="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
X="14336x4096 12288x3072 4096x7168/g128 8192x128/g128 4096x4096 6144x4096 3072x5120/g32"
for round in 1 2; do echo "== round $round new"; timeout 45 $B/kopt_w4a16_example --rows 2,3,4 $C 2>&1; done > $R/library.txt
echo "library ok $(grep -c ' ok ' $R/library.txt) FAIL $(grep -c FAIL $R/library.txt)"
timeout 110 $B/kopt_w4a16_example --rows 1,2,3,4,5,8,16 $C $X > $R/w4a16-fp16-fp32.txt 2>&1; echo "w4a16 rc $? ok $(grep -c ' ok ' $R/w4a16-fp16-fp32.txt) FAIL $(grep -c FAIL $R/w4a16-fp16-fp32.txt)"
date -u | tee -a $R/head.txt
