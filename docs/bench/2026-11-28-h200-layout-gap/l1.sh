#!/usr/bin/env bash
# LAYOUT 1 at 16 rows: SASS of the loop (HEAD, a: offsets addressed from the scale's address, b: a without the
# selects), then kopt eval of each beside HEAD's LAYOUT 0.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/l1; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
D=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
for c in batched batched_a batched_b; do $D -sass -fun kopt_klanes_m16_1_g2_c2_gemm .probe/sass/$c.cubin > $T/$c.sass 2>&1; done
probe() { # label, file, shapes, params...
  local v=$1 f=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape 16x$x); done
  timeout 200 $B/kopt eval $f --problem w4a16_batch --trials 2 --param MR=16 --param X16=1 --param GROUPS=2 --param SPREAD=1 "$@" "${args[@]}" > $T/ev-$v.txt 2>&1
  awk -v L="$v [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev-$v.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev-$v.txt | head -3
}
S="17920x5120 27648x5120 14336x4096"
probe head-L0 .probe/klanes_head.hip "$S" --param LAYOUT=0
probe head-L1 .probe/klanes_head.hip "$S" --param LAYOUT=1
probe a-L1 .probe/klanes_a.hip "$S" --param LAYOUT=1
probe b-L1 .probe/klanes_b.hip "$S" --param LAYOUT=1
date -u
