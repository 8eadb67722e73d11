#!/bin/bash
# The lanes seed with a group's lanes spread over the warp: settings a library rule would pick.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
e() { # shape params...
  local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $K eval seeds/w8a16_batch/lanes.hip --problem w8a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$s $* | $t"
}
# split: the smallest slice count giving >= T blocks an SM (132 SMs), each lane at least 2 steps a slice.
split() { # K N BC LPC T
  local bx=$(( ($2 + $3 - 1) / $3 )) best=1
  for s in 1 2 3 4 6 8 12 16 24 32; do
    [ $(( $1 / s )) -lt $(( 32 * $4 )) ] && break
    best=$s; [ $(( bx * s )) -ge $(( 132 * $5 )) ] && break
  done; echo $best; }
for s in 7168x9216 5120x3072 7168x1024 5120x256 384x5120; do
  Kd=${s%x*}; Nd=${s#*x}
  for m in 16 8 2; do
    xt=2048; [ $m -eq 8 ] && xt=1024; [ $m -eq 16 ] && xt=512
    for cfg in "4 4" "8 4" "4 8"; do
      set -- $cfg; l=$1; t=$2; bc=$(( 8 * (32 / l) * 2 ))
      e ${m}x$s MR=$m COLS=2 LPC=$l XT=$xt SPLIT=$(split $Kd $Nd $bc $l $t)
    done
  done
done
date -u
