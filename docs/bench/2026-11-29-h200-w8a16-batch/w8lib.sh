#!/bin/bash
# kopt_w8a16 with its batched kernels: every (shape, M) checked against fp64 and timed; two odd shapes through kopt eval.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
.device/kopt_w8a16_example --rows 1,2,4,8,16 > $OUT/w8lib-rows.txt 2>&1; echo "rc $?" >> $OUT/w8lib-rows.txt
.device/kopt_w8a16_example --rows 3,5,13,17 7168x9216 4096x14336 1000x1000 4095x33 16x33 > $OUT/w8lib-odd.txt 2>&1; echo "rc $?" >> $OUT/w8lib-odd.txt
for a in "13x4096x777 MR=16 SPLIT=8" "5x65536x1024 MR=8 XT=1024 SPLIT=32" "2x16x33 MR=2 XT=2048"; do
  set -- $a; s=$1; shift; extra=""; for p in "$@"; do extra="$extra --param $p"; done
  echo "$s $* | $(.device/kopt eval seeds/w8a16_batch/lanes.hip --problem w8a16_batch --shape $s --trials 1 --param LPC=8 --param COLS=2 $extra 2>&1 | head -2 | tr '\n' ' ')"
done > $OUT/w8lib-eval.txt 2>&1
date -u
