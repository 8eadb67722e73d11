#!/usr/bin/env bash
# xrows with BATCH: the batch's sums spread over the warps (lane i / warps of warp i % warps) against thread i
# (the form before), and BATCH 1, kopt eval at 4 and 2 rows, X16, alternating, two rounds.
cd "$(dirname "$0")/.."
B=.device; S=$OUT/map.txt
{ echo "commit $(cat $B/COMMIT) + xrows with BATCH"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $S
F4="--shape 4x5120x3072 --shape 4x5120x6144 --shape 4x5120x256 --shape 4x5120x768 --shape 4x7168x1024"
F2="--shape 2x5120x3072 --shape 2x5120x256 --shape 2x7168x9216 --shape 2x5120x768"
run() { # label file rows batch shapes
  local l=$1 f=$2 m=$3 b=$4; shift 4
  echo "== $l rows $m BATCH $b" >> $S
  timeout 100 $B/kopt eval $f --problem w4a16_batch --param X16=1 --param MR=$m --param BATCH=$b "$@" 2>&1 | grep -E "^shape|time:|FAIL|rror|wrong" >> $S
}
for round in 1 2; do
  run spread seeds/w4a16_batch/xrows.hip 4 8 $F4; run plain .probe/xrows_plain.hip 4 8 $F4; run one seeds/w4a16_batch/xrows.hip 4 1 $F4
  run spread seeds/w4a16_batch/xrows.hip 2 8 $F2; run plain .probe/xrows_plain.hip 2 8 $F2; run one seeds/w4a16_batch/xrows.hip 2 1 $F2
done
date -u >> $S
