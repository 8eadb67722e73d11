#!/usr/bin/env bash
# The library example's check at many rows (tuned shapes included); the library before (cbf7e45) and
# now at 2 rows on the contest shapes, alternating, beside PyTorch's peers.
cd "$(dirname "$0")/.."
B=.device; T=/tmp/kopt-m2; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
$B/kopt_w4a16_example --rows 1,2,3,4,5,8,13,16,17 7168x9216 7168x1536 5120x6144 5120x3584 5120x768 5120x256 4608x7168 384x5120 2016x777/g32 4096x100/g128 9472x3584 1792x4096 5120x256/g128 > $OUT/library-example.txt 2>&1
echo "w4a16 example rc $?: $(tail -1 $OUT/library-example.txt)"
M=2
for round in 1 2; do
  $B/before/kopt_w4a16_example --rows $M > $T/before-m$M-$round.txt 2>&1
  $B/kopt_w4a16_example --rows $M > $T/after-m$M-$round.txt 2>&1
done
python3 bench/torch_peers.py $T/torch-m$M.json $M > $T/torch-m$M.txt 2>&1
python3 bench/library_vs_peers.py $T/after-m$M-1.txt $T/torch-m$M.json $M $OUT/library-vs-peers-m$M.md
python3 bench/library_vs_peers.py $T/after-m$M-2.txt $T/torch-m$M.json $M $OUT/library-vs-peers-m$M-round2.md
python3 - "$T" $M > $OUT/library-before-after.txt <<'PY'
import sys
sys.path.insert(0, "bench")
from example_output import example_results
t, M = sys.argv[1], int(sys.argv[2])
r = [{e["shape"]: e for e in example_results(open(f"{t}/{k}-m{M}-{i}.txt").read())}
     for k in ("before", "after") for i in (1, 2)]
print(f"M = {M}: shape, before (cbf7e45) round 1, round 2, after round 1, round 2 (us); the kernel after")
sums = [0.0] * 4
for shape in r[0]:
    v = [x[shape] for x in r]
    for i, e in enumerate(v): sums[i] += e["us"]
    bad = [e["us"] for e in v if not e["ok"]]
    print(f"  {shape:10} " + " ".join(f"{e['us']:7.2f}" for e in v) + f"  {v[2]['kernel']}" + (f"  FAIL {bad}" if bad else ""))
print("  sum        " + " ".join(f"{s:7.2f}" for s in sums))
PY
cat $OUT/library-before-after.txt | head -5; cat $OUT/library-vs-peers-m$M.md | tail -3; tail -1 $OUT/library-vs-peers-m$M-round2.md
cp $T/*.txt $T/*.json $OUT/ 2>/dev/null
