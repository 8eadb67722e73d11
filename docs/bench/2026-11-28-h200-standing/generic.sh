#!/usr/bin/env bash
# The generic rule on shapes and M never probed, on this device: the library against the better of the klanes
# seed's defaults and two column groups (and at 3 rows xrows's defaults too). Steps stop being started past a deadline.
cd "$(dirname "$0")/.."
B=.device; G=$OUT/generic; mkdir -p $G
export PYTHONUNBUFFERED=1
start=$(date +%s); left() { [ $(( $(date +%s) - start )) -lt ${1:-480} ]; }
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
gen() { # label, M, MR, shapes...
  local s=$1 m=$2 mr=$3; shift 3
  local sel=(); for x in "$@"; do sel+=(--shape $x); done
  local benches=()
  left 380 || return
  timeout 100 $B/kopt bench --problem w4a16_batch "${sel[@]}" --seeds klanes --param MR=$mr --param X16=1 --json $G/bench-$s-g1.json > $G/bench-$s-g1.txt 2>&1 && benches+=(--bench $G/bench-$s-g1.json)
  timeout 100 $B/kopt bench --problem w4a16_batch "${sel[@]}" --seeds klanes --param MR=$mr --param X16=1 --param GROUPS=2 --param SPREAD=1 --json $G/bench-$s-g2.json > $G/bench-$s-g2.txt 2>&1 && benches+=(--bench $G/bench-$s-g2.json)
  if [ $mr -le 4 ]; then
    timeout 100 $B/kopt bench --problem w4a16_batch "${sel[@]}" --seeds xrows --param MR=$mr --json $G/bench-$s-xrows.json > $G/bench-$s-xrows.txt 2>&1 && benches+=(--bench $G/bench-$s-xrows.json)
  fi
  timeout 100 python3 bench/library_vs_seeds.py --example $B/kopt_w4a16_example "${benches[@]}" "${sel[@]}" --rows $m --out $G/library-vs-seeds-$s.md > $G/lvs-$s.txt 2>&1
  echo "$s M=$m rc=$?: $(tail -1 $G/library-vs-seeds-$s.md)"; date -u
}
# Gemma-2 9B and Phi-3 medium (14B), at tensor-parallel 1 and 2.
S="3584x28672 14336x3584 3584x2048 5120x7680 17920x5120 5120x35840 3584x14336 7168x3584 5120x17920 8960x5120"
gen gemma2-phi3-m10 10 16 $(for x in $S; do echo 10x$x; done)
gen gemma2-phi3-m5 5 8 $(for x in $S; do echo 5x$x; done)
gen gemma2-phi3-m3 3 4 $(for x in $S; do echo 3x$x; done)
date -u
tar czf $OUT/generic.tgz -C $OUT generic && rm -rf $G
