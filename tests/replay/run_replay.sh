#!/usr/bin/env bash
# The replay set through the real client and loop: a loopback server answers
# kopt's prompts with tests/replay's answers (one per request), `kopt run`
# with no mutator evaluates what they hold, then a summary of every answer's
# fate, checked (check_replay.py: exit 1 when an answer lost its kernel).
# On a GPU; or on the host fake with KOPT_WORKER="kopt-worker --host-demo"
# (contracts, rules and compilation real, kernels simulated).
# Usage: tests/replay/run_replay.sh KOPT_BIN_DIR OUT_DIR [SHAPE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(cd "$1" && pwd)
out=$2
shape=${3:-5120x3072}
mkdir -p "$out"
rm -rf "$out/answers" "$out/replay.db"* "$out/prompts.jsonl"
python3 "$here/make_answers.py" "$here/../.." "$out/answers"
port=$((20000 + RANDOM % 20000))
python3 "$here/replay_server.py" "$out/answers" "$port" "$out/prompts.jsonl" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
sleep 1
cat > "$out/replay.toml" <<TOML
[run]
batch = 1
[[models]]
name = "replay"
base_url = "http://127.0.0.1:$port/v1"
model = "replay"
api_key_env = "KOPT_REPLAY_NO_KEY"
TOML
answers=$(ls "$out/answers" | wc -l)
# Seeds (5) + one candidate at most per answer; no transfers (nor the
# shipped library's starts): the answers build on the seeds.
"$bin/kopt" run --shape "$shape" --budget $((5 + answers)) --config "$out/replay.toml" \
  --db "$out/replay.db" --model replay --no-mutator --seed 1 --transfers 0 > "$out/run.txt" 2>&1 ||
  true
tr '\r' '\n' < "$out/run.txt" | grep -v '^\[' | tail -5
python3 - "$out/replay.db" "$answers" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = int(sys.argv[2])
print("model candidates (answers that held a kernel):")
for cid, name, verdict, us, stage, msg in db.execute(
        "SELECT c.id, c.name, e.verdict, e.median_us, e.stage, e.message FROM candidates c "
        "JOIN evaluations e ON e.candidate_id = c.id WHERE c.proposer != 'seed' ORDER BY e.id"):
    print(f"  {cid:3d} {name:22s} {verdict:16s} {('%.2f us' % us) if us else '':9s} {stage:12s} {msg[:110]}")
print("answers with no candidate (attempts):")
for kind, msg in db.execute("SELECT kind, message FROM attempts ORDER BY id"):
    print(f"  {kind:18s} {msg[:140]}")
best = db.execute(
    "SELECT c.id, c.name, c.proposer FROM evaluations e JOIN candidates c ON c.id = e.candidate_id "
    "WHERE e.verdict='ok' GROUP BY c.id HAVING COUNT(*) >= 1 ORDER BY MAX(e.median_us) LIMIT 1").fetchone()
print("best (by slowest measurement):", best)
PY
echo "prompts sent: $(wc -l < "$out/prompts.jsonl")"
python3 "$here/check_replay.py" "$out/replay.db"
{ grep -c "Profiler (hardware counters): latency\|Profiler (hardware counters): memory\|Profiler (hardware counters): compute" "$out/prompts.jsonl" || true; } | sed 's/^/prompts with a profiler line: /'
