#!/bin/bash
# Slice counts the busiest-SM rule picks that the first sweep did not try; then the library with the old rule and the new, alternating.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
e() { # shape params...
  local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w8a16_batch/lanes.hip --problem w8a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"
}
for a in "16x5120x3072 2" "16x5120x3072 4" "16x5120x3584 2" "16x4608x7168 1" "16x4096x7168 1" "16x7168x1024 8" "16x14336x4096 2" "16x14336x4096 12" \
         "2x7168x1536 4" "2x7168x1536 24" "2x5120x3584 2" "2x5120x3584 12" "2x4608x7168 1" "2x4608x7168 6"; do
  set -- $a; m=${1%%x*}; xt=2048; [ $m -eq 8 ] && xt=1024; [ $m -eq 16 ] && xt=512
  e $1 MR=$m COLS=2 LPC=8 XT=$xt SPLIT=$2
done > $OUT/evals.txt 2>&1
cat $OUT/evals.txt
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
for round in 1 2; do
  for lib in old new; do .device/w8ex_$lib --rows 2,4,8,16 $S > $OUT/lib-$lib-$round.txt 2>&1; done
done
date -u
