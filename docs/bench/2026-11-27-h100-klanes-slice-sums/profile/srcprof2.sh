#!/usr/bin/env bash
# Where the batched klanes builds' warps stall, instruction by instruction (Nsight Compute's source counters).
cd "$(dirname "$0")/.."
B=.device; T=$OUT/src2; mkdir -p $T
echo "commit $(cat $B/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
prof() { # rows shape kernel-regex name
timeout 200 $NCU --kernel-name regex:$3 --launch-skip 2 --launch-count 1 --section SourceCounters --section WarpStateStats --section LaunchStats --import-source no -o $T/$4 $B/kopt_w4a16_example --rows $1 $2 > $T/$4.log 2>&1
tail -2 $T/$4.log
$NCU --import $T/$4.ncu-rep --page source --print-source sass --csv > $T/$4-source.csv 2> $T/$4-source.err; head -1 $T/$4-source.csv
$NCU --import $T/$4.ncu-rep --page details > $T/$4-details.txt 2>&1
rm -f $T/$4.ncu-rep
}
prof 16 7168x9216 'klanes_m16.*gemm' m16-7168x9216
prof 16 1536x6144 'klanes_m16.*gemm' m16-1536x6144
prof 8 5120x3072 'klanes_m8.*gemm' m8-5120x3072
date -u
cd $OUT && tar czf src2.tgz src2 && rm -rf src2
