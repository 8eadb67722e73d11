#!/usr/bin/env bash
# klanes: step-major x in shared memory (constant row stride) against 8ed1782.
set -u
B=.device
cat $B/COMMIT > $OUT/device.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $OUT/device.txt
S="7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120"
ev() { local tag=$1 f=$2 m=$3; shift 3; local args=""; for s in $S; do args="$args --shape ${m}x$s"; done
  timeout 100 $B/kopt eval $f --problem w4a16_batch --param MR=$m "$@" $args --trials 1 > $OUT/$tag.txt 2>&1; }
for m in 8 16 4; do ev m$m-before $B/klanes-new.hip $m; ev m$m-after $B/klanes-new3.hip $m; done
cd $OUT && for f in m*.txt; do echo "$f $(grep -c '^shape.*: ok' $f) ok, sum $(grep time: $f | awk '{a+=$2} END {print a}') regs $(grep -m1 -o 'sm_90: [0-9]* registers, [0-9]* B local' $f)"; done > sums.txt
tar czf times.tgz m*.txt && rm -f m*.txt
cat sums.txt device.txt
