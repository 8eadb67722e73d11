#!/bin/bash
# One bf16 row on large weights (31 x 2^20 and more) whose batch-1 kernel is generic: the library (batch-1 kernel, conversions around it) against the xrows seed built for one row.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
L="4096x14336 8192x8192 5120x13824 3584x18944 4096x11008 8192x4096 7168x9216 4608x7168"
.device/kopt_w4a16_example --rows 1 --io bf16-bf16 $L 2>&1 | cut -c1-150
K=.device/kopt
for s in $L; do
  t=$(timeout 60 $K eval seeds/w4a16_batch/xrows.hip --problem w4a16_batch --shape 1x$s --trials 1 --param MR=1 --param X16=1 2>&1 | grep -E "time:|FAIL|fail|rror|verdict" | head -1 | sed 's/ median.*//; s/ *time: //')
  echo "xrows 1x$s | $t"
done
date -u
