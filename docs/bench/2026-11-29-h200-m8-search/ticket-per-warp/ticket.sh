#!/usr/bin/env bash
# klanes's slices of K summed by the last warp of each warp's column set (a ticket per warp) against the
# last block of each column range (a ticket per block): the library's example before (.device/old) and
# after, alternating, two rounds, at 8 and 16 rows of the contest shapes and 2 and 4 rows of long-K
# shapes; then kopt eval of both seed texts at the library's 8- and 16-row settings.
B=.device; R=$OUT/ticket; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
C="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
L="14336x4096 18944x3584 12288x3072 20480x7168"
for round in 1 2; do
  for v in old new; do
    E=$B/kopt_w4a16_example; [ $v = old ] && E=$B/old/kopt_w4a16_example
    echo "== round $round $v"
    timeout 60 $E --rows 8,16 $C 2>&1
    timeout 40 $E --rows 2,4 $L 2>&1
  done
done > $R/library.txt
echo "library ok $(grep -c ' ok ' $R/library.txt) FAIL $(grep -c FAIL $R/library.txt)"
P16="--param MR=16 --param X16=1 --param GROUPS=2 --param SPREAD=1"
P8="--param MR=8 --param X16=1 --param GROUPS=2"
for v in old new; do
  S=seeds/w4a16_batch/klanes.hip; [ $v = old ] && S=.probe/klanes_old.hip
  echo "== $v"
  timeout 60 $B/kopt eval $S --problem w4a16_batch --trials 2 $P16 --shape 16x7168x9216 --shape 16x5120x3072 --shape 16x1536x6144 2>&1
  timeout 60 $B/kopt eval $S --problem w4a16_batch --trials 2 $P8 --param XS=2 --shape 8x5120x3072 --shape 8x4608x7168 --shape 5x3072x5120 2>&1
  timeout 60 $B/kopt eval $S --problem w4a16_batch --trials 2 --shape 16x7168x9216 --shape 3x20480x7168 2>&1
done > $R/eval.txt
grep -E "^==|us" $R/eval.txt | head -40
date -u
