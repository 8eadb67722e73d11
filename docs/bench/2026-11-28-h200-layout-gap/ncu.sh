#!/usr/bin/env bash
# Pipes and memory of the klanes seed at 16 rows of 17920x5120 in each layout (kopt eval under ncu).
cd "$(dirname "$0")/.."
B=.device; T=$OUT/ncu; mkdir -p $T
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.sum,sm__inst_executed_pipe_fmalite.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_lsu.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio"
for L in 0 1; do
  timeout 150 $NCU --target-processes all --kernel-name regex:gemm --launch-skip 4 --launch-count 1 --metrics $M \
    $B/kopt eval .probe/klanes_head.hip --problem w4a16_batch --trials 1 --param MR=16 --param X16=1 --param GROUPS=2 \
    --param SPREAD=1 --param LAYOUT=$L --shape 16x17920x5120 > $T/ncu-L$L.txt 2>&1
  echo "L$L rc $?"; grep -E "gemm|__" $T/ncu-L$L.txt | head -20
done
