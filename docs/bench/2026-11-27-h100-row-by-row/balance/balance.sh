#!/usr/bin/env bash
# BALANCE (a block's units split evenly over its warps) against the dealt tiles: the klanes seed with X16 as the
# library builds it, at 16 and 8 rows, two rounds alternating; then the klanes GPU tests.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/balance; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # balance, M, shapes, params...
  local v=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 200 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 --param BALANCE=$v "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="balance=$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
for round in 1 2; do
for v in 0 1; do
  probe $v 16 "x4096x7168 x4608x7168 x5120x6144 x7168x9216 x3072x5120" --param GROUPS=2 --param SPREAD=1
  probe $v 16 "x5120x3584" --param GROUPS=2 --param SPREAD=1 --param COLS=1
  probe $v 8 "x4096x7168 x1536x6144 x5120x6144 x7168x9216"
  probe $v 8 "x4608x7168" --param GROUPS=2
done
done
date -u
$B/kopt_tests --gtest_filter='*Klanes*' > $T/gpu-tests.txt 2>&1; echo "tests rc $?"; grep -E "PASSED|FAILED|tests ran" $T/gpu-tests.txt | tail -5
cd $OUT && tar czf balance.tgz balance && rm -rf balance/ev.txt
