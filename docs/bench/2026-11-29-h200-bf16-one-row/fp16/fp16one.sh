#!/bin/bash
# One row with fp16 in and out (AWQ engines in fp16): the library now (batch-1 kernel, y converted after it), both libraries; bf16 in and out beside for the 1-row builds' times.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120 4096x4096 4096x1024 4096x14336 14336x4096"
for io in fp16-fp16 bf16-bf16; do
  .device/kopt_w4a16_example --rows 1 --io $io $S | grep " M 1 " | cut -c1-52
  .device/kopt_w8a16_example --rows 1 --io $io $S | grep " M 1 " | cut -c1-50
done
date -u
