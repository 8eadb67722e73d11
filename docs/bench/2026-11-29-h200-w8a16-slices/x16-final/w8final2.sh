#!/bin/bash
# The committed library (fp32 dots at 2 rows, integer dots from 4) at 1-16 rows on the contest shapes, odd shapes and row counts, and two dtype pairs.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
.device/kopt_w8a16_example --rows 1,2,4,8,16 $S > $OUT/w8lib-final.txt 2>&1; echo "rc $?" >> $OUT/w8lib-final.txt
.device/kopt_w8a16_example --rows 2,3,5,13,17 4096x14336 1000x1000 4095x33 > $OUT/odd.txt 2>&1; echo "rc $?" >> $OUT/odd.txt
.device/kopt_w8a16_example --rows 3,16 --io bf16-bf16 7168x9216 16x33 > $OUT/io.txt 2>&1; echo "rc $?" >> $OUT/io.txt
date -u
