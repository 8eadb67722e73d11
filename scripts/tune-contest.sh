#!/usr/bin/env bash
# Tunes every contest shape with `kopt run` (built-in mutator, offline), then
# exports the best verified kernel of each into a folder for the library.
# Usage: scripts/tune-contest.sh KOPT DB BUDGET OUT_DIR
set -euo pipefail
kopt=$1 db=$2 budget=$3 out=$4
for shape in 7168x9216 7168x1536 7168x1024 5120x6144 5120x3584 5120x3072 5120x768 5120x256 \
             4608x7168 4096x7168 3072x5120 1536x6144 512x7168 384x5120; do
  "$kopt" run --shape "$shape" --budget "$budget" --db "$db" --seed 1 2>/dev/null | tail -n 1
done
"$kopt" export --db "$db" --suite contest --out "$out"
