#!/usr/bin/env bash
# The main job on a fresh machine: install dependencies (as root), build,
# report the machine, then run one optimisation (`kopt run`, built-in
# mutator, offline) and show the best kernel found. Without a GPU it runs
# the checks that need none (the gfx906 compile of the seeds) and then
# `kopt demo`: the same loop on the host fake (kernels simulated, times
# modelled, and labelled so), ending with the browser over it.
# Usage: scripts/run.sh [SHAPE] [BUDGET]     (default: 5120x256, 60 candidates)
# The build folder is build/ in the source tree, or KOPT_BUILD_DIR (any
# folder: an existing build there is reused, which is how CI runs this on the
# build its tests used).
set -euo pipefail
# A relative KOPT_BUILD_DIR is the caller's, not the source tree's.
build=${KOPT_BUILD_DIR:+$(realpath -m "$KOPT_BUILD_DIR")}
cd "$(dirname "$0")/.."
build=${build:-build}
shape=${1:-5120x256}
budget=${2:-60}
[ "$(id -u)" = 0 ] && scripts/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"
status=0
"$build"/kopt doctor || status=$?
if [ "$status" = 3 ]; then
  echo "no GPU here: checking the seeds for gfx906, then the loop on the host fake"
  "$build"/kopt check-amd seeds/*/*.hip
  rm -f kopt-demo.db kopt-demo.db-wal kopt-demo.db-shm
  exec "$build"/kopt demo --shape "$shape" --budget 12 --db kopt-demo.db
fi
"$build"/kopt run --shape "$shape" --budget "$budget" --db kopt.db
"$build"/kopt db best --db kopt.db --shape "$shape"
