#!/usr/bin/env bash
# With x's two items requested together, do slices of two steps now beat the automatic one step a slice at 8 rows?
cd "$(dirname "$0")/.."
B=.device; T=$OUT/xs2; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # label, M, shapes, params...
  local v=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 200 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
G1="x5120x3072 x5120x3584 x5120x6144 x3072x5120 x5120x768 x5120x256"
probe lib 8 "$G1"
probe xs2 8 "$G1" --param XS=2
probe lib 8 "x7168x1024" --param GROUPS=2
probe xs2 8 "x7168x1024" --param GROUPS=2 --param XS=2
probe xs4 8 "x7168x1024" --param GROUPS=2 --param XS=4
date -u
rm -f $T/ev.txt
