#!/usr/bin/env bash
# xrows with X16 (the library's NVIDIA builds): columns a lane group (ROWS) and blocks an SM (OCC)
# at 4 rows on the 5120-K shapes and 4608x7168, and at 2 rows on 5120x3072; the seed's time each.
cd "$(dirname "$0")/.."
B=.device; T=/tmp/kopt-xprobe; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # M, shapes, ROWS, OCC
  local args=(); for s in $2; do args+=(--shape $1x$s); done
  timeout 60 $B/kopt eval seeds/w4a16_batch/xrows.hip --problem w4a16_batch --trials 2 --param MR=$1 --param X16=1 --param ROWS=$3 --param OCC=$4 "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="M=$1 ROWS=$3 OCC=$4" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
}
for R in 2 3 4 6; do for O in 0 2 3 4; do probe 4 "5120x3584 5120x3072 5120x6144 5120x768 4608x7168" $R $O; done; done
for R in 2 3 4 6; do for O in 0 2 3 4 6; do probe 2 "5120x3072" $R $O; done; done
tar -C $T -czf $OUT/xprobe.tgz .
