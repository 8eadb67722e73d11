#!/usr/bin/env bash
# xrows at 4 rows: lane groups of 16 over twice the warps (LPR 16, one chunk a lane) against the library's
# lanes of 32, on shapes of K 2048 to 6144 (and at 3 rows of two of them).
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; echo "commit $(cat .device/COMMIT)"
e() { local seed=$1 s=$2; shift 2; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 40 $K eval seeds/w4a16_batch/$seed.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$seed $s $* | $t"; }
for s in 2048x8192 3072x5120 3584x4608 4096x4096 4096x7168 4608x7168 5120x768 5120x3072 5120x6144 6144x4096 6144x2048 4096x14336; do
  k=${s%x*}; ks=$(( (k / 32 + 15) / 16 ))
  e xrows 4x$s MR=4 X16=1
  e xrows 4x$s MR=4 X16=1 LPR=16 KSPLIT=$ks ROWS=4
done
e xrows 3x5120x6144 MR=4 X16=1
e xrows 3x5120x6144 MR=4 X16=1 LPR=16 KSPLIT=10 ROWS=4
e xrows 2x5120x6144 MR=2 X16=1 ROWS=3
e xrows 2x5120x6144 MR=2 X16=1 LPR=16 KSPLIT=10 ROWS=3
e xrows 2x5120x3072 MR=2 X16=1 ROWS=3 OCC=4
e xrows 2x5120x3072 MR=2 X16=1 LPR=16 KSPLIT=10 ROWS=4
date -u
