#!/usr/bin/env bash
# Two column groups at 8 rows of 7168x1536 and 7168x1024: the example's check through the buckets,
# then the library before (.device/before) and after at 8 rows, alternating, beside PyTorch's peers.
cd "$(dirname "$0")/.."
B=.device; T=/tmp/kopt-groups8; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
$B/kopt_w4a16_example --rows 1,2,4,5,8,9,16 7168x1536 7168x1024 4608x7168 7168x9216 > $T/example-groups.txt 2>&1
echo "example rc $?: $(tail -1 $T/example-groups.txt)"
for round in 1 2; do
  $B/before/kopt_w4a16_example --rows 8 > $T/before-m8-$round.txt 2>&1
  $B/kopt_w4a16_example --rows 8 > $T/after-m8-$round.txt 2>&1
done
python3 bench/torch_peers.py $T/torch-m8.json 8 > $T/torch-m8.txt 2>&1
for f in after-m8-1 after-m8-2 before-m8-1 before-m8-2; do
  python3 bench/library_vs_peers.py $T/$f.txt $T/torch-m8.json 8 $T/$f-vs-peers.md
  echo "$f: $(tail -1 $T/$f-vs-peers.md)"
done
grep -E "7168x1536|7168x1024" $T/*-vs-peers.md
tar -C $T -czf $OUT/groups8.tgz .
