#!/usr/bin/env bash
# klanes at 2 and 4 rows of long K (one group, x as 16-bit words): the contract's slices (XS 0) against two steps a slice.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; echo "commit $(cat .device/COMMIT)"
e() { local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 40 $K eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"; }
for s in 14336x4096 28672x8192 18944x3584 11008x4096 13824x5120 27648x5120 9472x3584 14336x8192 8960x1536 17920x5120; do
  for m in 2 4; do for xs in 0 2; do e ${m}x$s MR=$m X16=1 GROUPS=1 XS=$xs; done; done; done
date -u
