#!/usr/bin/env bash
# klanes with x as 16-bit words (dp2a) in the 8- and 16-row builds: the example's check, before
# (a0712ee) and after at 8 and 16 rows alternating, and seed probes on two shapes.
cd "$(dirname "$0")/.."
B=.device; T=/tmp/kopt-m816; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
$B/kopt_w4a16_example --rows 5,8,9,13,16 7168x9216 5120x3072 384x5120 2016x777/g32 4096x100/g128 9472x3584 5120x256/g128 > $T/library-example.txt 2>&1
echo "w4a16 example rc $?: $(tail -1 $T/library-example.txt)"
for M in 8 16; do
for round in 1 2; do
  $B/before/kopt_w4a16_example --rows $M > $T/before-m$M-$round.txt 2>&1
  $B/kopt_w4a16_example --rows $M > $T/after-m$M-$round.txt 2>&1
done
python3 - "$T" $M > $T/library-before-after-m$M.txt <<'PY'
import sys
sys.path.insert(0, "bench")
from example_output import example_results
t, M = sys.argv[1], int(sys.argv[2])
r = [{(e["shape"], e.get("G")): e for e in example_results(open(f"{t}/{k}-m{M}-{i}.txt").read())}
     for k in ("before", "after") for i in (1, 2)]
print(f"M = {M}: shape, before (a0712ee) round 1, round 2, after round 1, round 2 (us); the kernel after")
sums = [0.0] * 4
for key in r[0]:
    v = [x[key] for x in r]
    for i, e in enumerate(v): sums[i] += e["us"]
    bad = [e["us"] for e in v if not e["ok"]]
    print(f"  {str(key):22} " + " ".join(f"{e['us']:7.2f}" for e in v) + f"  {v[2]['kernel']}" + (f"  FAIL {bad}" if bad else ""))
print("  sum                    " + " ".join(f"{s:7.2f}" for s in sums))
PY
cat $T/library-before-after-m$M.txt
done
S=seeds/w4a16_batch/klanes.hip
for shape in 16x7168x9216 16x5120x3072; do
  for p in "X16=0" "X16=1" "X16=1 COLS=4" "X16=1 DEPTH=4" "X16=1 COLS=1"; do
    args=""; for kv in $p; do args="$args --param $kv"; done
    $B/kopt eval $S --problem w4a16_batch --shape $shape --param MR=M $args > $T/eval.txt 2>&1; (echo "== $shape [$p]"; cat $T/eval.txt) >> $T/eval-all.txt
    echo "$shape [$p] $(grep -m1 -o 'time: [^,]*' $T/eval.txt) $(grep -m1 -i 'sm_90:' $T/eval.txt | cut -c1-80) $(grep -m1 -i 'fail\|error' $T/eval.txt | cut -c1-120)"
  done
done
tar -C $T -czf $OUT/m816.tgz .
