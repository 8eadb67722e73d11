#!/usr/bin/env bash
# xrows with the first tiles requested before x's conversion: AHEAD at the library's tuned builds and
# where a block of many warps runs alone on an SM; kopt eval, alternating, two rounds.
cd "$(dirname "$0")/.."
B=.device; S=$OUT/ahead2.txt
{ echo "commit $(cat $B/COMMIT) + seeds/w4a16_batch/xrows.hip with AHEAD"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $S
run() { # label variant rows batch params-and-shapes
  local l=$1 v=$2 m=$3 b=$4; shift 4
  local f=seeds/w4a16_batch/xrows.hip a=""
  if [ $v = old ]; then f=.probe/xrows_old.hip; else a="--param AHEAD=$v"; fi
  echo "== $l/$v rows $m BATCH $b" >> $S
  timeout 100 $B/kopt eval $f --problem w4a16_batch --param X16=1 --param MR=$m --param BATCH=$b $a "$@" 2>&1 | grep -E "^shape|time:|FAIL|rror|wrong" >> $S
}
for round in 1 2; do
  for v in old 1 2 3; do
    run l16w8 $v 4 1 --param LPR=16 --shape 4x4096x7168 --shape 4x4096x4096 --shape 4x6144x4096
    run occ2 $v 4 1 --param OCC=2 --shape 4x7168x9216
    run c3o4 $v 4 8 --param ROWS=3 --param OCC=4 --shape 4x3072x5120
    run c6 $v 4 8 --param ROWS=6 --shape 4x5120x768
    run c2 $v 4 8 --param ROWS=2 --shape 4x4608x7168
    run w7 $v 4 1 --shape 4x7168x4096 --shape 4x7168x2048
  done
  for v in old 1 2; do
    run c6 $v 2 1 --param ROWS=6 --shape 2x7168x9216 --shape 2x7168x1536
    run c3 $v 2 8 --param ROWS=3 --shape 2x5120x6144
    run c3o4 $v 2 8 --param ROWS=3 --param OCC=4 --shape 2x5120x3072
    run c4o4 $v 2 8 --param OCC=4 --shape 2x4608x7168
  done
done
date -u >> $S
