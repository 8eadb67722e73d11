#!/usr/bin/env bash
# The 8-row builds of sixteen warps for 7168x9216 and 1536x6144 in the library: its GPU tests, the W4A16 example at
# many rows, then the library before (.device/before, 201b4f1) and now, alternating, at 8 rows (three rounds), beside
# PyTorch's peers.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/run
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p $R/checks
timeout 120 $B/kopt_tests --gtest_filter='*Batch*:*Library*' > $R/checks/gpu-tests.txt 2>&1; echo "tests rc $?"; grep -E "PASSED|FAILED|tests ran" $R/checks/gpu-tests.txt | tail -3
timeout 150 $B/kopt_w4a16_example --rows 1,2,3,4,5,6,7,8,9,16 7168x9216 1536x6144 7168x1536 5120x3072 384x5120 1536x6144/g32 1536x6144/g128 7168x9216/g128 > $R/checks/library-example.txt 2>&1
echo "w4a16 example rc $?: $(tail -1 $R/checks/library-example.txt)"
T=$R/library; mkdir -p $T
M=8
for round in 1 2 3; do
  timeout 100 $B/before/kopt_w4a16_example --rows $M > $T/before-m$M-$round.txt 2>&1
  timeout 100 $B/kopt_w4a16_example --rows $M > $T/after-m$M-$round.txt 2>&1
done
timeout 150 python3 bench/torch_peers.py $T/torch-m$M.json $M > $T/torch-m$M.txt 2>&1
for f in $(cd $T && ls *-m$M-?.txt | sed "s/.txt$//"); do python3 bench/library_vs_peers.py $T/$f.txt $T/torch-m$M.json $M $T/$f-vs-peers.md; echo "M=$M $f: $(tail -1 $T/$f-vs-peers.md)"; done
grep -E "7168 x 9216|1536 x 6144" $T/after-m8-1.txt | head -4
date -u
(cd $OUT && tar czf run.tgz run) && rm -rf $R
