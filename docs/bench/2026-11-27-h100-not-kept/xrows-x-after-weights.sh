#!/usr/bin/env bash
# xrows before and after (x loaded, weights out, then x converted; AHEAD 0/1), 2 and 4 rows, contest shapes.
# .device/xrows_before.hip: seeds/w4a16_batch/xrows.hip of cbf7e45; .device/xrows_after.hip: it with
# xrows-x-after-weights.patch (beside this script) applied.
cd "$(dirname "$0")/.."
B=.device
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
ev() { # label file M params...
  local label=$1 file=$2 m=$3; shift 3
  local args=(); for s in $S; do args+=(--shape ${m}x$s); done
  for p in "$@"; do args+=(--param "$p"); done
  timeout 200 $B/kopt eval $file --problem w4a16_batch --trials 2 --param MR=$m "${args[@]}" > /tmp/ev.txt 2>&1
  awk -v L="$label m$m" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' /tmp/ev.txt | tee -a $OUT/all.txt | head -2
  grep -c "^shape" /tmp/ev.txt
}
start=$SECONDS
ev before $B/xrows_before.hip 2
ev after1 $B/xrows_after.hip 2
ev after0 $B/xrows_after.hip 2 AHEAD=0
ev after0occ3 $B/xrows_after.hip 2 AHEAD=0 OCC=3
echo "m2 $((SECONDS-start)) s"
ev before $B/xrows_before.hip 4
ev after1 $B/xrows_after.hip 4
ev after0 $B/xrows_after.hip 4 AHEAD=0
echo "m4 $((SECONDS-start)) s"
python3 - $OUT/all.txt <<'PY'
import re, sys, collections
t = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    m = re.search(r"^(\S+) m(\d+) \S*?(\d+)x(\d+)x(\d+): ok\S* ([\d.]+) us", l)
    if m: t[(m.group(2), m.group(4)+"x"+m.group(5))][m.group(1)] = float(m.group(6))
labels = ["before", "after1", "after0", "after0occ3"]
sums = collections.defaultdict(float)
for (mm, s), d in t.items():
    print(f"M={mm} {s:10}", " ".join(f"{l}={d[l]:.2f}" for l in labels if l in d))
    for l in d: sums[(mm, l)] += d[l]
for k, v in sorted(sums.items()): print("sum", k, f"{v:.2f}")
PY
