#!/usr/bin/env bash
# bf16 x's largest |x| in bf16 pairs (XMAX) on the entries' bf16 builds: checks, then one bf16 row before (e2e60d0) and after, alternating.
B=.device; R=$OUT/r; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
(cd tests/library && PYTHONPATH=$OLDPWD/$B/python timeout 120 python3 -m unittest test_python_binding_gpu > $R/python-tests.txt 2>&1; echo "python rc $?")
C="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
X="4096x14336 3584x18944 8192x8192 14336x4096 4096x6144 4096x4096 640x5120/g32 1000x24 2048x64 28672x8192"
for r in 1 3; do echo "== bf16-bf16 rows $r"; $B/kopt_w4a16_example --rows $r --io bf16-bf16 $C $X 2>&1; done > $R/checks.txt
echo "checks ok $(grep -c ' ok ' $R/checks.txt) FAIL $(grep -c FAIL $R/checks.txt)"
for round in 1 2; do
  echo "== round $round bf16-bf16 before"; $B/old/kopt_w4a16_example_e2e60d0 --rows 1 --io bf16-bf16 $C $X 2>&1
  echo "== round $round bf16-bf16 after"; $B/kopt_w4a16_example --rows 1 --io bf16-bf16 $C $X 2>&1
done > $R/one-row.txt
grep -c " ok " $R/one-row.txt
(cd $OUT && tar czf r.tgz r && rm -rf r)
