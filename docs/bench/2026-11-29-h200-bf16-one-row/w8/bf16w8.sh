#!/bin/bash
# W8A16, one bf16 row: before (batch-1 kernels with x and y converted) and after (the 1-row lanes build), alternating; odd shapes. Outputs in one tar.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p /tmp/r
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120 4096x4096 4096x1024 4096x14336 14336x4096"
for round in 1 2; do
  .device/old/kopt_w8a16_example --rows 1 --io bf16-bf16 $S > /tmp/r/w8-before-$round.txt 2>&1; echo "rc $?" >> /tmp/r/w8-before-$round.txt
  .device/kopt_w8a16_example --rows 1 --io bf16-bf16 $S > /tmp/r/w8-after-$round.txt 2>&1; echo "rc $?" >> /tmp/r/w8-after-$round.txt
done
.device/kopt_w8a16_example --rows 1,2,17 --io bf16-bf16 1000x1000 4095x33 16x33 4096x777 65536x1024 > /tmp/r/w8-odd.txt 2>&1; echo "rc $?" >> /tmp/r/w8-odd.txt
.device/kopt_w4a16_example --rows 1,2,17 --io bf16-bf16 2048x2880 96x10/g32 4096x7168/g128 8192x1024 8224x64/g32 32x33/g32 > /tmp/r/w4-odd.txt 2>&1; echo "rc $?" >> /tmp/r/w4-odd.txt
tail -n 2 /tmp/r/w8-odd.txt /tmp/r/w4-odd.txt
grep -h " M 1 " /tmp/r/w8-after-1.txt | cut -c1-60
tar -C /tmp -czf $OUT/bf16w8.tgz r
date -u
