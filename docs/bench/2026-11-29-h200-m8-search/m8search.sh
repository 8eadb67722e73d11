#!/usr/bin/env bash
# kopt run (the mutator, offline) at 8 rows of six contest shapes where the library trails a peer, each
# started from the library's own settings there; then the library's example at 8 rows of them.
B=.device; R=$OUT/m8search; mkdir -p $R
{ echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } | tee $R/head.txt
start() {  # the library's settings at 8 rows (kopt_batched_choice)
  case $1 in
    7168x1024|7168x1536) echo "klanes:MR=8,X16=1,GROUPS=2,COLS=2,WARPS=8,OCC=2";;
    5120x3584) echo "klanes:MR=8,X16=1,GROUPS=1,COLS=2,WARPS=8,OCC=2";;
    3072x5120|5120x3072) echo "klanes:MR=8,X16=1,GROUPS=2,COLS=2,WARPS=8,OCC=2,XS=2";;
    512x7168) echo "klanes:MR=8,X16=1,GROUPS=2,COLS=2,WARPS=8,OCC=2";;
  esac
}
for s in 7168x1024 7168x1536 5120x3584 3072x5120 5120x3072 512x7168; do
  echo "== $s"
  timeout 75 $B/kopt run --problem w4a16_batch --shape 8x$s --budget 16 --db $R/m8.db --transfers 0 --seed 7 \
    --start "$(start $s)" > $R/run-$s.txt 2>&1; echo "rc $?"; tail -4 $R/run-$s.txt
done
timeout 60 $B/kopt_w4a16_example --rows 8 7168x1024 7168x1536 5120x3584 3072x5120 5120x3072 512x7168 > $R/library.txt 2>&1
cat $R/library.txt | tail -8
date -u
