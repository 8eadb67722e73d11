#!/usr/bin/env bash
# One column group past 8 rows where K / 32 is 17 to 32: the library before (faca684) and now at 16, 12 and 9
# rows on shapes of that K (and beside it), alternating, twice; every (shape, M) checked by the example.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/midk; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="640x5120 1024x4096 896x4864 544x2048 768x3072 1024x14336 512x7168 1056x5120 384x5120"
for round in 1 2; do
  $B/before/kopt_w4a16_example --rows 16,12,9 $S > $T/before-$round.txt 2>&1
  $B/kopt_w4a16_example --rows 16,12,9 $S > $T/after-$round.txt 2>&1
done
tail -n 1 $T/*.txt
$B/kopt_tests --gtest_filter='*Klanes*:*Batch*' > $T/gpu-tests.txt 2>&1; echo "tests rc $?"; grep -E "PASSED|FAILED" $T/gpu-tests.txt | tail -3
date -u
cd $OUT && tar czf midk.tgz midk
