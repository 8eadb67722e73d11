#!/usr/bin/env bash
# klanes at 8 rows on the contest shapes: the library's settings against two column groups with two steps a slice of K (XS 2), and others.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
e() { # shape params...
  local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"
}
# shape, then the library's 8-row settings (GROUPS COLS WARPS OCC)
while read s g c w o; do
  B="MR=8 X16=1 COLS=$c WARPS=$w OCC=$o"
  e 8x$s $B GROUPS=$g XS=0
  e 8x$s $B GROUPS=2 XS=2
  e 8x$s MR=8 X16=1 COLS=2 WARPS=8 OCC=2 GROUPS=2 XS=2
  [ $g = 1 ] && e 8x$s $B GROUPS=1 XS=1
done <<'LIST'
7168x9216 1 2 16 1
7168x1536 2 2 8 2
7168x1024 2 2 8 2
5120x6144 1 2 8 2
5120x3584 1 2 8 2
5120x3072 1 2 8 2
5120x768 1 2 8 2
5120x256 1 2 8 2
4608x7168 2 2 8 2
4096x7168 1 2 8 2
3072x5120 1 2 8 2
1536x6144 1 2 16 1
512x7168 2 2 8 2
384x5120 2 2 8 2
LIST
date -u
