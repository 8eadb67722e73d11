#!/bin/bash
# Short-K probe of gen knobs at batch 1: each config on the short-K shapes.
K=.device/kopt
S=""
for s in 256x65536 256x4096 384x5120 512x7168 512x4096 512x32768 640x5120 896x3584 1024x1024 1024x4096 1024x8192 1280x5120 1536x6144 1536x24576 1792x3584 2048x8192; do S="$S --shape $s"; done
B="--param XREG=0 --param XBITS=16 --param XMAX=1 --param DEPTH=2 --param HINT=1"
run() { echo "== $1"; shift; $K eval seeds/w4a16_gemv/gen.hip $S $B "$@" --trials 1 2>&1 | grep -v '^\s*$' ; }
run base   --param WARPS=8 --param ROWS=2 --param OCC=4 --param MINB=3
run l16    --param WARPS=8 --param ROWS=2 --param OCC=4 --param MINB=3 --param LPR=16
run l8     --param WARPS=8 --param ROWS=2 --param OCC=4 --param MINB=3 --param LPR=8
run l16r4  --param WARPS=4 --param ROWS=4 --param OCC=2 --param MINB=2 --param LPR=16
run l8r4   --param WARPS=4 --param ROWS=4 --param OCC=2 --param MINB=2 --param LPR=8
run l16r4d --param WARPS=4 --param ROWS=4 --param OCC=2 --param MINB=2 --param LPR=16 --param DOT=1
run l8r4d  --param WARPS=4 --param ROWS=4 --param OCC=2 --param MINB=2 --param LPR=8 --param DOT=1
run l16r2w4 --param WARPS=4 --param ROWS=2 --param OCC=4 --param MINB=3 --param LPR=16
