#!/usr/bin/env bash
# kopt profile of the klanes seed at 16 rows of 7168x9216 as the library builds it (X16, two groups, spread):
# b78128e's (every row's dots at once) and 61ae9e9's (row by row).
cd "$(dirname "$0")/.."
B=.device; mkdir -p $OUT/profile
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
for v in before now; do
  f=seeds/w4a16_batch/klanes.hip; [ $v = before ] && f=$B/klanes_before.hip
  timeout 200 $B/kopt profile $f --problem w4a16_batch --shape 16x7168x9216 --param MR=16 --param X16=1 --param GROUPS=2 --param SPREAD=1 --json > $OUT/profile/$v-m16.txt 2>&1
  echo "$v rc $?"; head -3 $OUT/profile/$v-m16.txt
done
date -u
