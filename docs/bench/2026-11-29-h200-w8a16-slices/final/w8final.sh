#!/bin/bash
# The committed library at 1-16 rows on the contest shapes; the peers at 1, 4 and 8 rows (2 and 16 ran with w8split3.sh).
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p $OUT/final
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
.device/kopt_w8a16_example --rows 1,2,4,8,16 $S > $OUT/final/w8lib-final.txt 2>&1; echo "rc $?" >> $OUT/final/w8lib-final.txt
for m in 1 4 8; do timeout 100 python3 bench/torch_peers.py $OUT/final/peers-m$m.json $m > $OUT/final/peers-m$m.txt 2>&1; done
date -u
