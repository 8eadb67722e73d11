#!/usr/bin/env bash
# The whole GPU suite on the commit with the klanes slice sums.
cd "$(dirname "$0")/.."
B=.device
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
mkdir -p $OUT/s
timeout 400 $B/kopt_tests > $OUT/s/gpu-suite.txt 2>&1; echo "suite rc $?"; grep -E "PASSED|FAILED|tests ran" $OUT/s/gpu-suite.txt | tail -6
date -u
cd $OUT && tar czf s.tgz s && rm -rf s
