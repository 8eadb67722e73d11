#!/usr/bin/env bash
# xrows X16 0 against 1 at 2 and 4 rows on the contest shapes (seed defaults), alternating.
cd "$(dirname "$0")/.."
B=.device; T=/tmp/kopt-xrows16; mkdir -p $T
echo "commit $(cat $B/COMMIT) + xrows X16"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
for M in 2 4; do for round in 1 2; do for X in 0 1; do
  args=(); for s in $S; do args+=(--shape ${M}x$s); done
  timeout 200 $B/kopt eval seeds/w4a16_batch/xrows.hip --problem w4a16_batch --trials 2 --param MR=$M --param X16=$X "${args[@]}" > $T/ev-m$M-x$X-$round.txt 2>&1
  awk -v L="M=$M X16=$X r$round" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev-m$M-x$X-$round.txt | tee -a $T/probe.txt
done; done; done
python3 - $T/probe.txt <<'PY'
import sys, collections
t = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    try: t[(f[0], f[1], f[3])].append(float(f[5]))
    except (IndexError, ValueError): pass
for M in ("M=2", "M=4"):
    s0 = s1 = 0
    for (m, x, sh), v in sorted(t.items()):
        if m != M or x != "X16=0": continue
        a = min(v); b = min(t.get((m, "X16=1", sh), [float("nan")]))
        s0 += a; s1 += b
        print(M, sh, a, b, "%.3f" % (b / a))
    print(M, "sum", round(s0, 2), round(s1, 2))
PY
tar -C $T -czf $OUT/xrows16.tgz .
