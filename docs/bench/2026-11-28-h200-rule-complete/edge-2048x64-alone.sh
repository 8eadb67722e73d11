#!/usr/bin/env bash
# Which generic variant does not finish on 2048x64: each alone, with its own time limit.
cd "$(dirname "$0")/.."
K=.device/kopt; S=2048x64
X16="--param XREG=0 --param XBITS=16 --param XMAX=1 --param WARPS=8 --param ROWS=2 --param DEPTH=2 --param OCC=4 --param MINB=3 --param HINT=1"
run() { t0=$(date +%s); timeout 40 "$@" > $OUT/last.txt 2>&1; rc=$?; echo "== $* rc $rc $(( $(date +%s) - t0 )) s"; grep -E "$S|timeout|hang|error" $OUT/last.txt | head -5; }
for s in naive vec dot splitk gen; do run $K bench --seeds $s --shape $S; done
run $K bench --seeds gen --shape $S $X16
for sp in 2 4; do run $K bench --seeds gen --shape $S $X16 --param SPLIT=$sp --param OCC=3; done
