#!/usr/bin/env bash
# klanes at 8 rows on shapes no entry is tuned for: the library's rule (one group, the contract's slices) against two groups with two steps a slice.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
e() { # shape params...
  local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"
}
for s in 4096x6144 4096x4096 4096x28672 14336x4096 8192x10240 8192x8192 28672x8192 3584x4608 18944x3584 5120x7680 2048x8192 6144x4096; do
  e 8x$s MR=8 X16=1 GROUPS=1 XS=0
  e 8x$s MR=8 X16=1 GROUPS=2 XS=2
  e 8x$s MR=8 X16=1 GROUPS=2 XS=0
done
date -u
