#!/usr/bin/env bash
# The register path at 8 rows through the library (the 8-row builds for 7168x1536, 7168x1024 and
# 5120x256), and the derived first tile of a batch in every register-path build:
# 1) the library's example before (.device/old, d898f6e) and after, alternating, two rounds:
#    2 and 4 rows of the contest shapes, 5, 6 and 8 rows of the three shapes and two others;
# 2) the register path's GPU test; the example in three dtype pairs at 1 to 16 rows on those shapes;
# 3) bench/library_standing.py at 8 rows with PyTorch's peers;
# 4) kopt eval of the 8-row builds' settings against one knob changed each (BATCH, EARLY, AHEAD);
# 5) the rest of the GPU suite (kopt_tests' GPU tests, the library's tests, both bindings' GPU tests).
cd "$(dirname "$0")/.."
B=.device; R=$OUT/call1; mkdir -p $R
export PYTHONUNBUFFERED=1
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee $R/head.txt
C="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
T="7168x1536 7168x1024 5120x256 5120x768 4096x7168"
for round in 1 2; do
  for v in old new; do
    E=$B/kopt_w4a16_example; [ $v = old ] && E=$B/old/kopt_w4a16_example
    echo "== round $round $v"
    timeout 45 $E --rows 2,4 $C 2>&1
    timeout 30 $E --rows 5,6,8 $T 2>&1
  done
done > $R/library.txt
echo "library ok $(grep -c ' ok ' $R/library.txt) FAIL $(grep -c FAIL $R/library.txt)"
timeout 60 $B/kopt_tests --gtest_filter='GpuTest.Xrows*' > $R/gpu-xrows.txt 2>&1; echo "xrows GPU test rc $?"; grep -E "PASSED|FAILED|tests ran" $R/gpu-xrows.txt | tail -3
for io in fp16-fp32 bf16-bf16 fp16-fp16; do
  timeout 40 $B/kopt_w4a16_example --rows 1,4,5,7,8,9,16 --io $io 7168x1536 7168x1024 5120x256 5120x6144 > $R/w4a16-$io.txt 2>&1; echo "w4a16 $io rc $? ok $(grep -c ' ok ' $R/w4a16-$io.txt) FAIL $(grep -c FAIL $R/w4a16-$io.txt)"
done
MHZ=$(nvidia-smi --query-gpu=clocks.max.sm --format=csv,noheader,nounits | head -1)
SMS=$(python3 -c "import torch; print(torch.cuda.get_device_properties(0).multi_processor_count)")
timeout 150 python3 bench/library_standing.py --example $B/kopt_w4a16_example --out $R/run --rows 8 --sms $SMS --sm-mhz $MHZ > $R/standing.txt 2>&1; echo "standing rc $?"; tail -22 $R/standing.txt | head -20
S=$R/m8-eval.txt; : > $S
run() { # label shapes params
  local label=$1; shift
  echo "== $label" >> $S
  timeout 30 $B/kopt eval .probe/xrows.hip --problem w4a16_batch --param MR=8 --param X16=1 --param OCC=1 "$@" 2>&1 | grep -E "^shape|time:|FAIL|rror|wrong|unsupported|reject|sm_90" >> $S
}
L="--shape 8x7168x1536 --shape 8x7168x1024 --param ROWS=4"
run "library 4 columns: AHEAD 1 BATCH 8 EARLY 0" $L --param AHEAD=1 --param BATCH=8 --param EARLY=0
run "BATCH 1" $L --param AHEAD=1 --param BATCH=1 --param EARLY=0
run "EARLY 1" $L --param AHEAD=1 --param BATCH=8 --param EARLY=1
run "AHEAD 2" $L --param AHEAD=2 --param BATCH=8 --param EARLY=0
L="--shape 8x5120x256 --shape 6x5120x256 --param ROWS=2"
run "library 2 columns: AHEAD 3 BATCH 8 EARLY 0" $L --param AHEAD=3 --param BATCH=8 --param EARLY=0
run "AHEAD 2" $L --param AHEAD=2 --param BATCH=8 --param EARLY=0
run "EARLY 1" $L --param AHEAD=3 --param BATCH=8 --param EARLY=1
echo "eval ok $(grep -c ': ok' $S) of $(grep -c '^shape' $S)"
date -u | tee -a $R/head.txt
# The GPU suite: kopt_tests' GPU tests (adversarial kernels included), the library's tests, both bindings'.
timeout 40 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -3
(cd tests/library && PYTHONPATH=$OLDPWD/$B/python timeout 60 python3 -m unittest test_python_binding_gpu test_python_w8a16_gpu) > $R/python-tests.txt 2>&1; echo "python rc $?"; tail -3 $R/python-tests.txt
timeout 330 $B/kopt_tests --gtest_filter='GpuTest.*:W8a16GpuTest.*:WorkerPoolTest.*Gpu*-GpuTest.Xrows*' > $R/gpu-tests.txt 2>&1; echo "kopt_tests GPU rc $?"
grep -E "PASSED|FAILED|tests ran|SKIPPED" $R/gpu-tests.txt | tail -6
date -u | tee -a $R/head.txt
