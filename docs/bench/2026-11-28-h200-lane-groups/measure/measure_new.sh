#!/bin/bash
# Measures the generic variants GENERIC.json lacks on every probe shape
# (resumes: variants already in a probe's row are not measured again).
K=$PWD/.device/kopt
cp -r kernels/w4a16_gemv/generated $OUT/generated
cd $OUT && timeout 550 $K export --fallbacks-only --measure-generic --out generated
