#!/usr/bin/env bash
# xrows: columns a lane group (ROWS) at 2 and 4 rows on the contest shapes (kopt eval of the seed).
cd "$(dirname "$0")/.."
B=.device
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
ev() { # label M params...
  local label=$1 m=$2; shift 2
  local args=(); for s in $S; do args+=(--shape ${m}x$s); done
  for p in "$@"; do args+=(--param "$p"); done
  timeout 250 $B/kopt eval seeds/w4a16_batch/xrows.hip --problem w4a16_batch --trials 2 --param MR=$m "${args[@]}" > /tmp/ev.txt 2>&1
  awk -v L="$label m$m" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' /tmp/ev.txt >> $OUT/all.txt
}
start=$SECONDS
for r in 4 2 3 6; do ev R$r 2 ROWS=$r; done
echo "m2 $((SECONDS-start)) s"
for r in 4 2 3; do ev R$r 4 ROWS=$r; done
echo "m4 $((SECONDS-start)) s"
python3 - $OUT/all.txt <<'PY'
import re, sys, collections
t = collections.defaultdict(dict); sums = collections.defaultdict(float); best = collections.defaultdict(float)
for l in open(sys.argv[1]):
    m = re.search(r"^(\S+) m(\d+) \S*?(\d+)x(\d+)x(\d+): (\S+) ([\d.]+) us (\d+) regs (\d+)", l)
    if not m: print("?", l.strip()); continue
    ok = m.group(6) == "ok"
    t[(m.group(2), m.group(4)+"x"+m.group(5))][m.group(1)] = (float(m.group(7)) if ok else 1e9, m.group(8), m.group(9))
for (mm, s), d in t.items():
    print(f"M={mm} {s:10}", " ".join(f"{l}={v[0]:.2f}({v[1]}r,{v[2]}B)" for l, v in d.items()))
    for l, v in d.items(): sums[(mm, l)] += v[0]
    best[mm] += min(v[0] for v in d.values())
for k, v in sorted(sums.items()): print("sum", k, f"{v:.2f}")
for k, v in sorted(best.items()): print("best per shape", k, f"{v:.2f}")
PY
