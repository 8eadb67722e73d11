#!/usr/bin/env bash
# 1) The whole GPU suite on the current main (kopt_tests' GPU tests with the register path's
#    test as split, the library's tests, both bindings' GPU tests).
# 2) Probes at the (shape, M) the library trails a peer on, on an H100: 8 rows of 384x5120 (and
#    512x7168) on the register path with more blocks an SM than the 8-row builds' one, and klanes's
#    knobs there; 4 and 8 rows of 5120x3072 on klanes beside the library's builds.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/call1; mkdir -p $R
export PYTHONUNBUFFERED=1
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee $R/head.txt
timeout 360 $B/kopt_tests --gtest_filter='GpuTest.*:W8a16GpuTest.*:WorkerPoolTest.*Gpu*' > $R/gpu-tests.txt 2>&1; echo "kopt_tests GPU rc $?"
grep -E "PASSED|FAILED|tests ran|SKIPPED" $R/gpu-tests.txt | tail -8
timeout 40 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -3
(cd tests/library && PYTHONPATH=$OLDPWD/$B/python timeout 80 python3 -m unittest test_python_binding_gpu test_python_w8a16_gpu) > $R/python-tests.txt 2>&1; echo "python rc $?"; tail -3 $R/python-tests.txt
date -u | tee -a $R/head.txt
S=$R/probes.txt; : > $S
run() { # label seed params...
  local label=$1 seed=$2; shift 2
  echo "== $label" >> $S
  timeout 40 $B/kopt eval seeds/w4a16_batch/$seed.hip --problem w4a16_batch --param X16=1 "$@" 2>&1 | grep -E "^shape|time:|FAIL|rror|wrong|unsupported|reject" >> $S
}
X="--shape 8x384x5120 --shape 8x512x7168 --param MR=8 --param LPR=16 --param EARLY=0 --param BATCH=1"
run "xrows ROWS 2 OCC 0 AHEAD 1" xrows $X --param ROWS=2 --param OCC=0 --param AHEAD=1
run "xrows ROWS 4 OCC 0 AHEAD 1" xrows $X --param ROWS=4 --param OCC=0 --param AHEAD=1
run "xrows ROWS 1 OCC 0 AHEAD 1" xrows $X --param ROWS=1 --param OCC=0 --param AHEAD=1
run "xrows ROWS 2 OCC 4 AHEAD 1" xrows $X --param ROWS=2 --param OCC=4 --param AHEAD=1
run "xrows ROWS 2 OCC 8 AHEAD 1" xrows $X --param ROWS=2 --param OCC=8 --param AHEAD=1
run "xrows ROWS 4 OCC 0 AHEAD 2" xrows $X --param ROWS=4 --param OCC=0 --param AHEAD=2
K="--shape 8x384x5120 --param MR=8 --param COLS=2 --param WARPS=8"
run "klanes library 384 (GROUPS 2 OCC 2)" klanes $K --param GROUPS=2 --param OCC=2
run "klanes SPREAD 1" klanes $K --param GROUPS=2 --param OCC=2 --param SPREAD=1
run "klanes GROUPS 4" klanes $K --param GROUPS=4 --param OCC=2
run "klanes OCC 4" klanes $K --param GROUPS=2 --param OCC=4
run "klanes DEPTH 4" klanes $K --param GROUPS=2 --param OCC=2 --param DEPTH=4
run "klanes GROUPS 2 COLS 1" klanes --shape 8x384x5120 --param MR=8 --param COLS=1 --param WARPS=8 --param GROUPS=2 --param OCC=2
run "klanes GROUPS 2 WARPS 4 OCC 4" klanes --shape 8x384x5120 --param MR=8 --param COLS=2 --param WARPS=4 --param GROUPS=2 --param OCC=4
F="--shape 4x5120x3072 --shape 3x5120x3072"
run "xrows library 4 rows 5120x3072" xrows $F --param MR=4 --param ROWS=4 --param LPR=32 --param OCC=0 --param BATCH=8 --param AHEAD=1 --param EARLY=1
run "klanes 4 rows XS 0 GROUPS 1" klanes $F --param MR=4 --param COLS=2 --param WARPS=8 --param GROUPS=1 --param OCC=2
run "klanes 4 rows XS 2 GROUPS 1" klanes $F --param MR=4 --param COLS=2 --param WARPS=8 --param GROUPS=1 --param OCC=2 --param XS=2
run "klanes 4 rows XS 2 GROUPS 2" klanes $F --param MR=4 --param COLS=2 --param WARPS=8 --param GROUPS=2 --param OCC=2 --param XS=2
E="--shape 8x5120x3072 --param MR=8 --param COLS=2 --param GROUPS=2"
run "klanes library 8 rows 5120x3072 (XS 2)" klanes $E --param WARPS=8 --param OCC=2 --param XS=2
run "klanes XS 1" klanes $E --param WARPS=8 --param OCC=2 --param XS=1
run "klanes XS 3" klanes $E --param WARPS=8 --param OCC=2 --param XS=3
run "klanes OCC 3" klanes $E --param WARPS=8 --param OCC=3 --param XS=2
run "klanes WARPS 16 OCC 1" klanes $E --param WARPS=16 --param OCC=1 --param XS=2
run "klanes DEPTH 4" klanes $E --param WARPS=8 --param OCC=2 --param XS=2 --param DEPTH=4
echo "probes ok $(grep -c ': ok' $S) of $(grep -c '^shape' $S)"
date -u | tee -a $R/head.txt
