#!/bin/bash
# 16-row klanes at the library's settings: the dot chains split (c2, c4) or two rows interleaved (p2) against the seed.
K=.device/kopt
S=""
for s in 16x7168x9216 16x5120x6144 16x4608x7168 16x4096x7168 16x3072x5120 16x512x7168; do S="$S --shape $s"; done
B="--problem w4a16_batch --param MR=16 --param X16=1 --param GROUPS=2 --param SPREAD=1 --trials 1"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u
run() { echo "== $1"; $K eval $2 $S $B 2>&1 | grep -v '^\s*$' ; }
run base seeds/w4a16_batch/klanes.hip
run c2 .probe/klanes_c2.hip
run c4 .probe/klanes_c4.hip
run p2 .probe/klanes_p2.hip
run base2 seeds/w4a16_batch/klanes.hip
run c2b .probe/klanes_c2.hip
