#!/usr/bin/env bash
# The generic rule's remaining edge probes, one shape at a time with its own time limit (resumes GENERIC.json).
cd "$(dirname "$0")/.."
echo "commit $(cat .device/COMMIT)"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cp -r kernels/w4a16_gemv/generated $OUT/gen; cp .probe/GENERIC.partial.json $OUT/gen/GENERIC.json
for s in 256x4096 256x65536 49152x1024 1024x1024 8192x128 2048x64 16384x512; do
  t0=$(date +%s)
  timeout ${1:-90} .device/kopt export --fallbacks-only --measure-generic --shape $s --out $OUT/gen > $OUT/m-$s.txt 2>&1
  echo "$s rc $? $(( $(date +%s) - t0 )) s: $(grep "^$s" $OUT/m-$s.txt)"
done
cd $OUT/gen && ls | grep -v GENERIC.json | xargs rm -f
