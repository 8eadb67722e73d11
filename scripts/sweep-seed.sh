#!/usr/bin/env bash
# Times one seed over a grid of parameter values on some shapes and prints one
# line per (parameters, shape). A manual stand-in for `kopt run` when choosing
# a seed's defaults. Usage:
#   scripts/sweep-seed.sh KOPT SEED_FILE "SHAPE..." "NAME=v1,v2 NAME2=v1,v2 ..." [PROBLEM]
set -uo pipefail
kopt=$1 file=$2 shapes=$3 grid=$4 problem=${5:-w4a16_gemv}
combos=("")
for axis in $grid; do
  name=${axis%%=*}; values=${axis#*=}
  next=()
  for c in "${combos[@]}"; do
    for v in ${values//,/ }; do next+=("$c --param $name=$v"); done
  done
  combos=("${next[@]}")
done
shape_args=""
for s in $shapes; do shape_args+=" --shape $s"; done
for c in "${combos[@]}"; do
  # shellcheck disable=SC2086
  "$kopt" eval "$file" --problem "$problem" $shape_args $c --trials 1 2>&1 |
    awk -v params="$c" '/^shape/ {shape=$2; verdict=$3} /time:/ {print params, shape, $2, "us"} /^shape/ && $3 != "ok" {print params, shape, $3}'
done
