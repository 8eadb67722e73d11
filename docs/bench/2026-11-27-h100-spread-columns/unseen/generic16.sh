#!/usr/bin/env bash
# The generic rule at 16 rows on qwen2.5-32b shapes (never used for the batched kernels): the library's example
# against the klanes seed (X16) at its defaults and at other groups, columns and spread, in one run.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/generic16; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="640x5120 1280x5120 2560x5120 5120x896 5120x1792 3456x5120 6912x5120 5120x7168"
$B/kopt_w4a16_example --rows 16 $S > $T/library-1.txt 2>&1; tail -n 1 $T/library-1.txt
probe() { # label, params...
  local l=$1; shift
  local args=(); for x in $S; do args+=(--shape 16x$x); done
  timeout 100 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=16 --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$l" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/seeds.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
probe defaults
probe g2-spread --param GROUPS=2 --param SPREAD=1
probe g4-spread --param GROUPS=4 --param SPREAD=1
probe g2-c1-spread --param GROUPS=2 --param COLS=1 --param SPREAD=1
$B/kopt_w4a16_example --rows 16 $S > $T/library-2.txt 2>&1; tail -n 1 $T/library-2.txt
date -u
cd $OUT && tar czf generic16.tgz generic16
