#!/usr/bin/env bash
# xrows at 4 rows: columns (ROWS) x blocks an SM (OCC) on the contest shapes the library trails the best peer on, and others.
cd "$(dirname "$0")/.."
B=.device
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="7168x9216 7168x1536 5120x3072 5120x3584 5120x768 4608x7168 5120x256 3072x5120 5120x6144"
for occ in 2 3 4; do for r in 2 3 4; do
  args=(); for s in $S; do args+=(--shape 4x$s); done
  timeout 150 $B/kopt eval seeds/w4a16_batch/xrows.hip --problem w4a16_batch --trials 2 --param MR=4 --param ROWS=$r --param OCC=$occ "${args[@]}" > /tmp/ev.txt 2>&1
  awk -v L="R$r,O$occ" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' /tmp/ev.txt >> $OUT/all.txt
done; done
python3 - $OUT/all.txt <<'PY'
import re, sys, collections
t = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    m = re.search(r"^(\S+) \S*?4x(\d+x\d+): (\S+) ([\d.]+) us (\d+) regs (\d+)", l)
    if m: t[m.group(2)][m.group(1)] = (float(m.group(4)) if m.group(3) == "ok" else 1e9, int(m.group(6)))
for s, d in t.items():
    b = sorted(d.items(), key=lambda kv: kv[1][0])
    print(s, " ".join(f"{k}={v[0]:.2f}{'s' if v[1] else ''}" for k, v in b[:6]))
PY
