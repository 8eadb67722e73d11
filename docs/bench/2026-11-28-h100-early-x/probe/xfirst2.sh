#!/usr/bin/env bash
# klanes with x requested before the weight stages: the first staging item (klanes_xfirst.hip) or the first two
# (klanes_xfirst2.hip), against HEAD's, as the library builds it at 8 and 16 rows on the 14 contest shapes.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/xfirst2; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
probe() { # label, file, M, shapes, params...
  local v=$1 f=$2 m=$3 s=$4; shift 4
  local args=(); for x in $s; do args+=(--shape $m$x); done
  timeout 250 $B/kopt eval $f --problem w4a16_batch --trials 2 --param MR=$m --param X16=1 "$@" "${args[@]}" > $T/ev.txt 2>&1
  awk -v L="$v M=$m [$*]" '/^shape /{sh=$2; v=$3} /time:/{t=$2} /sm_90:/{print L, sh, v, t, "us", $2, "regs", $4, "B spill"}' $T/ev.txt | tee -a $T/probe.txt
  grep -iE "error|fail" $T/ev.txt | head -3
}
K=seeds/w4a16_batch/klanes.hip; X1=$B/klanes_xfirst.hip; X2=$B/klanes_xfirst2.hip
G1="x7168x9216 x5120x6144 x5120x3072 x3072x5120 x1536x6144 x5120x3584 x4096x7168 x5120x768 x5120x256"
G2="x4608x7168 x7168x1536 x7168x1024 x512x7168 x384x5120"
for v in base:$K xfirst:$X1 xfirst2:$X2; do probe ${v%%:*} ${v#*:} 8 "$G1"; done
for v in base:$K xfirst:$X1 xfirst2:$X2; do probe ${v%%:*} ${v#*:} 8 "$G2" --param GROUPS=2; done
S2="x7168x9216 x5120x6144 x4096x7168 x3072x5120 x5120x3072 x4608x7168 x7168x1024 x512x7168 x384x5120"
S1="x7168x1536 x5120x3584 x1536x6144 x5120x768 x5120x256"
for v in base:$K xfirst2:$X2; do probe ${v%%:*} ${v#*:} 16 "$S2" --param GROUPS=2 --param SPREAD=1; done
for v in base:$K xfirst2:$X2; do probe ${v%%:*} ${v#*:} 16 "$S1" --param GROUPS=2 --param SPREAD=1 --param COLS=1; done
date -u
rm -f $T/ev.txt
