#!/usr/bin/env bash
# Candidates per minute on one GPU and on all of a machine's GPUs: the same
# `kopt run` (one shape, the mutator, no transfers, a fixed seed, each into
# a fresh database) with `--gpus 0` and with `--gpus all`, repetitions
# interleaved so drifting clocks or a warm cache favour neither. Writes each
# run's output and `kopt db timeline`, and a summary table.
# Usage: scripts/scale-gpus.sh OUT_DIR [KOPT_BIN_DIR [REPS [SHAPE [BUDGET]]]]
set -euo pipefail
out=${1:?usage: scripts/scale-gpus.sh OUT_DIR [KOPT_BIN_DIR [REPS [SHAPE [BUDGET]]]]}
bin=${2:-build}
reps=${3:-2}
shape=${4:-4096x7168}
budget=${5:-48}
mkdir -p "$out"
summary="$out/scale-gpus.md"
{
  echo "| rep | gpus | seconds | candidates | per minute |"
  echo "|---|---|---|---|---|"
} >"$summary"
for rep in $(seq 1 "$reps"); do
  for gpus in 0 all; do
    name="rep$rep-gpus-$gpus"
    db="$out/$name.db"
    rm -f "$db"
    began=$(date +%s.%N)
    if ! "$bin/kopt" run --shape "$shape" --budget "$budget" --transfers 0 --seed 7 \
      --gpus "$gpus" --db "$db" >"$out/$name.txt" 2>&1; then
      echo "| $rep | $gpus | failed: $(tail -1 "$out/$name.txt") | | |" >>"$summary"
      continue
    fi
    ended=$(date +%s.%N)
    "$bin/kopt" db timeline 1 --db "$db" >"$out/$name-timeline.txt" 2>&1
    evaluated=$(sqlite3 "$db" "select count(distinct candidate_id) from evaluations" 2>/dev/null ||
      echo "$budget")
    awk -v r="$rep" -v g="$gpus" -v a="$began" -v b="$ended" -v n="$evaluated" \
      'BEGIN { s = b - a; printf "| %s | %s | %.1f | %s | %.1f |\n", r, g, s, n, 60 * n / s }' \
      >>"$summary"
  done
done
cat "$summary"
