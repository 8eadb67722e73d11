#!/usr/bin/env bash
# The 8-row bucket's slices of two steps: checks at 1-16 rows, then 5 and 8 rows before and after, alternating, two rounds.
B=.device; R=$OUT/r; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
C="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
X="4096x6144 4096x4096 4096x28672 14336x4096 8192x8192 3584x4608 18944x3584 5120x7680 2048x8192 6144x4096 7168x5120 3584x18944"
for io in fp16-fp32 bf16-bf16; do
  echo "== $io"; $B/kopt_w4a16_example --rows 1,5,8,16 --io $io $C $X 4096x7168/g128 2>&1; done > $R/checks.txt
echo "checks ok $(grep -c ' ok ' $R/checks.txt) FAIL $(grep -c FAIL $R/checks.txt)"
for round in 1 2; do for v in before after; do
  bin=$B/kopt_w4a16_example; [ $v = before ] && bin=$B/old/kopt_w4a16_example_before
  echo "== round $round $v"; $bin --rows 8,6 $C $X 2>&1
done; done > $R/rows8.txt
python3 - $R/rows8.txt <<'PY' | tee $R/rows8-sums.txt
import sys, re, collections
cur=None; t=collections.defaultdict(lambda: collections.defaultdict(dict))
for line in open(sys.argv[1]):
    if line.startswith("=="): cur=line.split()[3]; rnd=line.split()[2]; continue
    m=re.match(r"\s*(\d+) x (\d+)\s+g(\d+)\s+M (\d+)\s+(ok|FAIL)\s+([\d.]+) us", line)
    if m: t[(cur, int(m.group(4)))][rnd]["%sx%s" % m.group(1, 2)] = float(m.group(6))
for k in sorted(t):
    print(k, " ".join("round %s %.2f" % (r, sum(v.values())) for r, v in sorted(t[k].items())))
shapes = list(next(iter(t[sorted(t)[0]].values())).keys())
for M in (8, 6):
    print("M", M, "shape before(r1 r2) after(r1 r2)")
    for s in shapes:
        print(s, " ".join("%.2f" % t[(v, M)][r][s] for v in ("before", "after") for r in ("1", "2")))
PY
(cd $OUT && tar czf r.tgz r && rm -rf r)
