#!/usr/bin/env bash
# klanes with X16 as the library builds it: base (HEAD) against w1 (the grid's column blocks capped by the
# warps' tiles, not the blocks' tiles) and w2 (w1, and the fewest slices of K from the warps' tiles too).
cd "$(dirname "$0")/.."
B=.device; T=$OUT/grid; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # variant, M, shapes, params...
  local v=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 150 $B/kopt eval $B/klanes_$v.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
S16="x384x5120 x512x7168 x5120x256 x5120x768 x7168x1024 x7168x1536 x1536x6144 x3072x5120 x7168x9216"
for v in base w1 w2; do probe $v 16 "$S16" --param GROUPS=2; done
probe w1 16 "x384x5120 x512x7168 x5120x256 x5120x768 x7168x1024 x1536x6144" --param GROUPS=2 --param COLS=1
for v in base w1 w2; do probe $v 8 "x384x5120 x512x7168 x7168x1024" --param GROUPS=2; probe $v 8 "x5120x256 x5120x768 x5120x3072"; done
for v in base w1; do probe $v 4 "x384x5120 x512x7168" --param GROUPS=2; probe $v 4 "x1536x6144 x5120x256"; done
for v in base w1; do probe $v 16 "x384x5120 x5120x256 x7168x1024" --param GROUPS=2; done
date -u
cd $OUT && tar czf grid.tgz grid && rm -rf grid
