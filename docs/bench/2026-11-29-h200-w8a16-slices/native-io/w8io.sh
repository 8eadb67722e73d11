#!/bin/bash
# kopt_w8a16's batched kernels reading and writing the engines' dtypes; W4A16's example on the changed harness.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="7168x9216 5120x256 384x5120 4096x14336 1000x1000 16x33"
for io in fp16-fp32 bf16-bf16 fp16-fp16 bf16-fp32; do
  .device/kopt_w8a16_example --rows 1,2,5,16 --io $io $S 2>&1 | sed "s/^/$io /"
done > $OUT/w8-io.txt; grep -c " ok " $OUT/w8-io.txt >> $OUT/w8-io.txt
.device/kopt_w4a16_example --rows 1,4,16 7168x9216 384x5120 > $OUT/w4-harness.txt 2>&1; echo "rc $?" >> $OUT/w4-harness.txt
date -u
