#!/usr/bin/env bash
# The libraries on the staged commit (each platform's own entries): the library's tests, both examples in
# three dtype pairs at 1, 2, 8 and 16 rows on the contest shapes, both bindings' GPU tests.
B=.device; R=$OUT/lib; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
timeout 60 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -3
C="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
for io in fp16-fp32 bf16-bf16 fp16-fp16; do echo "== $io"
  timeout 80 $B/kopt_w4a16_example --rows 1,2,8,16 --io $io $C 2>&1; done > $R/w4a16-checks.txt
echo "w4a16 ok $(grep -c ' ok ' $R/w4a16-checks.txt) FAIL $(grep -c FAIL $R/w4a16-checks.txt)"; grep "failed the" $R/w4a16-checks.txt
grep "5120 x 6144.*M 1 " $R/w4a16-checks.txt | cut -c1-160
for io in fp16-fp32 bf16-bf16; do echo "== $io"
  timeout 60 $B/kopt_w8a16_example --rows 1,2,16 --io $io $C 2>&1; done > $R/w8a16-checks.txt
echo "w8a16 ok $(grep -c ' ok ' $R/w8a16-checks.txt) FAIL $(grep -c FAIL $R/w8a16-checks.txt)"; grep "failed the" $R/w8a16-checks.txt
(cd tests/library && PYTHONPATH=$OLDPWD/$B/python timeout 120 python3 -m unittest test_python_binding_gpu test_python_w8a16_gpu) > $R/python-tests.txt 2>&1; echo "python rc $?"; tail -3 $R/python-tests.txt
date -u | tee -a $R/head.txt
