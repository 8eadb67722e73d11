#!/usr/bin/env bash
# The library's example at 2, 3 and 4 rows of long-K shapes: before (.device/old, the commit before the rule) and after, alternating, two rounds; then the new build in bf16-bf16 once.
B=.device
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; echo "commit $(cat $B/COMMIT)"
S="14336x4096 28672x8192 18944x3584 11008x4096 13824x5120 27648x5120 9472x3584 14336x8192 8960x1536 17920x5120 12288x3072 16384x6144 10240x8192 20480x2560"
for r in 1 2; do
  echo "== round $r before"; timeout 200 $B/old/kopt_w4a16_example --rows 2,3,4 $S | cut -c1-80
  echo "== round $r after"; timeout 200 $B/kopt_w4a16_example --rows 2,3,4 $S | cut -c1-80
done
echo "== after, bf16-bf16"; timeout 200 $B/kopt_w4a16_example --rows 2,3,4 --io bf16-bf16 $S | cut -c1-80
date -u
