#!/usr/bin/env bash
# The standing of the final library: the W4A16 example at M = 1, 2, 4, 8, 16 on the contest shapes (one round) beside PyTorch's peers at the same M; then the generic rule on shapes and M never probed (the klanes seed
# at its defaults and with two column groups as the best seed). Steps stop being started past a deadline.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/standing; G=$OUT/generic; mkdir -p $T $G
export PYTHONUNBUFFERED=1
start=$(date +%s); left() { [ $(( $(date +%s) - start )) -lt ${1:-480} ]; }
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 60 $B/kopt_w4a16_example --rows 1 > $T/m1-1.txt 2>&1; echo "M=1: $(tail -1 $T/m1-1.txt)"
for M in 16 8 4 2; do
  left 260 || break
  timeout 60 $B/kopt_w4a16_example --rows $M > $T/m$M-1.txt 2>&1
  timeout 100 python3 bench/torch_peers.py $T/torch-m$M.json $M > $T/torch-m$M.txt 2>&1
  python3 bench/library_vs_peers.py $T/m$M-1.txt $T/torch-m$M.json $M $T/m$M-vs-peers.md; echo "M=$M: $(tail -1 $T/m$M-vs-peers.md)"
  date -u
done
timeout 60 $B/kopt_w4a16_example --rows 1 > $T/m1-2.txt 2>&1; echo "M=1 again: $(tail -1 $T/m1-2.txt)"
gen() { # label, M, MR, shapes...
  local s=$1 m=$2 mr=$3; shift 3
  left 470 || return
  local sel=(); for x in "$@"; do sel+=(--shape $x); done
  timeout 90 $B/kopt bench --problem w4a16_batch "${sel[@]}" --seeds klanes --param MR=$mr --param X16=1 --json $G/bench-$s-g1.json > $G/bench-$s-g1.txt 2>&1
  timeout 90 $B/kopt bench --problem w4a16_batch "${sel[@]}" --seeds klanes --param MR=$mr --param X16=1 --param GROUPS=2 --param SPREAD=1 --json $G/bench-$s-g2.json > $G/bench-$s-g2.txt 2>&1
  timeout 90 python3 bench/library_vs_seeds.py --example $B/kopt_w4a16_example --kopt $B/kopt --bench $G/bench-$s-g1.json --bench $G/bench-$s-g2.json "${sel[@]}" --rows $m --out $G/library-vs-seeds-$s.md > $G/lvs-$s.txt 2>&1
  echo "$s M=$m rc=$?: $(tail -1 $G/library-vs-seeds-$s.md)"; date -u
}
# Llama-3 70B's projections at tensor-parallel 2, 4 and 8 (the 57344- and 28672-wide tp1 ones left out for time).
L="8192x5120 4096x8192 8192x28672 14336x8192 8192x2560 2048x8192 8192x14336 7168x8192 8192x1280 1024x8192 8192x7168 3584x8192"
gen llama3-70b-m8 8 8 $(for x in $L; do echo 8x$x; done)
Q="3584x4608 3584x3584 18944x3584 3584x2304 1792x3584 9472x3584 3584x1152 896x3584 4736x3584"
gen qwen2.5-7b-m12 12 16 $(for x in $Q; do echo 12x$x; done)
gen qwen2.5-7b-m6 6 8 $(for x in $Q; do echo 6x$x; done)
date -u
