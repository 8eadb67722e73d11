#!/usr/bin/env bash
# A thread's two early items of x requested together below 16 rows too (after the weight stages there): GPU tests,
# the W4A16 example at many rows, then the library before (.device/before, b442479) and now, alternating, at 8 rows
# (three rounds) and 4 (two), beside PyTorch's peers at each M.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/run
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p $R/checks
timeout 200 $B/kopt_tests --gtest_filter='*Klanes*:*Batch*:*Xrows*:*Library*' > $R/checks/gpu-tests.txt 2>&1; echo "tests rc $?"; grep -E "PASSED|FAILED|tests ran" $R/checks/gpu-tests.txt | tail -5
timeout 150 $B/kopt_w4a16_example --rows 1,2,3,4,5,8,9,13,16,17 7168x9216 7168x1536 5120x6144 5120x3584 5120x768 5120x256 4608x7168 3072x5120 1536x6144 384x5120 512x7168 2016x777/g32 4096x100/g128 9472x3584 3456x5120 5120x256/g128 > $R/checks/library-example.txt 2>&1
echo "w4a16 example rc $?: $(tail -1 $R/checks/library-example.txt)"
date -u
T=$R/library; mkdir -p $T
for M in 8 4; do
rounds="1 2 3"; [ $M = 4 ] && rounds="1 2"
for round in $rounds; do
  timeout 100 $B/before/kopt_w4a16_example --rows $M > $T/before-m$M-$round.txt 2>&1
  timeout 100 $B/kopt_w4a16_example --rows $M > $T/after-m$M-$round.txt 2>&1
done
timeout 150 python3 bench/torch_peers.py $T/torch-m$M.json $M > $T/torch-m$M.txt 2>&1
for f in $(cd $T && ls *-m$M-?.txt | sed "s/.txt$//"); do python3 bench/library_vs_peers.py $T/$f.txt $T/torch-m$M.json $M $T/$f-vs-peers.md; echo "M=$M $f: $(tail -1 $T/$f-vs-peers.md)"; done
date -u
done
(cd $OUT && tar czf run.tgz run) && rm -rf $R
