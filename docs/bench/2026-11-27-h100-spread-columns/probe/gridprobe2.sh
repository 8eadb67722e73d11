#!/usr/bin/env bash
# w3: column blocks spread over the warps' tiles only as far as one block an SM (w1: as far as OCC);
# and w1 with one column a warp at 16 rows on more shapes.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/grid2; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # variant, M, shapes, params...
  local v=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 150 $B/kopt eval $B/klanes_$v.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
for v in base w3 w1; do probe $v 8 "x384x5120 x512x7168 x7168x1024" --param GROUPS=2; probe $v 8 "x5120x256 x5120x768"; done
for v in base w3 w1; do probe $v 4 "x384x5120 x512x7168" --param GROUPS=2; probe $v 4 "x5120x256 x5120x768"; done
for v in w3 w1; do probe $v 16 "x384x5120 x512x7168 x5120x256 x5120x768 x7168x1024" --param GROUPS=2; done
for c in 2 1; do probe w1 16 "x7168x1536 x3072x5120 x5120x3072 x5120x3584 x4096x7168" --param GROUPS=2 --param COLS=$c; done
date -u
cd $OUT && tar czf grid2.tgz grid2 && rm -rf grid2
