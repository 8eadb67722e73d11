#!/usr/bin/env bash
# 4 rows of K 4097 to 5120, where the library's 4-row build of five warps runs three blocks an SM (OCC 3):
# that build against lane groups of 16 over twice the warps.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; echo "commit $(cat .device/COMMIT)"
e() { local seed=$1 s=$2; shift 2; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 40 $K eval seeds/w4a16_batch/$seed.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$seed $s $* | $t"; }
for round in 1 2; do
for s in 5120x3072 5120x3584 5120x6144 4608x4096; do
  k=${s%x*}; ks=$(( (k / 32 + 15) / 16 ))
  e xrows 4x$s MR=4 X16=1 KSPLIT=5 OCC=3
  e xrows 4x$s MR=4 X16=1 LPR=16 KSPLIT=$ks ROWS=4
done; done
timeout 30 .device/kopt_w4a16_example --rows 3,4 5120x3072 5120x3584 5120x6144 4608x4096 | cut -c1-60
date -u
