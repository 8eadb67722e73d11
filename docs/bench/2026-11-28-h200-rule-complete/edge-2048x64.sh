#!/usr/bin/env bash
# The last edge probe, 2048x64, with a longer time limit; timestamps of the measurement's own lines.
cd "$(dirname "$0")/.."
cp -r kernels/w4a16_gemv/generated $OUT/gen; cp .probe/GENERIC.partial.json $OUT/gen/GENERIC.json
t0=$(date +%s)
timeout ${1:-240} .device/kopt export --fallbacks-only --measure-generic --shape 2048x64 --out $OUT/gen 2>&1 | while IFS= read -r l; do echo "$(( $(date +%s) - t0 )) s: $l"; done
cd $OUT/gen && ls | grep -v GENERIC.json | xargs rm -f
