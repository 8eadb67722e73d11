#!/bin/bash
# `kopt run` whose workers are Slurm job steps, on a one-node Slurm started
# here (local_slurm.sh): the orchestrator is killed mid-run, the run is
# resumed, and every evaluation must name the Slurm step it ran in. The
# workers run kopt's host fake (--host-demo), so no GPU is needed.
# Usage: slurm_run_test.sh BUILD_DIR SOURCE_DIR WORK_DIR   (exit 77: no Slurm here)
set -uo pipefail
build=$1 source=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
conf=$("$source/tests/slurm/local_slurm.sh" start "$work/slurm")
code=$?
[ $code -eq 0 ] || { echo "$conf"; exit $code; }
export SLURM_CONF=$conf
# The workers run from a copy of kopt-worker in this test's folder, so the
# check at the end sees this test's workers only.
cp "$build/kopt-worker" "$work/kopt-worker"
export KOPT_WORKER=$work/kopt-worker
# On any failure, what the runs printed.
show_logs() { for f in "$work"/first.log "$work"/resume.log; do [ -f "$f" ] && { echo "== $f"; tail -20 "$f"; }; done; }
trap 'code=$?; [ $code -eq 0 ] || show_logs; "$source/tests/slurm/local_slurm.sh" stop "$work/slurm"; exit $code' EXIT
cat >"$work/kopt.toml" <<CONF
[workers]
command = "srun --ntasks=1 --quiet {worker} --host-demo"
count = 2
[profiler]
enabled = false
CONF
set -e
# A run killed (SIGKILL, no clean-up) while its workers are busy: once it
# has recorded two evaluations (however slow this machine is).
"$build/kopt" run --shape 1024x128 --budget 24 --db "$work/k.db" --config "$work/kopt.toml" \
  >"$work/first.log" 2>&1 &
orchestrator=$!
python3 - "$work/k.db" <<'PY'
import os, sqlite3, sys, time
for _ in range(1200):
    try:
        n, = sqlite3.connect(sys.argv[1]).execute("select count(*) from evaluations").fetchone()
        if n >= 2:
            sys.exit(0)
    except sqlite3.Error:
        pass
    time.sleep(0.05)
sys.exit("no two evaluations within 60 s")
PY
kill -KILL $orchestrator
wait $orchestrator 2>/dev/null || true
grep -q "2 workers on" "$work/first.log" || { cat "$work/first.log"; exit 1; }
python3 - "$work/k.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
status, = db.execute("select status from runs where id = 1").fetchone()
n, = db.execute("select count(*) from evaluations where run_id = 1").fetchone()
print(f"after the kill: run 1 {status}, {n} evaluations")
assert status == "running", status
assert 0 < n < 24, n
PY
# Resumed: it finishes the budget.
"$build/kopt" run --resume 1 --budget 24 --db "$work/k.db" --config "$work/kopt.toml" >"$work/resume.log" 2>&1 \
  || { cat "$work/resume.log"; exit 1; }
python3 - "$work/k.db" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
status, = db.execute("select status from runs where id = 1").fetchone()
cands, = db.execute("select count(*) from candidates where run_id = 1").fetchone()
steps = set()
for (details,) in db.execute("select record from evaluations where run_id = 1 and stage != 'reused'"):
    steps.add(json.loads(details).get("device", {}).get("slurm_step", ""))
print(f"after the resume: run 1 {status}, {cands} candidates, Slurm steps {sorted(steps)}")
assert status == "done", status
assert cands == 24, cands
assert "" not in steps, "an evaluation ran outside Slurm"
assert len(steps) >= 3, steps  # a step before the kill, both workers' steps after
PY
# The browser says where each evaluation ran.
# (Read from a file: `kopt ... | grep -q` under pipefail fails when grep
# stops reading early and kopt then writes into a closed pipe.)
"$build/kopt" db show 10 --db "$work/k.db" >"$work/show.txt"
grep -q "Slurm step" "$work/show.txt" || { echo "kopt db show names no Slurm step"; cat "$work/show.txt"; exit 1; }
# No worker outlives the run (a killed launcher alone would leave its step running).
for _ in $(seq 50); do
  pgrep -f -- "$work/kopt-worker --host-demo" >/dev/null || exit 0
  sleep 0.1
done
echo "workers still running after the run ended:"; pgrep -af -- "$work/kopt-worker --host-demo"
exit 1
