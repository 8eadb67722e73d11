#!/usr/bin/env bash
# The shipped library at M = 1, 2, 4, 8, 16 on the contest shapes beside PyTorch's peers at the same M (one round each).
cd "$(dirname "$0")/.."
B=.device; T=$OUT/standing; mkdir -p $T
export PYTHONUNBUFFERED=1
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 60 $B/kopt_w4a16_example --rows 1 > $T/m1-1.txt 2>&1; echo "M=1: $(tail -1 $T/m1-1.txt)"
for M in 16 8 4 2; do
  timeout 60 $B/kopt_w4a16_example --rows $M > $T/m$M-1.txt 2>&1
  timeout 100 python3 bench/torch_peers.py $T/torch-m$M.json $M > $T/torch-m$M.txt 2>&1
  python3 bench/library_vs_peers.py $T/m$M-1.txt $T/torch-m$M.json $M $T/m$M-vs-peers.md; echo "M=$M: $(tail -1 $T/m$M-vs-peers.md)"
  date -u
done
timeout 60 $B/kopt_w4a16_example --rows 1 > $T/m1-2.txt 2>&1; echo "M=1 again: $(tail -1 $T/m1-2.txt)"
tar czf $OUT/standing.tgz -C $OUT standing && rm -rf $T
