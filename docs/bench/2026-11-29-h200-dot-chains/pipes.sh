#!/bin/bash
# Per-pipe instruction counts of klanes at the library's 16-row settings (7168x9216), under Nsight Compute.
K=.device/kopt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; ncu --version | tail -1
for v in base c2; do
  f=seeds/w4a16_batch/klanes.hip; [ $v = c2 ] && f=.probe/klanes_c2.hip
  echo "== $v"
  timeout 240 ncu --target-processes all -k regex:^gemm$ --launch-count 1 \
    --metrics 'regex:sm__inst_executed_pipe_.*\.sum$,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active$,sm__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second' \
    $K eval $f --problem w4a16_batch --shape 16x7168x9216 --no-time --trials 1 --param MR=16 --param X16=1 --param GROUPS=2 --param SPREAD=1 2>&1 | grep -v '^==PROF==' | grep -E 'sm__|smsp__|gpu__|shape' 
done
