#!/usr/bin/env bash
# Checks of the final kernels' routing, the clocks under load, occupancy probes.
B=.device; R=$OUT/r; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee $R/head.txt
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120 4096x14336 3584x18944 8192x8192 640x5120/g32 1000x24 2048x64"
for lib in w4a16 w8a16; do for io in fp16-fp32 bf16-bf16 fp16-fp16; do for r in 1 2 3 8 16; do
  echo "== $lib $io rows $r"; $B/kopt_${lib}_example --rows $r --io $io $S 2>&1; done; done; done > $R/examples.txt
echo "examples ok $(grep -c ' ok ' $R/examples.txt) FAIL $(grep -c FAIL $R/examples.txt)"
(cd tests/library && PYTHONPATH=$OLDPWD/$B/python timeout 200 python3 -m unittest test_python_w8a16_gpu test_python_w8a16 test_python_binding_gpu test_python_binding > $R/python-tests.txt 2>&1; echo "python rc $?")
# Clocks while 16 (then 8, then 1) rows run back to back for 4 s each.
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active --format=csv -lms 50 > $R/clocks.csv 2>&1 & P=$!
for r in 16 8 1; do PYTHONPATH=$B/python python3 .probe/load.py 4 $r; sleep 1; done 2>&1 | tee $R/load.txt
kill $P
# One 16-row kernel under Nsight Compute at the card's own clocks and at base clocks.
for cc in none base; do
  timeout 120 ncu --clock-control $cc --metrics sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active -k regex:klanes --launch-count 1 $B/kopt_w4a16_example --rows 16 7168x9216 > $R/ncu-$cc.txt 2>&1; echo "ncu $cc rc $?"
done
# Occupancy: klanes at 8 and 16 rows, columns and blocks an SM.
e() { # shape params...
  local s=$1; shift; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 60 $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --shape $s --trials 1 --param X16=1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict|spill|regist" | tr '\n' ' ' | sed 's/  */ /g')
  echo "$s $* | $t"
}
for p in "COLS=2 OCC=2" "COLS=1 OCC=3" "COLS=1 OCC=4" "COLS=2 OCC=3"; do
  for s in 7168x9216 5120x3584 3072x5120; do e 8x$s MR=8 $p; done
  for s in 7168x9216 5120x6144 512x7168; do e 16x$s MR=16 GROUPS=2 SPREAD=1 $p; done
done > $R/occupancy.txt
cat $R/occupancy.txt
(cd $OUT && tar czf r.tgz r && rm -rf r)
