#!/usr/bin/env bash
# The klanes seed's X16 consume row by row (klanes_rows.hip: every part's masked weights held, one row's dots at a
# time, for every MR x COLS) against HEAD's (klanes_base.hip: every row's dots across the parts), as the library
# builds it at 16 and 8 rows. (61ae9e9 keeps row by row where MR x COLS >= 32.)
cd "$(dirname "$0")/.."
B=.device; T=$OUT/rows; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # variant, M, shapes, params...
  local v=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 250 $B/kopt eval $B/klanes_$v.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
for v in base rows; do
  probe $v 16 "x7168x9216 x5120x6144 x4608x7168 x4096x7168 x3072x5120 x5120x3072 x7168x1024 x512x7168 x384x5120" --param GROUPS=2 --param SPREAD=1
  probe $v 16 "x7168x1536 x5120x3584 x1536x6144 x5120x768 x5120x256" --param GROUPS=2 --param SPREAD=1 --param COLS=1
done
for v in base rows; do
  probe $v 8 "x7168x9216 x5120x6144 x4096x7168 x3072x5120 x5120x3072 x5120x3584 x1536x6144 x5120x768 x5120x256"
  probe $v 8 "x4608x7168 x7168x1536 x7168x1024 x512x7168 x384x5120" --param GROUPS=2
done
date -u
