#!/bin/bash
# The lanes seed (w8a16_batch) after the ring of weights and the batched x loads: settings by shape and M.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
e() { # shape params...
  local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w8a16_batch/lanes.hip --problem w8a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//')
  echo "$s $* | $t"
}
# split: the smallest slice count giving >= 2 blocks an SM (132 SMs), each lane at least 2 steps a slice.
split() { # K N BC LPC
  local bx=$(( ($2 + $3 - 1) / $3 )) best=1
  for s in 1 2 3 4 6 8 12 16 24 32; do
    [ $(( $1 / s )) -lt $(( 32 * $4 )) ] && break
    best=$s; [ $(( bx * s )) -ge 264 ] && break
  done; echo $best; }
for s in 7168x9216 5120x3072 7168x1024 5120x256 384x5120; do
  Kd=${s%x*}; Nd=${s#*x}
  for m in 16 8 4 2; do
    if [ $m -ge 8 ]; then cfgs=("2 4" "2 8" "4 4" "1 16"); else cfgs=("2 8" "1 16" "1 32" "2 4"); fi
    for cfg in "${cfgs[@]}"; do
      set -- $cfg; c=$1; l=$2; bc=$(( 8 * (32 / l) * c ))
      sp=$(split $Kd $Nd $bc $l)
      e ${m}x$s MR=$m COLS=$c LPC=$l SPLIT=$sp
    done
  done
done
date -u
