#!/usr/bin/env bash
# The ncols seed (lanes over N, fp32 FMAs) against klanes on short K at 8 and 16 rows (the first part of the
# first script run that day; its second part, the generic rule with ncols among the baselines, ran out of time).
cd "$(dirname "$0")/.."
B=.device; T=$OUT/run1; mkdir -p $T
export PYTHONUNBUFFERED=1
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # label, seed, M, shapes, params...
  local v=$1 seed=$2 m=$3 s=$4; shift 4
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 150 $B/kopt eval seeds/w4a16_batch/$seed.hip --problem w4a16_batch --trials 2 --param MR=$m "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail|refused|requires" $T/ev.txt | head -3
}
S="x384x5120 x512x7168 x1536x6144 x5120x768 x5120x256 x7168x1024"
for m in 8 16; do
  probe klanes-g1 klanes $m "$S" --param X16=1
  probe klanes-g2 klanes $m "$S" --param X16=1 --param GROUPS=2 --param SPREAD=1
  probe ncols ncols $m "$S"
  probe ncols-kl4 ncols $m "$S" --param KL=4
  probe ncols-kl2 ncols $m "$S" --param KL=2
  probe ncols-kl16 ncols $m "$S" --param KL=16
  probe ncols-w8 ncols $m "$S" --param WARPS=8 --param KL=4
  probe ncols-w2 ncols $m "$S" --param WARPS=2 --param KL=4
  probe ncols-d4 ncols $m "$S" --param DEPTH=4 --param KL=4
done
probe ncols-c2 ncols 8 "$S" --param COLS=2 --param KL=4
date -u
rm -f $T/ev.txt
