#!/usr/bin/env bash
# klanes with X16 at 8 rows of 1536x6144 (the library 9.49-9.55 us, cuBLAS 9.48): groups, slices, depth, tiles.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/kprobe2; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for P in "" "--param GROUPS=2" "--param XS=1" "--param XS=2" "--param DEPTH=4" "--param CT=2" "" "--param GROUPS=2"; do
  timeout 40 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=8 --param X16=1 $P --shape 8x1536x6144 > $T/ev.txt 2>&1
  awk -v L="M=8 [$P]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
done
rm -f $T/ev.txt
