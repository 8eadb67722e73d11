#!/usr/bin/env bash
# xrows: the block's sums of BATCH tiles after one barrier (BATCH 1: a barrier a tile, as before), kopt eval
# of the seed at 4 and 2 rows, X16, lanes 32, 4 columns, OCC 0, alternating, two rounds.
cd "$(dirname "$0")/.."
B=.device; S=$OUT/batch.txt
{ echo "commit $(cat $B/COMMIT) + seeds/w4a16_batch/xrows.hip with BATCH"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $S
F4="--shape 4x7168x1536 --shape 4x7168x1024 --shape 4x5120x6144 --shape 4x5120x3584 --shape 4x5120x3072 --shape 4x5120x768 --shape 4x5120x256 --shape 4x3072x5120"
F2="--shape 2x7168x9216 --shape 2x5120x3072 --shape 2x4608x7168 --shape 2x3072x5120 --shape 2x1536x6144 --shape 2x5120x256"
run() { # rows batch shapes
  local m=$1 b=$2; shift 2
  echo "== rows $m BATCH $b" >> $S
  timeout 120 $B/kopt eval seeds/w4a16_batch/xrows.hip --problem w4a16_batch --param X16=1 --param MR=$m --param BATCH=$b "$@" 2>&1 | grep -E "^shape|time:|FAIL|rror|wrong" >> $S
}
for round in 1 2; do for b in 1 4; do run 4 $b $F4; done; done
run 4 2 $F4; run 4 8 $F4
for round in 1 2; do for b in 1 4; do run 2 $b $F2; done; done
date -u >> $S
