#!/usr/bin/env bash
# Nsight Compute: klanes at 8 rows on 7168x9216, stalls by SASS instruction.
set -u
B=.device
cat $B/COMMIT > $OUT/device.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $OUT/device.txt
for m in 8; do
  timeout 200 ncu --clock-control none --target-processes all -k regex:gemm -c 1 \
    --section WarpStateStats --section SourceCounters --section InstructionStats \
    -o $OUT/k$m $B/kopt eval $B/klanes-head.hip --problem w4a16_batch --shape ${m}x7168x9216 --param MR=$m --no-time > $OUT/eval$m.txt 2>&1
  ncu -i $OUT/k$m.ncu-rep --page details > $OUT/details$m.txt 2>&1
  ncu -i $OUT/k$m.ncu-rep --page source --csv --print-source sass > $OUT/sass$m.csv 2>&1
done
cd $OUT && ls -la && tar czf sass.tgz sass*.csv details*.txt eval*.txt && rm -f sass*.csv && head -c 600 details8.txt
