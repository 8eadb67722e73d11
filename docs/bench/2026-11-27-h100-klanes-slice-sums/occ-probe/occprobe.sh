#!/usr/bin/env bash
# klanes with X16 at 16 and 8 rows: blocks per SM (OCC) by columns a warp, on big, middle and small contest shapes.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/occ; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # M, shapes, params...
  local m=$1 s=$2; shift 2
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 90 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
}
S16="x7168x9216 x4608x7168 x3072x5120 x1536x6144 x5120x3072 x384x5120"
for P in "" "--param COLS=1" "--param COLS=1 --param OCC=3" "--param COLS=1 --param OCC=4" "--param OCC=3" "--param COLS=1 --param OCC=3 --param WARPS=4"; do
  probe 16 "$S16" --param GROUPS=2 $P
done
S8="x7168x9216 x4608x7168 x3072x5120 x1536x6144 x5120x3072"
for P in "" "--param OCC=3" "--param COLS=1 --param OCC=3" "--param COLS=1 --param OCC=4"; do
  probe 8 "$S8" $P
done
date -u
cd $OUT && tar czf occ.tgz occ && rm -rf occ
