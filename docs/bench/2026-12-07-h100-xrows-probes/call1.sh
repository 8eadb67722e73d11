#!/usr/bin/env bash
# 1) The register path's whole ring requested before x's conversion (EARLY), through the library:
#    the example before (.device/old, the committed seed) and after, alternating, two rounds, 2 to 4 rows.
# 2) A probe: the register path at 8 rows (MR 8, .probe/xrows_m8.hip: the seed with
#    xrows-whole-ring.diff and MR's values 1, 2, 4, 6, 8), kopt eval on the contest shapes,
#    beside the library's example at 8 rows.
# 3) The register path's GPU tests on the new seed.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/call1; mkdir -p $R
export PYTHONUNBUFFERED=1
{ echo "commit $(cat $B/COMMIT) + working tree"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee $R/head.txt
C="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
X="14336x4096 12288x3072 4096x7168/g128 8192x128/g128 4096x4096 6144x4096 3072x5120/g32"
for round in 1 2; do
  for v in old new; do
    E=$B/kopt_w4a16_example; [ $v = old ] && E=$B/old/kopt_w4a16_example
    echo "== round $round $v"
    timeout 45 $E --rows 2,3,4 $C $X 2>&1
  done
done > $R/library.txt
echo "library ok $(grep -c ' ok ' $R/library.txt) FAIL $(grep -c FAIL $R/library.txt)"
for io in fp16-fp32 bf16-bf16 fp16-fp16; do
  timeout 60 $B/kopt_w4a16_example --rows 1,2,3,4,5,8,16 --io $io $C $X > $R/w4a16-$io.txt 2>&1; echo "w4a16 $io rc $? ok $(grep -c ' ok ' $R/w4a16-$io.txt) FAIL $(grep -c FAIL $R/w4a16-$io.txt)"
done
timeout 150 $B/kopt_tests --gtest_filter='GpuTest.Xrows*:GpuTest.*Batch*' > $R/gpu-xrows.txt 2>&1; echo "xrows GPU tests rc $?"; grep -E "PASSED|FAILED|tests ran" $R/gpu-xrows.txt | tail -4
timeout 60 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -3
timeout 30 $B/kopt_w4a16_example --rows 8 $C > $R/example-m8.txt 2>&1; echo "example m8 rc $?"
S=$R/m8-probe.txt; : > $S
run() { # label shapes-at-K... params
  local label=$1; shift
  echo "== $label" >> $S
  timeout 60 $B/kopt eval .probe/xrows_m8.hip --problem w4a16_batch --param MR=8 --param X16=1 --param EARLY=0 "$@" 2>&1 | grep -E "^shape|time:|FAIL|rror|wrong|unsupported|reject" >> $S
}
SH=""; for s in $C; do SH="$SH --shape 8x$s"; done
run "ROWS 2 OCC 1 AHEAD 2" $SH --param ROWS=2 --param BATCH=8 --param OCC=1 --param AHEAD=2
run "ROWS 1 OCC 1 AHEAD 2" $SH --param ROWS=1 --param BATCH=8 --param OCC=1 --param AHEAD=2
run "ROWS 4 OCC 1 AHEAD 1" $SH --param ROWS=4 --param BATCH=8 --param OCC=1 --param AHEAD=1
echo "m8 probe ok $(grep -c ': ok' $S) of $(grep -c '^shape' $S)"
date -u | tee -a $R/head.txt
(cd $R && tar czf $OUT/call1.tgz .) ; ls -la $OUT
