#!/usr/bin/env bash
# 16 rows: the two early items of x requested after the weight stages (.device/b) against before them (.device/before,
# b442479), alternating, three rounds, beside PyTorch's peers at 16 rows; the W4A16 example's check at every bucket.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/run16
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
T=$R/library; mkdir -p $T
timeout 150 $B/b/kopt_w4a16_example --rows 1,2,3,4,5,8,9,13,16,17 7168x9216 5120x3072 1536x6144 384x5120 512x7168 2016x777/g32 4096x100/g128 9472x3584 5120x256/g128 > $R/b-example.txt 2>&1
echo "b example rc $?: $(tail -1 $R/b-example.txt)"
M=16
for round in 1 2 3; do
  timeout 100 $B/before/kopt_w4a16_example --rows $M > $T/before-m$M-$round.txt 2>&1
  timeout 100 $B/b/kopt_w4a16_example --rows $M > $T/after-m$M-$round.txt 2>&1
done
timeout 150 python3 bench/torch_peers.py $T/torch-m$M.json $M > $T/torch-m$M.txt 2>&1
for f in $(cd $T && ls *-m$M-?.txt | sed "s/.txt$//"); do python3 bench/library_vs_peers.py $T/$f.txt $T/torch-m$M.json $M $T/$f-vs-peers.md; echo "M=$M $f: $(tail -1 $T/$f-vs-peers.md)"; done
date -u
(cd $OUT && tar czf run16.tgz run16) && rm -rf $R
