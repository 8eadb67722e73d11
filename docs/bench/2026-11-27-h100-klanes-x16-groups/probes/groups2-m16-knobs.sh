#!/usr/bin/env bash
# klanes X16 GROUPS 2 at 16 rows: WARPS, XS, CT around the library's build, and a profile.
cd "$(dirname "$0")/.."
B=.device; T=/tmp/kopt-probe3; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="7168x9216 5120x3072 4608x7168 7168x1536"
for P in "" "--param WARPS=4" "--param XS=1" "--param XS=2" "--param CT=1" "--param COLS=1" "--param WARPS=4 --param XS=1"; do
  args=(); for s in $S; do args+=(--shape 16x$s); done
  timeout 120 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=16 --param X16=1 --param GROUPS=2 $P "${args[@]}" > $T/ev.txt 2>&1
  (echo "== $P"; cat $T/ev.txt) >> $T/eval-raw.txt
  awk -v L="[$P]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
done
timeout 200 $B/kopt profile seeds/w4a16_batch/klanes.hip --problem w4a16_batch --shape 16x7168x9216 --param MR=16 --param X16=1 --param GROUPS=2 > $T/profile.txt 2>&1; tail -3 $T/profile.txt
tar -C $T -czf $OUT/probe3.tgz .
