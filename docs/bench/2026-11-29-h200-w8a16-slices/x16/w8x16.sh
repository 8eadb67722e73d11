#!/bin/bash
# The lanes seed's integer dots (X16): kopt eval on the problem's input sets (outliers included), then the library with X16 off (base) and on, alternating.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
e() { # shape params...
  local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w8a16_batch/lanes.hip --problem w8a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"
}
e 16x7168x9216 MR=16 COLS=2 LPC=8 XT=512 SPLIT=8 X16=1
e 16x384x5120 MR=16 COLS=2 LPC=8 XT=512 SPLIT=1 X16=1
e 3x4096x777 MR=4 COLS=2 LPC=8 XT=2048 SPLIT=3 X16=1
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
for round in 1 2; do
  for lib in base x16; do .device/w8ex_$lib --rows 2,4,8,16 $S > $OUT/lib-$lib-$round.txt 2>&1; done
done
.device/w8ex_x16 --rows 1,2,3,5,13,16 4096x14336 14336x4096 65536x1024 1000x1000 4095x33 16x33 > $OUT/odd-x16.txt 2>&1; echo "rc $?" >> $OUT/odd-x16.txt
for io in bf16-bf16 fp16-fp16; do .device/w8ex_x16 --rows 2,5,16 --io $io 7168x9216 384x5120 1000x1000 | sed "s/^/$io /"; done > $OUT/io-x16.txt 2>&1
date -u
