#!/usr/bin/env bash
# The final commit's whole GPU suite, then the klanes seed at 16 and 8 rows in the packed layout (0) against the
# canonical one (1) on long-K shapes (the library reads the canonical blob there) and two controls.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/s1; mkdir -p $R
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 330 $B/kopt_tests --gtest_filter='GpuTest.*:W8a16GpuTest.*:WorkerPoolTest.*Gpu*' > $R/gpu-tests.txt 2>&1; echo "kopt_tests GPU rc $?"; grep -E "PASSED|FAILED|tests ran" $R/gpu-tests.txt | tail -4
timeout 100 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -2
date -u
S="17920x5120 28672x8192 27648x5120 18944x3584 14336x4096"
for round in 1 2; do
for L in 0 1; do
  sel=(); for x in $S; do sel+=(--shape 16x$x); done
  timeout 100 $B/kopt bench --problem w4a16_batch "${sel[@]}" --seeds klanes --param MR=16 --param X16=1 --param GROUPS=2 --param SPREAD=1 --param LAYOUT=$L > $R/m16-L$L-r$round.txt 2>&1; echo "m16 L$L r$round"; grep "klanes: " $R/m16-L$L-r$round.txt
  sel=(); for x in $S; do sel+=(--shape 8x$x); done
  timeout 100 $B/kopt bench --problem w4a16_batch "${sel[@]}" --seeds klanes --param MR=8 --param X16=1 --param LAYOUT=$L > $R/m8-L$L-r$round.txt 2>&1; echo "m8 L$L r$round"; grep "klanes: " $R/m8-L$L-r$round.txt
done; done
timeout 60 $B/kopt_w4a16_example --rows 8,16 $S > $R/example.txt 2>&1; echo "example rc $?: $(tail -1 $R/example.txt)"; grep -E " M (8|16) " $R/example.txt | cut -c1-75
date -u
tar czf $OUT/s1.tgz -C $OUT s1 && rm -rf $R
