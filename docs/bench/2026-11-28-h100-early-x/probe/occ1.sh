#!/usr/bin/env bash
# klanes with X16 at one block an SM (launch bounds give 255 registers): four columns a warp, deeper stream.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/occ1; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # label, M, shapes, params...
  local v=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 250 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
S16="x5120x3072 x7168x9216 x4096x7168 x3072x5120 x384x5120"
probe lib 16 "$S16" --param GROUPS=2 --param SPREAD=1
probe occ1c4 16 "$S16" --param GROUPS=2 --param SPREAD=1 --param OCC=1 --param COLS=4
probe occ1c4d4 16 "$S16" --param GROUPS=2 --param SPREAD=1 --param OCC=1 --param COLS=4 --param DEPTH=4
probe occ1c2d4 16 "$S16" --param GROUPS=2 --param SPREAD=1 --param OCC=1 --param DEPTH=4
S8="x5120x3072 x7168x9216 x3072x5120 x1536x6144"
probe lib 8 "$S8"
probe occ1c4 8 "$S8" --param OCC=1 --param COLS=4
probe occ1c4d4 8 "$S8" --param OCC=1 --param COLS=4 --param DEPTH=4
date -u
rm -f $T/ev.txt
