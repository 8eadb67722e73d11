#!/usr/bin/env bash
# 4 rows of 5120x3072, where PyTorch's int4 kernel leads the library (8.64 against 9.61 us): xrows with lane
# groups of 16 and other K splits (not probed before), and ncols, against the library's build.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; echo "commit $(cat .device/COMMIT)"
e() { local seed=$1 s=$2; shift 2; local extra=""; for p in "$@"; do extra="$extra --param $p"; done
  local t=$(timeout 40 $K eval seeds/w4a16_batch/$seed.hip --problem w4a16_batch --shape $s --trials 1 $extra 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "$seed $s $* | $t"; }
S=4x5120x3072
e xrows $S MR=4 X16=1
for lpr in 16 32; do for ks in 5 10 20; do for rows in 2 4; do
  [ $lpr = 32 ] && [ $ks = 20 ] && continue
  e xrows $S MR=4 X16=1 LPR=$lpr KSPLIT=$ks ROWS=$rows; done; done; done
e xrows $S MR=4 X16=1 LPR=16 KSPLIT=10 ROWS=3 OCC=2
e xrows $S MR=4 X16=1 LPR=8 KSPLIT=20 ROWS=2
for kl in 4 8 16; do e ncols $S MR=4 KL=$kl COLS=1 WARPS=4; done
e klanes $S MR=4 X16=1 GROUPS=2 XS=1
e xrows $S MR=4 X16=1
timeout 30 .device/kopt_w4a16_example --rows 4 5120x3072 | cut -c1-60
date -u
