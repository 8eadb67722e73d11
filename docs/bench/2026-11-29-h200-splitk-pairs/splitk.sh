#!/usr/bin/env bash
# The split-K entry's own builds for fp16-fp16 and bf16-bf16 rows: checks, then one row before (94a73e7) and after, alternating.
B=.device; R=$OUT/r; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
C="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
X="7168x576 4096x32 8192x128 8192x128/g128 32768x64 16384x16 65536x256 16384x512 4096x64 28672x256 2048x64"
timeout 150 $B/kopt_tests --gtest_filter='GpuTest.EverySeedVerifiesOnAssortedShapes' > $R/gpu-tests.txt 2>&1; echo "gpu tests rc $?"; tail -2 $R/gpu-tests.txt
(cd tests/library && PYTHONPATH=$OLDPWD/$B/python timeout 200 python3 -m unittest -v test_python_binding_gpu test_python_binding test_python_w8a16_gpu test_python_w8a16 > $R/python-tests.txt 2>&1; echo "python rc $?"); tail -3 $R/python-tests.txt
for io in fp16-fp32 fp16-fp16 bf16-bf16 bf16-fp32; do for r in 1 2 16; do
  echo "== $io rows $r"; $B/kopt_w4a16_example --rows $r --io $io $X 2>&1; done; done > $R/checks.txt
echo "checks ok $(grep -c ' ok ' $R/checks.txt) FAIL $(grep -c FAIL $R/checks.txt)"
for round in 1 2; do for io in bf16-bf16 fp16-fp16 fp16-fp32; do
  echo "== round $round $io before"; $B/old/kopt_w4a16_example_94a73e7 --rows 1 --io $io $X $C 2>&1
  echo "== round $round $io after"; $B/kopt_w4a16_example --rows 1 --io $io $X $C 2>&1
done; done > $R/one-row.txt
python3 - $R/one-row.txt <<'PY' | tee $R/one-row-sums.txt
import sys, re, collections
cur=None; t=collections.defaultdict(dict)
contest={(7168,9216),(7168,1536),(7168,1024),(5120,6144),(5120,3584),(5120,3072),(5120,768),(5120,256),(4608,7168),(4096,7168),(3072,5120),(1536,6144),(512,7168),(384,5120)}
for line in open(sys.argv[1]):
    if line.startswith("=="): cur=tuple(line.split()[1:]); continue
    m=re.match(r"\s*(\d+) x (\d+)\s+g(\d+)\s+M (\d+)\s+(?:io \S+\s+)?(ok|FAIL)\s+([\d.]+) us", line)
    if m: t[cur][(int(m.group(1)),int(m.group(2)),int(m.group(3)))]=float(m.group(6))
for k,v in sorted(t.items()):
    print(" ".join(k), "contest sum %.2f" % sum(x for s,x in v.items() if s[:2] in contest and s[2]==64), "| other %.2f" % sum(x for s,x in v.items() if not (s[:2] in contest and s[2]==64)))
shapes=sorted({s for v in t.values() for s in v if not (s[:2] in contest and s[2]==64)})
keys=sorted(t)
print("shape " + " | ".join(" ".join(k[1:]) for k in keys))
for s in shapes: print("%dx%d/g%d " % s + " | ".join("%.2f" % t[k].get(s, float('nan')) for k in keys))
PY
(cd $OUT && tar czf r.tgz r && rm -rf r)
