#!/usr/bin/env bash
# klanes with the first staging item's x requested before the weight stages (klanes_xfirst.hip) against HEAD's, as the
# library builds it at 8 and 16 rows; xrows at 8 rows (xrows8.hip: MR 8 allowed) on the shapes 8 rows trail a peer on.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/xfirst; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # label, file, M, shapes, params...
  local v=$1 f=$2 m=$3 s=$4; shift 4
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 250 $B/kopt eval $f --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
G1="x7168x9216 x5120x6144 x5120x3072 x3072x5120 x1536x6144 x5120x3584 x4096x7168 x5120x768 x5120x256"
G2="x4608x7168 x7168x1536 x7168x1024 x512x7168 x384x5120"
K=seeds/w4a16_batch/klanes.hip; XF=$B/klanes_xfirst.hip
probe base $K 8 "$G1"; probe xfirst $XF 8 "$G1"
probe base $K 8 "$G2" --param GROUPS=2; probe xfirst $XF 8 "$G2" --param GROUPS=2
S16="x5120x3072 x7168x9216 x3072x5120 x384x5120 x512x7168"
probe base $K 16 "$S16" --param GROUPS=2 --param SPREAD=1; probe xfirst $XF 16 "$S16" --param GROUPS=2 --param SPREAD=1
X8="x5120x3072 x5120x3584 x3072x5120 x1536x6144 x7168x1536"
probe xrows-r2 $B/xrows8.hip 8 "$X8" --param ROWS=2
probe xrows-r4 $B/xrows8.hip 8 "$X8" --param ROWS=4
probe xrows-r2-occ2 $B/xrows8.hip 8 "$X8" --param ROWS=2 --param OCC=2
probe xrows-r2-lpr16 $B/xrows8.hip 8 "x384x5120" --param ROWS=2 --param LPR=16
date -u
rm -f $T/ev.txt
