#!/usr/bin/env bash
# GPU tests of the klanes seed on 201b4f1; then the seed on blocks of sixteen warps, one an SM (x staged once an SM
# instead of twice), against the library's settings, at 16 and 8 rows on mid-size shapes.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/w16; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 200 $B/kopt_tests --gtest_filter='GpuTest.Klanes*' > $T/gpu-tests.txt 2>&1; echo "tests rc $?"; grep -E "OK|PASSED|FAILED" $T/gpu-tests.txt | tail -8
probe() { # label, M, shapes, params...
  local v=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 200 $B/kopt eval $B/klanes_w16.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
S="x5120x3072 x3072x5120 x1536x6144 x5120x3584 x7168x1536 x7168x9216 x384x5120 x5120x768"
probe lib 16 "$S" --param GROUPS=2 --param SPREAD=1
probe w16 16 "$S" --param GROUPS=2 --param SPREAD=1 --param WARPS=16 --param OCC=1
probe lib 8 "$S"
probe w16 8 "$S" --param WARPS=16 --param OCC=1
date -u
rm -f $T/ev.txt
