#!/usr/bin/env bash
# 4608x7168: nine steps of K at two groups, cut 2,2,2,2,1 by the automatic rule; one step a slice (XS 1) instead.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/xs; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # label, M, shapes, params...
  local l=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 100 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$l M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
for r in 1 2; do
probe auto 16 "x4608x7168 x4096x7168" --param GROUPS=2 --param SPREAD=1
probe xs1 16 "x4608x7168 x4096x7168" --param GROUPS=2 --param SPREAD=1 --param XS=1
probe auto 8 "x4608x7168" --param GROUPS=2
probe xs1 8 "x4608x7168" --param GROUPS=2 --param XS=1
done
date -u
cd $OUT && tar czf xs.tgz xs
