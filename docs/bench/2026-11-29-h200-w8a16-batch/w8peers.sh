#!/bin/bash
# kopt_w8a16 at 1-16 rows beside PyTorch's int8 weight-only kernel and cuBLAS fp16 at the same M, one run.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for m in 1 2 4 8 16; do python3 bench/torch_peers.py $OUT/peers-m$m.json $m > $OUT/peers-m$m.txt 2>&1; done
.device/kopt_w8a16_example --rows 1,2,4,8,16 7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120 > $OUT/w8lib-final.txt 2>&1; echo "rc $?" >> $OUT/w8lib-final.txt
date -u
