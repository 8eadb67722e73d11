#!/usr/bin/env bash
# klanes at 2 and 4 rows of K between the long-K rule's measured gainers (18944) and losers (27648): the contract's slices (XS 0) against two steps a slice.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; echo "commit $(cat .device/COMMIT)"
e() { local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 40 $K eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"; }
for s in 20480x7168 22528x4096 24576x6144 26624x3072; do
  for m in 2 4; do for xs in 0 2; do e ${m}x$s MR=$m X16=1 GROUPS=1 XS=$xs; done; done; done
echo "== the library (06ff774 rule)"; timeout 60 .device/kopt_w4a16_example --rows 2,4 20480x7168 22528x4096 24576x6144 26624x3072 | cut -c1-70
date -u
