#!/usr/bin/env bash
# klanes with X16 as the library builds it, before (base) and after: t1 the slice reduction's loads in flight together,
# t3 that and x's first item read before the weight stages. 16, 8 and 4 rows.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/tail; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # variant, M, shapes, params...
  local v=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 120 $B/kopt eval $B/klanes_$v.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
S="x7168x9216 x7168x1536 x5120x6144 x5120x3072 x5120x256 x4608x7168 x3072x5120 x1536x6144 x512x7168 x384x5120"
for v in base t3 t1; do probe $v 16 "$S" --param GROUPS=2; done
for v in base t3; do probe $v 8 "$S"; done
for v in base t3; do probe $v 4 "x1536x6144 x512x7168 x384x5120" --param GROUPS=2; done
date -u
cd $OUT && tar czf tail.tgz tail && rm -rf tail
