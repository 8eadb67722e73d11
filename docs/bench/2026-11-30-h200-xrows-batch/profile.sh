#!/usr/bin/env bash
# Where the time and the instructions go: ncu source-level profiles of the library's
# xrows build at 4 rows and klanes builds at 8 rows, each seed also timed by kopt eval.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/prof; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
S=$OUT/summary.txt
X="seeds/w4a16_batch/xrows.hip --problem w4a16_batch --param X16=1 --param LPR=32"
KL="seeds/w4a16_batch/klanes.hip --problem w4a16_batch --param X16=1 --param MR=8 --param COLS=2 --param WARPS=8 --param OCC=2 --param LAYOUT=0"
p() { # label shape seed-args...
  local l=$1 s=$2; shift 2
  echo "== $l $s $*" >> $S
  $B/kopt eval "$@" --shape $s 2>&1 | tail -4 >> $S
  timeout 150 ncu --section SourceCounters --section WarpStateStats --section SpeedOfLight --section Occupancy --section LaunchStats \
    --import-source yes --target-processes all -k regex:^gemm$ --launch-count 1 -o $T/$l \
    $B/kopt eval "$@" --shape $s --no-time --trials 1 > $T/$l.log 2>&1
  echo "$l ncu rc $?" >> $S
  ncu -i $T/$l.ncu-rep --page source --csv --print-source sass > $T/$l-sass.csv 2>&1
  ncu -i $T/$l.ncu-rep --page details --csv > $T/$l-details.csv 2>&1
}
p x4-5120x3072 4x5120x3072 $X --param MR=4 --param ROWS=4 --param OCC=0
p x4-5120x3584 4x5120x3584 $X --param MR=4 --param ROWS=4 --param OCC=0
p k8-5120x3072 8x5120x3072 $KL --param GROUPS=2 --param XS=2
p k8-7168x1024 8x7168x1024 $KL --param GROUPS=2 --param XS=0
p k8-5120x256 8x5120x256 $KL --param GROUPS=1 --param XS=0

# The conversion's largest |x| as a tree (the variant) against the seed's chain, alternating, two rounds.
ab() { # label shape seed variant args...
  local l=$1 s=$2 a=$3 b=$4; shift 4
  for round in 1 2; do
    for f in $a $b; do
      t=$($B/kopt eval $f --problem w4a16_batch "$@" --shape $s 2>&1 | grep -oE '[0-9]+\.[0-9]+ us' | head -1)
      echo "ab $l round $round $(basename $f) $t" >> $S
    done
  done
}
XP="--param X16=1 --param LPR=32 --param MR=4 --param ROWS=4 --param OCC=0"
KP="--param X16=1 --param MR=8 --param COLS=2 --param WARPS=8 --param OCC=2 --param LAYOUT=0"
for sh in 5120x3072 5120x3584 5120x6144 7168x1536; do ab x4-$sh 4x$sh seeds/w4a16_batch/xrows.hip .probe/xrows_tree.hip $XP; done
ab k8-5120x3072 8x5120x3072 seeds/w4a16_batch/klanes.hip .probe/klanes_tree.hip $KP --param GROUPS=2 --param XS=2
ab k8-7168x9216 8x7168x9216 seeds/w4a16_batch/klanes.hip .probe/klanes_tree.hip $KP --param GROUPS=2 --param XS=2
ab k8-7168x1024 8x7168x1024 seeds/w4a16_batch/klanes.hip .probe/klanes_tree.hip $KP --param GROUPS=2 --param XS=0
ab k8-5120x256 8x5120x256 seeds/w4a16_batch/klanes.hip .probe/klanes_tree.hip $KP --param GROUPS=1 --param XS=0
python3 .probe/segments.py $T/*-sass.csv >> $S 2>&1
for f in $T/*-details.csv; do echo "== $f" >> $S; grep -E '"(Duration|Registers Per Thread|Achieved Occupancy|Theoretical Occupancy|Issue Slots Busy|Executed Ipc Active|Block Limit Registers|Waves Per SM|Grid Size|Block Size|Compute \(SM\) Throughput|Memory Throughput|No Eligible|Active Warps Per Scheduler|Eligible Warps Per Scheduler)"' $f | awk -F'","' '{print $(NF-2)" = "$NF}' >> $S; done
(cd $T && tar czf $OUT/prof.tgz *.csv *.log) && rm -rf $T; ls -la $OUT
