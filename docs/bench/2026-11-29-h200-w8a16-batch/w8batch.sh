#!/bin/bash
# The w8a16_batch seeds' first run: the lanes seed at its defaults and other settings, against rows.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
e() { # seed shape params...
  local f=$1 s=$2; shift 2; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 90 $K eval seeds/w8a16_batch/$f.hip --problem w8a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -2 | tr '\n' ' ')
  echo "$s $f $* | $t"
}
$K eval seeds/w8a16_batch/lanes.hip --problem w8a16_batch --shape 16x7168x9216 --trials 1 2>&1 | tail -15
for s in 7168x9216 5120x3072 7168x1024 5120x256 384x5120; do
  e rows 16x$s
  e lanes 16x$s MR=16
  e lanes 16x$s MR=16 COLS=4 LPC=1
  e lanes 16x$s MR=16 COLS=4 LPC=2
  e lanes 16x$s MR=16 COLS=2 LPC=8
  e lanes 16x$s MR=16 COLS=2 LPC=4 SPLIT=4
  e lanes 8x$s MR=8 COLS=4 LPC=4
  e lanes 8x$s MR=8 COLS=4 LPC=4 SPLIT=4
  e lanes 2x$s MR=2 COLS=2 LPC=8
  e lanes 2x$s MR=2 COLS=2 LPC=8 SPLIT=4
  e lanes 2x$s MR=2 COLS=1 LPC=32 SPLIT=2
done
date -u
