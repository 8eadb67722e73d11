#!/usr/bin/env bash
# klanes with X16 at 8 rows on the shapes where the library trails a peer, and at 4 rows on
# 5120x3584 and 5120x3072: slices (XS), tiles a block (CT), columns, warps, depth, groups.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/kprobe; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # M, shapes, params...
  local m=$1 s=$2; shift 2
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 60 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
}
S8="x7168x1536 x7168x1024 x5120x3072 x3072x5120"
for P in "" "--param XS=1" "--param XS=2" "--param XS=3" "--param CT=1" "--param CT=2" "--param COLS=1" "--param COLS=4" "--param WARPS=4" "--param DEPTH=4" "--param GROUPS=2" "--param GROUPS=2 --param XS=1"; do
  probe 8 "$S8" $P
done
for P in "--param GROUPS=2" "--param GROUPS=4" "--param GROUPS=2 --param COLS=1" "--param GROUPS=2 --param WARPS=4" "--param GROUPS=4 --param COLS=1"; do
  probe 8 "x384x5120" $P
done
for P in "" "--param GROUPS=2" "--param XS=1" "--param COLS=1" "--param COLS=4"; do
  probe 4 "x5120x3584 x5120x3072" $P
done
