#!/bin/bash
# The lanes seed at the library's settings, K sliced several ways: where a partial last wave of blocks costs.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
e() { # shape params...
  local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w8a16_batch/lanes.hip --problem w8a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"
}
while read s splits; do
  for p in $splits; do e 16x$s MR=16 COLS=2 LPC=8 XT=512 SPLIT=$p; done
done <<'LIST'
7168x9216 2 3 4 6 8 12
7168x1536 12 16 24
7168x1024 16 24
5120x6144 3 4 6 8 12 16
5120x3584 4 6 8 12 16
5120x3072 6 8 12 16
5120x768 8 12 16
5120x256 12 16
4608x7168 2 4 6 8 16
4096x7168 2 4 6 8 16
3072x5120 3 4 6 8 12
1536x6144 3 4 6
512x7168 1 2
LIST
while read s splits; do
  for p in $splits; do e 8x$s MR=8 COLS=2 LPC=8 XT=1024 SPLIT=$p; done
done <<'LIST'
7168x9216 2 3 4 6 8
5120x3584 4 6 8 12
3072x5120 3 4 6 8
1536x6144 2 3 4 6
LIST
for s in 1536x6144 512x7168; do
  for sp in 1 2 3 4 6; do e 2x$s MR=2 COLS=2 LPC=8 XT=2048 SPLIT=$sp; done
  e 2x$s MR=2 COLS=2 LPC=4 XT=2048 SPLIT=2
  e 2x$s MR=2 COLS=1 LPC=8 XT=2048 SPLIT=2
  e 2x$s MR=2 COLS=1 LPC=16 XT=2048 SPLIT=1
  e 2x$s MR=2 COLS=4 LPC=8 XT=2048 SPLIT=2
done
date -u
