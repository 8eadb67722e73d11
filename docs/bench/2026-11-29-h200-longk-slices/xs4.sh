#!/usr/bin/env bash
# klanes at 4 rows where the library runs it below long K (K*N of 31 x 2^20 and more): the library's settings (one group, the contract's slices) against two steps a slice, with one group and with two.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; echo "commit $(cat .device/COMMIT)"
e() { local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 40 $K eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"; }
for s in 4096x14336 4096x28672 8192x8192 5120x17920 3584x18944 8192x28672 5120x13824 6144x16384 2048x16384 8192x4096; do
  e 4x$s MR=4 X16=1 GROUPS=1 XS=0; e 4x$s MR=4 X16=1 GROUPS=1 XS=2; e 4x$s MR=4 X16=1 GROUPS=2 XS=2; done
date -u
