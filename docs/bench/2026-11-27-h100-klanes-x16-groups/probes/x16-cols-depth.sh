#!/usr/bin/env bash
# klanes X16 (dp2a) against byte planes, and COLS/DEPTH with X16, seed-level; then the library (all NVIDIA
# klanes builds X16) before (a0712ee) and after at 3 and 4 rows.
cd "$(dirname "$0")/.."
B=.device; T=/tmp/kopt-probe; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
run() {  # label MR shapes...
  local label=$1 mr=$2; shift 2; local args=(); for s in "$@"; do args+=(--shape $mr"x"$s); done
  timeout 150 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --trials 2 --param MR=$mr $P "${args[@]}" > $T/ev.txt 2>&1
  (echo "== $label MR=$mr $P"; cat $T/ev.txt) >> $T/eval-raw.txt
  awk -v L="$label" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
}
for P in "--param X16=0" "--param X16=1" "--param X16=1 --param COLS=4" "--param X16=1 --param DEPTH=4"; do
  run "$P" 16 7168x9216 5120x3072 1536x6144
  run "$P" 8 7168x9216 5120x3072 1536x6144
done
for P in "--param X16=0" "--param X16=1" "--param X16=1 --param COLS=4"; do
  run "$P" 4 4608x7168 1536x6144 512x7168
done
for M in 3 4; do
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
    print(f"  {str(key):22} " + " ".join(f"{e['us']:7.2f}" for e in v) + f"  {v[2]['kernel'][-40:]}" + (f"  FAIL {bad}" if bad else ""))
print("  sum                    " + " ".join(f"{s:7.2f}" for s in sums))
PY
cat $T/library-before-after-m$M.txt
done
tar -C $T -czf $OUT/probe.tgz .
