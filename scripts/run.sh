#!/usr/bin/env bash
# The main job on a fresh machine: install dependencies, build, report the
# machine, then benchmark every seed kernel on the 14 contest shapes. Without
# a GPU it stops after the checks that need none (the gfx906 compile of the
# seeds), saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] && scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
status=0
build/kopt doctor || status=$?
if [ "$status" = 3 ]; then
  echo "no GPU here: checking the seeds for gfx906 only"
  exec build/kopt check-amd seeds/*.hip
fi
exec build/kopt bench --suite contest "$@"
