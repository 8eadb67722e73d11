#!/usr/bin/env bash
# Copies the built programs, stripped, into .device/ (git-ignored), small
# enough to carry to a GPU machine that has the CUDA driver and NVRTC but
# not this machine's build tree. Usage: scripts/stage-binaries.sh [build-dir]
set -euo pipefail
build=${1:-build}
mkdir -p .device
for b in kopt kopt-worker kopt_tests kopt_w4a16_example; do
  [ -x "$build/$b" ] && strip -o ".device/$b" "$build/$b"
done
ls -la .device
