#!/bin/bash
# The library with the first slice rule (old) and the busiest-SM rule (new), alternating; odd shapes on the new; the peers.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
for round in 1 2; do
  for lib in old new; do .device/w8ex_$lib --rows 2,4,8,16 $S > $OUT/lib-$lib-$round.txt 2>&1; done
done
.device/w8ex_new --rows 1,2,3,5,13,16 4096x14336 14336x4096 65536x1024 1000x1000 4095x33 16x33 > $OUT/odd.txt 2>&1; echo "rc $?" >> $OUT/odd.txt
date -u
for m in 2 4 8 16; do timeout 100 python3 bench/torch_peers.py $OUT/peers-m$m.json $m > $OUT/peers-m$m.txt 2>&1; done
date -u
