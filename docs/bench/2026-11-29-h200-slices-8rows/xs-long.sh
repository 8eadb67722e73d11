#!/usr/bin/env bash
# klanes at 2 and 4 rows of long K (one group): the contract's slices against two steps a slice.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
e() { local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 30 $K eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"; }
for s in 14336x4096 28672x8192; do for m in 2 4; do for xs in 0 2; do e ${m}x$s MR=$m X16=1 GROUPS=1 XS=$xs; done; done; done
date -u
