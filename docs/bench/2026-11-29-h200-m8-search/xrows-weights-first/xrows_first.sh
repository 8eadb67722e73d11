#!/usr/bin/env bash
# xrows with the first tile's weights requested before x is converted: the library's example before
# (.device/old) and after, alternating, two rounds, at 1 to 4 rows of the contest shapes (xrows serves 2
# to 4 rows, and one bf16 row); then kopt eval of the seed's three texts (old; a: weights first; b: and
# every row's x loaded before any is converted) at 2 and 4 rows.
B=.device; R=$OUT/xfirst; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
C="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
for round in 1 2; do
  for v in old new; do
    E=$B/kopt_w4a16_example; [ $v = old ] && E=$B/old/kopt_w4a16_example
    echo "== round $round $v"
    timeout 45 $E --rows 2,3,4 $C 2>&1
    timeout 25 $E --rows 1 --io bf16-bf16 $C 2>&1
  done
done > $R/library.txt
echo "library ok $(grep -c ' ok ' $R/library.txt) FAIL $(grep -c FAIL $R/library.txt)"
for v in old a b; do
  for m in 2 4; do
    echo "== $v rows $m"
    timeout 50 $B/kopt eval .probe/xrows_$v.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 \
      --shape ${m}x5120x3072 --shape ${m}x4096x7168 --shape ${m}x3072x5120 --shape ${m}x1536x6144 --shape ${m}x512x7168 2>&1 | grep -E "time:|shape|FAIL|error"
  done
done > $R/eval.txt 2>&1
date -u
