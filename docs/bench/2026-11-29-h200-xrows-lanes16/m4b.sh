#!/usr/bin/env bash
# 4 rows of 5120x3072, second round: xrows in lane groups of 16 over ten warps, around the first round's fastest.
K=.device/kopt
date -u; echo "commit $(cat .device/COMMIT)"
e() { local seed=$1 s=$2; shift 2; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 40 $K eval seeds/w4a16_batch/$seed.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$seed $s $* | $t"; }
S=4x5120x3072
e xrows $S MR=4 X16=1
for v in "ROWS=4" "ROWS=6" "ROWS=8" "ROWS=3" "ROWS=4 OCC=1" "ROWS=4 OCC=3" "ROWS=4 OCC=4" "ROWS=6 OCC=3"; do
  e xrows $S MR=4 X16=1 LPR=16 KSPLIT=10 $v; done
e xrows 4x5120x6144 MR=4 X16=1
e xrows 4x5120x6144 MR=4 X16=1 LPR=16 KSPLIT=10 ROWS=4
e xrows 4x5120x3584 MR=4 X16=1
e xrows 4x5120x3584 MR=4 X16=1 LPR=16 KSPLIT=10 ROWS=4
e xrows $S MR=4 X16=1
date -u
