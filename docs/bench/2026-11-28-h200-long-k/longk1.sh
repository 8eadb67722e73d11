#!/usr/bin/env bash
# Batch 1 on long-K shapes: the shipped library's pick (its example), the split-K seed's and gen's two-slice
# defaults (the library's generic variants there), and gen in the contest entries' structure (x in registers,
# K split over 7 warps of a block and over SPLIT slices of the grid) at 2, 4 and 8 slices, and with x in shared
# memory (16-bit) at 2 and 4 slices.
cd "$(dirname "$0")/.."
B=.device; R=$OUT/longk1; mkdir -p $R
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S="14336x4096 18944x3584 28672x8192 13824x5120"
timeout 60 $B/kopt_w4a16_example --rows 1 $S > $R/library.txt 2>&1; echo "library rc $?"; grep -E "us" $R/library.txt | cut -c1-100
sel=(); for x in $S; do sel+=(--shape $x); done
X="--param XREG=1 --param KSPLIT=7 --param WARPS=7 --param ROWS=3 --param OCC=4 --param DEPTH=1 --param XBITS=16 --param XMAX=1 --param HINT=1 --param LPR=32"
Y="--param XREG=0 --param WARPS=8 --param ROWS=2 --param DEPTH=3 --param OCC=4 --param MINB=3 --param XBITS=16 --param XMAX=1 --param HINT=1"
run() { local name=$1; shift; timeout 120 $B/kopt bench "${sel[@]}" "$@" > $R/$name.txt 2>&1; echo "$name rc $?"; grep -E ": (ok|FAIL|fail|skip|unsupported)|score" $R/$name.txt; date -u; }
run base-splitk --seeds splitk --read-only
run base-gen-split2 --seeds gen --param SPLIT=2
run xreg-s2 --seeds gen $X --param SPLIT=2
run xreg-s4 --seeds gen $X --param SPLIT=4
run xreg-s8 --seeds gen $X --param SPLIT=8
run smem-s2 --seeds gen $Y --param SPLIT=2
run smem-s4 --seeds gen $Y --param SPLIT=4
tar czf $OUT/longk1.tgz -C $OUT longk1 && rm -rf $R
