#!/usr/bin/env bash
# 4 rows in lane groups of 16 of mid-length K through the library: checks in three dtype pairs, then 3 and 4
# rows before (.device/old, 572999f) and after, alternating, two rounds.
B=.device; R=$OUT/mid; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
timeout 60 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -2
S="4096x4096 4096x7168 6144x4096 6144x2048 4096x1024 4096x6144 5888x3072 3616x100 5664x777 4096x14336 5120x3072 3584x4608"
for io in fp16-fp32 bf16-bf16 fp16-fp16; do echo "== $io"
  timeout 60 $B/kopt_w4a16_example --rows 1,2,3,4,5 --io $io $S 2>&1; done > $R/checks.txt
echo "checks ok $(grep -c ' ok ' $R/checks.txt) FAIL $(grep -c FAIL $R/checks.txt)"; grep "failed the" $R/checks.txt
T="4096x4096 4096x7168 6144x4096 6144x2048 4096x1024 4096x6144 5888x3072 14336x4096 5120x3072 3584x4608"
for round in 1 2; do
  echo "== before $round"; timeout 40 $B/old/kopt_w4a16_example --rows 3,4 $T 2>&1
  echo "== after $round"; timeout 40 $B/kopt_w4a16_example --rows 3,4 $T 2>&1
done > $R/rows34.txt
python3 - $R/rows34.txt <<'PY' | tee $R/rows34-sums.txt
import re, sys, collections
t = collections.defaultdict(list); which = None
for line in open(sys.argv[1]):
    m = re.match(r"== (before|after)", line)
    if m: which = m.group(1); continue
    m = re.match(r"\s*(\d+) x (\d+)\s+g64\s+M (\d+)\s.*?ok\s+([\d.]+) us", line)
    if m: t[(m[1] + "x" + m[2], int(m[3]), which)].append(float(m[4]))
shapes = sorted({k[0] for k in t}, key=lambda s: -int(s.split("x")[0]) * int(s.split("x")[1]))
for M in (3, 4):
    for s in shapes:
        b, a = t[(s, M, "before")], t[(s, M, "after")]
        if b and a: print(f"M={M} {s:>11} before {sum(b)/len(b):7.2f} after {sum(a)/len(a):7.2f}")
PY
date -u | tee -a $R/head.txt
