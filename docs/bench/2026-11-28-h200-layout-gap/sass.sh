#!/usr/bin/env bash
cd "$(dirname "$0")/.."
T=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
mkdir -p $OUT/sass
for f in kopt_klanes_m16_0_g2_c2_gemm kopt_klanes_m16_1_g2_c2_gemm kopt_klanes_m8_0_g1_c2_gemm kopt_klanes_m8_1_g1_c2_gemm; do
  $T -sass -fun $f .probe/sass/batched.cubin > $OUT/sass/$f.sass 2>&1; wc -l $OUT/sass/$f.sass
done
