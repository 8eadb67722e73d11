#!/usr/bin/env bash
# Two column groups at 16 rows in the canonical layout: the library GPU tests, the klanes GPU tests, the library
# example on long-K shapes whose batch-1 kernel reads the canonical blob (and controls), beside the klanes seed at
# the library's settings, and the contest shapes at 16 rows.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/layout1; mkdir -p $R
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
timeout 120 $B/kopt_library_tests > $R/library-tests.txt 2>&1; echo "library tests rc $?"; grep -E "PASSED|FAILED" $R/library-tests.txt | tail -2
timeout 150 $B/kopt_tests --gtest_filter='GpuTest.Klanes*' > $R/klanes-tests.txt 2>&1; echo "klanes tests rc $?"; grep -E "PASSED|FAILED" $R/klanes-tests.txt | tail -2
S="17920x5120 28672x8192 27648x5120 18944x3584 14336x4096 5120x17920"
timeout 120 $B/kopt_w4a16_example --rows 1,9,10,16 $S > $R/example.txt 2>&1; echo "example rc $?: $(tail -1 $R/example.txt)"; grep -E " M (1|10|16) " $R/example.txt | cut -c1-75
sel=(); for x in $S; do sel+=(--shape 16x$x); done
timeout 150 $B/kopt bench --problem w4a16_batch "${sel[@]}" --seeds klanes --param MR=16 --param X16=1 --param GROUPS=2 --param SPREAD=1 > $R/seed-g2.txt 2>&1; grep "klanes: " $R/seed-g2.txt
timeout 60 $B/kopt_w4a16_example --rows 16 > $R/contest-m16.txt 2>&1; echo "contest 16 rows: $(tail -1 $R/contest-m16.txt)"; grep " M 16 " $R/contest-m16.txt | awk "{s+=\$8} END {print \"sum of the 17 shapes\", s}"
date -u
tar czf $OUT/layout1.tgz -C $OUT layout1 && rm -rf $R
