#!/usr/bin/env bash
# kopt_w8a16's entries built for fp16-fp16 and bf16-bf16: checks, then one row before (c70caaa) and after, alternating.
B=.device; R=$OUT/r; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
(cd tests/library && PYTHONPATH=$OLDPWD/$B/python timeout 120 python3 -m unittest test_python_w8a16_gpu test_python_binding_gpu > $R/python-tests.txt 2>&1; echo "python rc $?")
C="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
X="4096x14336 14336x4096 4096x6144 4096x4096 1000x300 2048x64"
for io in fp16-fp16 bf16-bf16 bf16-fp32; do for r in 1 2 16; do echo "== $io rows $r"; $B/kopt_w8a16_example --rows $r --io $io $C $X 2>&1; done; done > $R/checks.txt
echo "checks ok $(grep -c ' ok ' $R/checks.txt) FAIL $(grep -c FAIL $R/checks.txt)"
for round in 1 2; do for io in bf16-bf16 fp16-fp16 fp16-fp32; do
  echo "== round $round $io before"; $B/old/kopt_w8a16_example_c70caaa --rows 1 --io $io $C $X 2>&1
  echo "== round $round $io after"; $B/kopt_w8a16_example --rows 1 --io $io $C $X 2>&1
done; done > $R/one-row.txt
(cd $OUT && tar czf r.tgz r && rm -rf r)
