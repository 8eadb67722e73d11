#!/usr/bin/env bash
# 10 rows of 17920x5120 (the generic rule's worst case on the H200): the library and the klanes seed at the
# library's settings (two groups, spread), alternating, three rounds each.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/recheck; mkdir -p $R
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for i in 1 2 3; do
  timeout 60 $B/kopt_w4a16_example --rows 10 17920x5120 5120x17920 > $R/library-$i.txt 2>&1; grep -E " M 10 " $R/library-$i.txt | cut -c1-60
  timeout 90 $B/kopt bench --problem w4a16_batch --shape 10x17920x5120 --shape 10x5120x17920 --seeds klanes --param MR=16 --param X16=1 --param GROUPS=2 --param SPREAD=1 > $R/seed-$i.txt 2>&1; grep -E "klanes: " $R/seed-$i.txt
done
date -u
tar czf $OUT/recheck.tgz -C $OUT recheck && rm -rf $R
