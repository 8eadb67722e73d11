#!/usr/bin/env bash
# After 61ae9e9 (row by row where MR x COLS >= 32): the klanes seed with X16 as the library builds it, at 16 rows
# two columns against one on the five shapes tuned to one, a deeper weight stream, and at 8 rows four columns
# a warp (now row by row) against two.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/knobs; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # label, M, shapes, params...
  local v=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 250 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
S1="x7168x1536 x5120x3584 x1536x6144 x5120x768 x5120x256"
probe cols1 16 "$S1" --param GROUPS=2 --param SPREAD=1 --param COLS=1
probe cols2 16 "$S1" --param GROUPS=2 --param SPREAD=1
probe depth2 16 "x7168x9216 x4608x7168 x3072x5120" --param GROUPS=2 --param SPREAD=1
probe depth4 16 "x7168x9216 x4608x7168 x3072x5120" --param GROUPS=2 --param SPREAD=1 --param DEPTH=4
G1="x7168x9216 x5120x6144 x5120x3072 x3072x5120 x1536x6144 x5120x3584"
G2="x7168x1536 x4608x7168 x384x5120"
probe cols2 8 "$G1"; probe cols2 8 "$G2" --param GROUPS=2
probe cols4 8 "$G1" --param COLS=4; probe cols4 8 "$G2" --param GROUPS=2 --param COLS=4
date -u
rm -f $T/ev.txt
