#!/bin/bash
# The 16-row klanes seed's fixed cost per call: variants at the library's settings on short-N, short-K and mid shapes.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u
S="--shape 16x7168x256 --shape 16x512x7168 --shape 16x384x5120 --shape 16x5120x3072 --shape 16x7168x9216"
B="--problem w4a16_batch --trials 1 --param MR=16 --param X16=1 --param GROUPS=2 --param SPREAD=1"
for v in "" "WARPS=16 OCC=1" "WARPS=4 OCC=4" "DEPTH=4" "XS=1" "COLS=1"; do
  echo "== variant: base $v"
  extra=""; for p in $v; do extra="$extra --param $p"; done
  start=$(date +%s)
  timeout 150 $K eval seeds/w4a16_batch/klanes.hip $S $B $extra 2>&1 | grep -E "^shape|time:|registers" 
  echo "($(( $(date +%s) - start )) s)"
done
date -u
