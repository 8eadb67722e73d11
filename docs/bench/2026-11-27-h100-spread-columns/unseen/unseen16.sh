#!/usr/bin/env bash
# 16 rows on a suite never used for the batched kernels (qwen2.5-32b): the library before (faca684) and now,
# alternating, at 16 and 12 rows; then the generic rule (library against the klanes seed with X16) at 16 rows.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/unseen16; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="5120x7168 5120x5120 5120x55296 27648x5120 5120x3584 2560x5120 5120x27648 13824x5120 5120x1792 1280x5120 5120x13824 6912x5120 5120x896 640x5120 5120x6912 3456x5120 "
for round in 1 2; do
  $B/before/kopt_w4a16_example --rows 16,12 $S > $T/before-$round.txt 2>&1
  $B/kopt_w4a16_example --rows 16,12 $S > $T/after-$round.txt 2>&1
done
tail -1 $T/before-1.txt $T/after-1.txt
SEED_PARAMS="--param X16=1" OUT=$T bash $B/unseen.sh qwen2.5-32b:16 > $T/unseen.txt 2>&1
cp /tmp/bench-qwen2.5-32b-m16.txt /tmp/lvs-qwen2.5-32b-m16.txt $T/ 2>/dev/null
tail -25 $T/unseen.txt
date -u
cd $OUT && tar czf unseen16.tgz unseen16
