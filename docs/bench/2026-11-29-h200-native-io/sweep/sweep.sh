#!/bin/bash
# 5120x3072 at 4 and 8 rows (behind PyTorch's int4 path on the H200): the xrows and klanes seeds at other settings.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
e() { # seed shape params...
  local f=$1 s=$2; shift 2; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w4a16_batch/$f.hip --problem w4a16_batch --shape $s --trials 1 --param X16=1 $extra 2>&1 | grep -E "time:|FAIL|fail|error" | head -1)
  echo "$s $f $* | $t"
}
for c in 2 3 4 6; do for o in 0 2 3 4; do e xrows 4x5120x3072 MR=4 ROWS=$c OCC=$o; done; done
e klanes 4x5120x3072 MR=4
e klanes 4x5120x3072 MR=4 GROUPS=2 SPREAD=1
e klanes 4x5120x3072 MR=4 COLS=4
e klanes 8x5120x3072 MR=8
e klanes 8x5120x3072 MR=8 GROUPS=2
e klanes 8x5120x3072 MR=8 GROUPS=2 SPREAD=1
e klanes 8x5120x3072 MR=8 COLS=1
e klanes 8x5120x3072 MR=8 COLS=4
e klanes 8x5120x3072 MR=8 WARPS=16 OCC=1
e klanes 8x5120x3072 MR=8 OCC=3
e klanes 8x5120x3072 MR=8 XS=1
e klanes 8x5120x3072 MR=8 DEPTH=4
e klanes 8x5120x3072 MR=8 WARPS=4 OCC=4
date -u
