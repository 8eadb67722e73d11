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

# The Python bindings: each package and the shared library beside it
# (PYTHONPATH=.device/python on the GPU machine).
for name in kopt_w4a16 kopt_w8a16; do
  if [ -f "$build/python/$name/lib$name.so" ]; then
    mkdir -p ".device/python/$name"
    cp "$build/python/$name/__init__.py" "$build/python/$name/_core.py" ".device/python/$name/"
    strip -o ".device/python/$name/lib$name.so" "$build/python/$name/lib$name.so"
  fi
done
ls -la .device
