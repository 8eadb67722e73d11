#!/bin/bash
# One row of W8A16: the batch-1 kernels with fp16 in and fp32 out, the same with bf16 in and out (converted around them), and the lanes seed built for one row (bf16 it would read itself) at its slice rule's split.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p $OUT/r
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120 4096x4096 4096x1024 4096x14336 14336x4096"
.device/kopt_w8a16_example --rows 1 $S > $OUT/r/one-fp16.txt 2>&1; echo "rc $?" >> $OUT/r/one-fp16.txt
.device/kopt_w8a16_example --rows 1 --io bf16-bf16 $S > $OUT/r/one-bf16.txt 2>&1; echo "rc $?" >> $OUT/r/one-bf16.txt
grep -E " M 1 " $OUT/r/one-fp16.txt | head -30; grep -E " M 1 " $OUT/r/one-bf16.txt | head -30
K=.device/kopt
e() { local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w8a16_batch/lanes.hip --problem w8a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"; }
while read s a; do e 1x$s MR=1 COLS=2 LPC=8 XT=2048 DEPTH=2 X16=0 SPLIT=$a; done > $OUT/r/lanes-one.txt 2>&1 <<'LIST'
7168x9216 4
7168x1536 8
7168x1024 8
5120x6144 4
5120x3584 4
5120x3072 8
5120x768 8
5120x256 16
4608x7168 2
4096x7168 2
3072x5120 3
1536x6144 1
512x7168 1
384x5120 1
4096x4096 4
4096x1024 8
4096x14336 1
14336x4096 4
LIST
cat $OUT/r/lanes-one.txt
date -u
