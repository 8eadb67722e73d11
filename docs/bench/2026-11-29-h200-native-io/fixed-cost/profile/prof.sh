#!/usr/bin/env bash
# ncu source-level profiles of klanes at the library's 16-row settings on shapes with little arithmetic.
B=.device; T=$OUT/prof; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
p() { # label shape params...
  local l=$1 s=$2; shift 2
  timeout 150 ncu --set full --import-source yes --target-processes all -k regex:^gemm$ --launch-count 1 -o $T/$l \
    $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --shape $s --no-time --trials 1 --param X16=1 "$@" > $T/$l.log 2>&1
  echo "$l rc $?"
  ncu -i $T/$l.ncu-rep --page source --csv --print-source sass > $T/$l-sass.csv 2>&1
  ncu -i $T/$l.ncu-rep --page details --csv > $T/$l-details.csv 2>&1
}
p m16-384x5120 16x384x5120 --param MR=16 --param GROUPS=2 --param SPREAD=1
p m16-7168x256 16x7168x256 --param MR=16 --param GROUPS=2 --param SPREAD=1
p m16-512x7168 16x512x7168 --param MR=16 --param GROUPS=2 --param SPREAD=1
python3 docs/bench/2026-11-28-h100-early-x/profile/segments.py $T/*-sass.csv
for f in $T/*-details.csv; do echo "== $f"; grep -E '"(Duration|Elapsed Cycles|SM Active Cycles|Registers Per Thread|Achieved Occupancy|Issue Slots Busy|Block Limit Registers|Grid Size|Dynamic Shared Memory Per Block)"' $f | cut -d, -f13-16; done
(cd $T && tar czf $OUT/prof.tgz *.csv *.log) && rm -rf $T
