#!/bin/bash
# One bf16 row, large weights: the library before (a91a366: batch-1 kernels above 31 x 2^20) and after (the register path where the batch-1 kernel is generic), alternating; the contest shapes once each (unchanged below that size and for the tuned large ones).
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p /tmp/g
L="4096x14336 8192x8192 5120x13824 3584x18944 4096x11008 8192x4096 7168x9216 4608x7168"
for r in 1 2; do
  .device/old/kopt_w4a16_example_a91 --rows 1 --io bf16-bf16 $L > /tmp/g/before-$r.txt 2>&1; echo "rc $?" >> /tmp/g/before-$r.txt
  .device/kopt_w4a16_example --rows 1 --io bf16-bf16 $L > /tmp/g/after-$r.txt 2>&1; echo "rc $?" >> /tmp/g/after-$r.txt
done
.device/kopt_w4a16_example --rows 1,2,17 --io bf16-bf16 4096x14336 8192x4096 3584x18944/g128 > /tmp/g/odd.txt 2>&1; echo "rc $?" >> /tmp/g/odd.txt
tail -n 2 /tmp/g/odd.txt /tmp/g/after-1.txt
paste <(grep " M 1 " /tmp/g/before-1.txt | cut -c1-52) <(grep " M 1 " /tmp/g/after-1.txt | cut -c30-52) <(grep " M 1 " /tmp/g/before-2.txt | cut -c30-52) <(grep " M 1 " /tmp/g/after-2.txt | cut -c30-52)
grep -c "one bf16 row" /tmp/g/after-1.txt
tar -C /tmp -czf $OUT/large2.tgz g
date -u
