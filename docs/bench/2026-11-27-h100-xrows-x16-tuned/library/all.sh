#!/usr/bin/env bash
# The library before (.device/before) and now at 2, 4, 8 and 16 rows on the contest shapes,
# alternating, beside PyTorch's peers at the same rows; tables in $OUT.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/all; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for M in ${ROWS:-2 4 8 16}; do
for round in 1 2; do
  $B/before/kopt_w4a16_example --rows $M > $T/before-m$M-$round.txt 2>&1
  $B/kopt_w4a16_example --rows $M > $T/after-m$M-$round.txt 2>&1
done
python3 bench/torch_peers.py $T/torch-m$M.json $M > $T/torch-m$M.txt 2>&1
python3 bench/library_vs_peers.py $T/after-m$M-1.txt $T/torch-m$M.json $M $T/library-vs-peers-m$M.md
python3 bench/library_vs_peers.py $T/after-m$M-2.txt $T/torch-m$M.json $M $T/library-vs-peers-m$M-round2.md
python3 bench/library_vs_peers.py $T/before-m$M-1.txt $T/torch-m$M.json $M $T/before-vs-peers-m$M.md
echo "M=$M after: $(tail -1 $T/library-vs-peers-m$M.md)"; echo "M=$M after round 2: $(tail -1 $T/library-vs-peers-m$M-round2.md)"
echo "M=$M before: $(tail -1 $T/before-vs-peers-m$M.md)"
done
true
