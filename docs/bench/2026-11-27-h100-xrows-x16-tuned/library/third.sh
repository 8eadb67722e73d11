#!/usr/bin/env bash
cd "$(dirname "$0")/.."
.device/kopt_w4a16_example --rows 1,2,3,4,5,8,16 5120x3072 5120x768 4608x7168 5120x3584 7168x9216 > $OUT/example-tuned.txt 2>&1
echo "example rc $?: $(tail -1 $OUT/example-tuned.txt)"
ROWS="2 4 8 16" .device/all.sh
