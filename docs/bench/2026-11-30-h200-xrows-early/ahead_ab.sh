#!/usr/bin/env bash
# xrows: the first tiles' weights requested before x is converted, and AHEAD tiles loaded ahead (1: as
# before), against the seed before (xrows_old.hip); kopt eval at the library's settings (X16, 32 lanes,
# 4 columns, OCC 0, BATCH 8 at up to five warps), alternating, two rounds.
cd "$(dirname "$0")/.."
B=.device; S=$OUT/ahead.txt
{ echo "commit $(cat $B/COMMIT) + seeds/w4a16_batch/xrows.hip with AHEAD"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > $S
G4A="--shape 4x5120x6144 --shape 4x5120x3584 --shape 4x5120x3072 --shape 4x5120x768 --shape 4x5120x256 --shape 4x3072x5120"
G4B="--shape 4x7168x1536 --shape 4x7168x1024"
G2A="--shape 2x5120x6144 --shape 2x5120x3072 --shape 2x3072x5120 --shape 2x1536x6144"
G2B="--shape 2x7168x9216 --shape 2x7168x1024"
run() { # variant mr batch shapes
  local v=$1 m=$2 b=$3; shift 3
  local f=seeds/w4a16_batch/xrows.hip a=""
  if [ $v = old ]; then f=.probe/xrows_old.hip; else a="--param AHEAD=$v"; fi
  echo "== $v rows $m BATCH $b" >> $S
  timeout 150 $B/kopt eval $f --problem w4a16_batch --param X16=1 --param MR=$m --param BATCH=$b $a "$@" 2>&1 | grep -E "^shape|time:|FAIL|rror|wrong" >> $S
}
for round in 1 2; do
  for v in old 1 2 3; do
    run $v 4 8 $G4A; run $v 4 1 $G4B; run $v 2 8 $G2A; run $v 2 1 $G2B
  done
done
date -u >> $S
