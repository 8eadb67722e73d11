#!/usr/bin/env bash
# As run2.sh (whose files did not come back), packed in one archive: the standing at M = 16, 8, 4, 2 and 1 beside
# PyTorch's peers; the generic rule from run2's seed benches (llama3-70b M = 8, qwen2.5-7b M = 12), then M = 6.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/r; T=$R/standing; G=$R/generic; mkdir -p $T $G; cp .probe/prev/*.json $G/
export PYTHONUNBUFFERED=1
start=$(date +%s); left() { [ $(( $(date +%s) - start )) -lt $1 ]; }
pack() { (cd $OUT && tar czf run3.tgz r); }
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 60 $B/kopt_w4a16_example --rows 1 > $T/m1-1.txt 2>&1; echo "M=1: $(tail -1 $T/m1-1.txt)"
for M in 16 8 4 2; do
  timeout 60 $B/kopt_w4a16_example --rows $M > $T/m$M-1.txt 2>&1
  timeout 100 python3 bench/torch_peers.py $T/torch-m$M.json $M > $T/torch-m$M.txt 2>&1
  python3 bench/library_vs_peers.py $T/m$M-1.txt $T/torch-m$M.json $M $T/m$M-vs-peers.md; echo "M=$M: $(tail -1 $T/m$M-vs-peers.md)"
  pack
done
date -u
L="8192x5120 4096x8192 8192x28672 14336x8192 8192x2560 2048x8192 8192x14336 7168x8192 8192x1280 1024x8192 8192x7168 3584x8192"
Q="3584x4608 3584x3584 18944x3584 3584x2304 1792x3584 9472x3584 3584x1152 896x3584 4736x3584"
lvs() { # label, M, shapes...
  local s=$1 m=$2; shift 2
  local sel=(); for x in "$@"; do sel+=(--shape $x); done
  timeout 90 python3 bench/library_vs_seeds.py --example $B/kopt_w4a16_example --kopt $B/kopt --bench $G/bench-$s-g1.json --bench $G/bench-$s-g2.json "${sel[@]}" --rows $m --out $G/library-vs-seeds-$s.md > $G/lvs-$s.txt 2>&1
  echo "$s M=$m rc=$?: $(tail -1 $G/library-vs-seeds-$s.md)"; pack
}
lvs llama3-70b-m8 8 $(for x in $L; do echo 8x$x; done)
lvs qwen2.5-7b-m12 12 $(for x in $Q; do echo 12x$x; done)
date -u
if left 200; then
  sel=(); for x in $Q; do sel+=(--shape 6x$x); done
  timeout 70 $B/kopt bench --problem w4a16_batch "${sel[@]}" --seeds klanes --param MR=8 --param X16=1 --json $G/bench-qwen2.5-7b-m6-g1.json > $G/bench-qwen2.5-7b-m6-g1.txt 2>&1
  timeout 70 $B/kopt bench --problem w4a16_batch "${sel[@]}" --seeds klanes --param MR=8 --param X16=1 --param GROUPS=2 --param SPREAD=1 --json $G/bench-qwen2.5-7b-m6-g2.json > $G/bench-qwen2.5-7b-m6-g2.txt 2>&1
  lvs qwen2.5-7b-m6 6 $(for x in $Q; do echo 6x$x; done)
fi
date -u; pack
