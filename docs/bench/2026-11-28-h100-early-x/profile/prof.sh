#!/usr/bin/env bash
# ncu source-level profiles of the klanes seed as the library builds it, on mid-size shapes.
cd "$(dirname "$0")/.."
B=.device; T=$OUT/prof; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
which ncu
p() { # label shape params...
  local l=$1 s=$2; shift 2
  timeout 200 ncu --set full --import-source yes --target-processes all -k regex:^gemm$ --launch-count 1 -o $T/$l \
    $B/kopt eval seeds/w4a16_batch/klanes.hip --problem w4a16_batch --shape $s --no-time --trials 1 --param X16=1 "$@" > $T/$l.log 2>&1
  echo "$l rc $?"
  ncu -i $T/$l.ncu-rep --page source --csv --print-source sass > $T/$l-sass.csv 2>&1
  ncu -i $T/$l.ncu-rep --page details --csv > $T/$l-details.csv 2>&1
  ls -la $T/$l*
}
p m16-5120x3072 16x5120x3072 --param MR=16 --param GROUPS=2 --param SPREAD=1
p m8-5120x3072 8x5120x3072 --param MR=8
p m16-1536x6144 16x1536x6144 --param MR=16 --param GROUPS=2 --param SPREAD=1 --param COLS=1
p m16-7168x9216 16x7168x9216 --param MR=16 --param GROUPS=2 --param SPREAD=1
(cd $T && tar czf $OUT/prof.tgz *.csv *.log) && rm -rf $T && ls -la $OUT
