#!/usr/bin/env bash
# A long optimisation run on the GPU with the orchestrator's and the worker's
# resident memory and open files sampled every 20 s.
# Usage: scripts/long-run.sh KOPT SHAPE BUDGET DB OUT_TSV
set -uo pipefail
kopt=$1 shape=$2 budget=$3 db=$4 out=$5
"$kopt" run --shape "$shape" --budget "$budget" --db "$db" --seed 7 2>/dev/null &
pid=$!
printf 'seconds\tkopt_rss_kb\tkopt_fds\tworker_pid\tworker_rss_kb\tworker_fds\n' > "$out"
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
  worker=$(pgrep -P "$pid" kopt-worker | head -n 1)
  krss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status 2>/dev/null)
  kfds=$(ls /proc/$pid/fd 2>/dev/null | wc -l)
  wrss=$( [ -n "$worker" ] && awk '/VmRSS/ {print $2}' /proc/$worker/status 2>/dev/null)
  wfds=$( [ -n "$worker" ] && ls /proc/$worker/fd 2>/dev/null | wc -l)
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' $(( $(date +%s) - start )) "$krss" "$kfds" "${worker:--}" "${wrss:--}" "${wfds:--}" >> "$out"
  sleep 20
done
wait "$pid"
echo "exit $?"
