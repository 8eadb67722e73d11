#!/usr/bin/env bash
# bench/library_standing.py on the staged commit: the library at M = 1 to 16 beside PyTorch's peers, one run.
B=.device; R=$OUT/standing; mkdir -p $R
export PYTHONUNBUFFERED=1
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee $R/head.txt
timeout 330 python3 bench/library_standing.py --example $B/kopt_w4a16_example --out $R/run > $R/standing.txt 2>&1; echo "standing rc $?"; tail -6 $R/standing.txt
date -u | tee -a $R/head.txt
