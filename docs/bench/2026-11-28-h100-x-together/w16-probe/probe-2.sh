#!/usr/bin/env bash
# The klanes seed on blocks of sixteen warps, one an SM (x staged once an SM
# instead of twice), against the library's settings, at 8 rows on the shapes not probed before and at 4 rows on those klanes serves there.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/w16; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # label, M, shapes, params...
  local v=$1 m=$2 s=$3; shift 3
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 200 $B/kopt eval $B/klanes_w16.hip --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
G1="x7168x9216 x5120x6144 x4096x7168 x5120x256 x1536x6144"
G2="x4608x7168 x7168x1536 x7168x1024 x512x7168 x384x5120"
probe lib 8 "$G1"
probe w16 8 "$G1" --param WARPS=16 --param OCC=1
probe lib 8 "$G2" --param GROUPS=2
probe w16 8 "$G2" --param GROUPS=2 --param WARPS=16 --param OCC=1
probe lib 4 "x7168x9216 x1536x6144"
probe w16 4 "x7168x9216 x1536x6144" --param WARPS=16 --param OCC=1
probe lib 4 "x512x7168 x384x5120" --param GROUPS=2
probe w16 4 "x512x7168 x384x5120" --param GROUPS=2 --param WARPS=16 --param OCC=1
date -u
rm -f $T/ev.txt
