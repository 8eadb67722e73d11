#!/usr/bin/env bash
# The W4A16 example at many rows on the final commit (every bucket, the launch plan with its OCC parameter).
cd "$(dirname "$0")/.."
B=.device
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
$B/kopt_w4a16_example --rows 1,2,3,4,5,8,9,13,16,17 7168x9216 7168x1536 5120x256 4608x7168 1536x6144 384x5120 512x7168 2016x777/g32 4096x100/g128 9472x3584 > $OUT/library-example.txt 2>&1
echo "w4a16 example rc $?: $(tail -1 $OUT/library-example.txt)"; date -u
