#!/usr/bin/env bash
# Which xrows builds with the first tiles' weights requested before x's conversion give wrong results.
cd "$(dirname "$0")/.."
B=.device; S=$OUT/diag.txt
E() { echo "== $*" >> $S; timeout 100 $B/kopt eval "$@" --problem w4a16_batch --no-time 2>&1 | grep -E "^shape|FAIL|rror|wrong|index" | head -4 >> $S; }
N=seeds/w4a16_batch/xrows.hip; O=.probe/xrows_old.hip
X="--param X16=1 --param MR=4"
E $N $X --param OCC=2 --param BATCH=1 --shape 4x7168x9216 --shape 4x7168x1536 --shape 4x7168x4096
E $N $X --param OCC=2 --param BATCH=2 --shape 4x7168x9216
E $N $X --param OCC=2 --param BATCH=1 --param X16=0 --shape 4x7168x9216
E $N $X --param OCC=3 --param BATCH=8 --shape 4x5120x3072 --shape 4x5120x6144
E $N --param X16=1 --param MR=2 --param OCC=4 --param BATCH=8 --shape 2x5120x3072 --shape 2x5120x6144
E $N $X --param OCC=2 --param BATCH=1 --shape 3x7168x9216 --shape 1x7168x9216
E $O $X --param OCC=2 --param BATCH=1 --shape 4x7168x9216
which compute-sanitizer >> $S 2>&1 || ls /usr/local/cuda*/bin 2>/dev/null | head >> $S
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$CS" ]; then echo "== sanitizer" >> $S; timeout 200 $CS --target-processes all --print-limit 5 $B/kopt eval $N $X --param OCC=2 --param BATCH=1 --shape 4x7168x9216 --problem w4a16_batch --no-time --trials 1 >> $S 2>&1; fi
date -u >> $S
