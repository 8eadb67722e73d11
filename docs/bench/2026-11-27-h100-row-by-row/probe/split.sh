#!/usr/bin/env bash
# Row by row with each row's dots in two chains (even and odd k, added once a chunk: klanes_split.hip) against one
# chain of sixteen dp2a (61ae9e9, klanes_base.hip), the seed as the library builds it at 16 rows; two rounds.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/split; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # variant, M, shapes, params...
  local v=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 200 $B/kopt eval $B/klanes_$v.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
for round in 1 2; do for v in base split; do
  probe $v 16 "x7168x9216 x5120x6144 x4608x7168 x3072x5120 x5120x3072 x512x7168" --param GROUPS=2 --param SPREAD=1
done; done
date -u
rm -f $T/ev.txt
