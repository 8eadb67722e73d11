#!/usr/bin/env bash
# The register path's weights requested before x's conversion (EARLY) and three tiles ahead in lone
# blocks (AHEAD): the example in three dtype pairs at 1 to 16 rows; the library's example before
# (.device/old, the build of 7c41d41) and after, alternating, two rounds, at 2 to 4 rows and one bf16 row;
# the standing with PyTorch's peers at 2 and 4 rows; the xrows GPU tests and the library's tests.
B=.device; R=$OUT/final; mkdir -p $R
export PYTHONUNBUFFERED=1
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee $R/head.txt
C="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
X="14336x4096 12288x3072 4096x7168/g128 8192x128/g128 4096x4096 6144x4096 3072x5120/g32"
for io in fp16-fp32 bf16-bf16 fp16-fp16; do
  echo "== $io" > $R/w4a16-$io.txt
  timeout 110 $B/kopt_w4a16_example --rows 1,2,3,4,5,8,16 --io $io $C $X >> $R/w4a16-$io.txt 2>&1; echo "w4a16 $io rc $? ok $(grep -c ' ok ' $R/w4a16-$io.txt) FAIL $(grep -c FAIL $R/w4a16-$io.txt)"
done
for round in 1 2; do
  for v in old new; do
    E=$B/kopt_w4a16_example; [ $v = old ] && E=$B/old/kopt_w4a16_example
    echo "== round $round $v"
    timeout 45 $E --rows 2,3,4 $C $X 2>&1
    timeout 25 $E --rows 1 --io bf16-bf16 $C 2>&1
  done
done > $R/library.txt
echo "library ok $(grep -c ' ok ' $R/library.txt) FAIL $(grep -c FAIL $R/library.txt)"
MHZ=$(nvidia-smi --query-gpu=clocks.max.sm --format=csv,noheader,nounits | head -1)
timeout 200 python3 bench/library_standing.py --example $B/kopt_w4a16_example --out $R/run --rows 2,4 --sms 132 --sm-mhz $MHZ > $R/standing.txt 2>&1; echo "standing rc $?"; tail -20 $R/standing.txt
timeout 150 $B/kopt_tests --gtest_filter='GpuTest.Xrows*:GpuTest.*Batch*' > $R/gpu-xrows.txt 2>&1; echo "xrows GPU tests rc $?"; grep -E "PASSED|FAILED|tests ran" $R/gpu-xrows.txt | tail -4
timeout 60 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -3
date -u | tee -a $R/head.txt
(cd $R && tar czf $OUT/final.tgz --exclude='*.json' .) ; ls -la $OUT
