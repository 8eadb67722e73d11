#!/bin/bash
# W8A16 one bf16 row with the rule (the 1-row build where K is cut into three slices or more, or short): the contest and Llama shapes twice, odd shapes.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p /tmp/h
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120 4096x4096 4096x1024 4096x14336 14336x4096"
for r in 1 2; do .device/kopt_w8a16_example --rows 1 --io bf16-bf16 $S > /tmp/h/rule-$r.txt 2>&1; echo "rc $?" >> /tmp/h/rule-$r.txt; done
.device/kopt_w8a16_example --rows 1,2,17 --io bf16-bf16 1000x1000 4095x33 16x33 4096x777 65536x1024 512x1024 > /tmp/h/odd.txt 2>&1; echo "rc $?" >> /tmp/h/odd.txt
tail -n 2 /tmp/h/odd.txt /tmp/h/rule-1.txt
paste <(grep " M 1 " /tmp/h/rule-1.txt | cut -c1-50) <(grep " M 1 " /tmp/h/rule-2.txt | cut -c28-50)
tar -C /tmp -czf $OUT/w8rule.tgz h
date -u
