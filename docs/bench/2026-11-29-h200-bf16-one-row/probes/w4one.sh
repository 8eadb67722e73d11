#!/bin/bash
# One row of W4A16: the batch-1 library (fp16 in, fp32 out), and the batched seeds built for one row (which would read bf16 themselves): xrows and klanes with X16 at their defaults.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p $OUT/r
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
.device/kopt_w4a16_example --rows 1 $S 4096x4096 4096x1024 4096x14336 14336x4096 > $OUT/r/w4-one.txt 2>&1; echo "rc $?" >> $OUT/r/w4-one.txt
grep -E " M 1 |us" $OUT/r/w4-one.txt | head -20
K=.device/kopt
e() { local f=$1 s=$2; shift 2; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w4a16_batch/$f.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$f $s $* | $t"; }
for s in $S 4096x4096 4096x14336; do
  e xrows 1x$s MR=1 X16=1
  e klanes 1x$s MR=1 X16=1
done > $OUT/r/w4-seeds-one.txt 2>&1
cat $OUT/r/w4-seeds-one.txt
date -u
