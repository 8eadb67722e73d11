#!/usr/bin/env bash
# klanes at 8 and 16 rows: how the time follows the steps a slice of K holds (XS), at the library's 16-row settings.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
e() { # shape params...
  local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"
}
for s in 7168x9216 5120x3584 4096x7168; do
  for xs in 0 1 2; do e 16x$s MR=16 X16=1 GROUPS=2 COLS=2 XS=$xs; done
  for xs in 0 1 2 4; do e 8x$s MR=8 X16=1 GROUPS=2 COLS=2 XS=$xs; done
done
date -u
