#!/bin/bash
# One fp16 row with fp16 y on kopt_w4a16: the register path below 8 x 2^20 weights; the same shapes as the run before this change (fp16one.sh), twice; odd shapes; bf16 and fp16-to-fp32 unchanged.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p /tmp/q
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120 4096x4096 4096x1024 4096x14336 14336x4096"
for r in 1 2; do .device/kopt_w4a16_example --rows 1 --io fp16-fp16 $S > /tmp/q/fp16-$r.txt 2>&1; echo "rc $?" >> /tmp/q/fp16-$r.txt; done
.device/kopt_w4a16_example --rows 1,2,17 --io fp16-fp16 96x10/g32 2048x2880 4096x1024/g128 512x1024 32x33/g32 > /tmp/q/odd.txt 2>&1; echo "rc $?" >> /tmp/q/odd.txt
.device/kopt_w4a16_example --rows 1 $S > /tmp/q/fp32.txt 2>&1; echo "rc $?" >> /tmp/q/fp32.txt
tail -n 2 /tmp/q/odd.txt /tmp/q/fp16-1.txt /tmp/q/fp32.txt
paste <(grep " M 1 " /tmp/q/fp16-1.txt | cut -c1-52) <(grep " M 1 " /tmp/q/fp16-2.txt | cut -c36-52)
grep -c "fp16-to-fp16 row" /tmp/q/fp16-1.txt
python3 -c "
import re
t=0
for l in open('/tmp/q/fp32.txt'):
    m=re.search(r'M 1\s+ok\s+([\d.]+) us',l)
    if m: t+=float(m[1])
print('fp16-fp32 sum of the 18', round(t,2))"
tar -C /tmp -czf $OUT/fp16two.tgz q
date -u
