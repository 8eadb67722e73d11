#!/usr/bin/env bash
# Copies the built programs, stripped, into .device/ (git-ignored), small
# enough to carry to a GPU machine that has the CUDA driver and NVRTC but
# not this machine's build tree. Usage: scripts/stage-binaries.sh [build-dir]
set -euo pipefail
build=${1:-build}
mkdir -p .device
for b in kopt kopt-worker kopt_tests kopt_w4a16_example kopt_w8a16_example; do
  [ -x "$build/$b" ] && strip -o ".device/$b" "$build/$b"
done

# The Python binding: the package and the shared library beside it
# (PYTHONPATH=.device/python on the GPU machine).
if [ -f "$build/python/kopt_w4a16/libkopt_w4a16.so" ]; then
  mkdir -p .device/python/kopt_w4a16
  cp kernels/w4a16_gemv/python/kopt_w4a16/__init__.py .device/python/kopt_w4a16/
  strip -o .device/python/kopt_w4a16/libkopt_w4a16.so "$build/python/kopt_w4a16/libkopt_w4a16.so"
fi
ls -la .device
