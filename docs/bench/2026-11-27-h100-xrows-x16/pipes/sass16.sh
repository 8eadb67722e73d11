#!/usr/bin/env bash
# SASS of the 16-row klanes builds, and the pipes of one 16-row launch under ncu.
cd "$(dirname "$0")/.."
B=.device
T=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
for f in kopt_klanes_m16_0_g2_gemm kopt_klanes_m8_0_g1_gemm; do
  $T -sass -fun $f $B/batched.cubin > $OUT/$f.sass 2>&1; wc -l $OUT/$f.sass
done
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
$NCU --query-metrics 2>/dev/null | grep -iE "pipe_(fma|alu|fp16|xu|lsu|ipa|uniform)|inst_executed_pipe" | head -40 > $OUT/metrics.txt
M="smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fmalite_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fmaheavy.sum,sm__inst_executed_pipe_fmalite.sum,sm__inst_executed_pipe_alu.sum,sm__inst_executed_pipe_xu.sum,sm__inst_executed_pipe_lsu.sum,sm__inst_executed_pipe_fp16.sum,sm__cycles_elapsed.avg,gpc__cycles_elapsed.avg.per_second,sm__warps_active.avg.pct_of_peak_sustained_active"
for R in 16 8; do
timeout 120 $NCU --kernel-name regex:klanes_m$R --launch-skip 3 --launch-count 1 --metrics $M $B/kopt_w4a16_example --rows $R 7168x9216 > $OUT/ncu-m$R.txt 2>&1
grep -E "klanes|smsp__|sm__|gpc__" $OUT/ncu-m$R.txt | head -30
done
