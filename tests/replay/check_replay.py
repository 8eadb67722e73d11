#!/usr/bin/env python3
"""Checks what the replay set became in a run (run_replay.sh's database):
every answer that holds a kernel became a candidate (the host fake verifies
whatever passes the contract, the source rules and compilation, so each is
`ok` there unless it breaks one of those), and every answer without one was
kept as an attempt with its reason.
Usage: check_replay.py REPLAY_DB"""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
verdicts = {}
for name, verdict in db.execute(
        "SELECT c.name, e.verdict FROM candidates c JOIN evaluations e ON e.candidate_id = c.id "
        "WHERE c.proposer != 'seed' ORDER BY e.id"):
    verdicts.setdefault(name, verdict)
problems = []
# (answer, the candidate it must become, the verdict it must get)
expected = [
    ("01 full kernel", "gen-deep-ring", "ok"), ("02 prose around", "gen-wide", "ok"),
    ("03 <think> first", "gen-r1", "ok"), ("04 contract in a json block", "gen-json", "ok"),
    ("05 cpp fence", "gen-llama", "ok"), ("06 no contract", "llm-full+parent-contract", "ok"),
    ("10 compile error", "gen-typo", "compile_error"),
    ("12 tensor cores", "gen-mma", "static_rejected"), ("16 terse", "gen-terse", "ok"),
    ("19 tool call as text", "gen-tool", "ok"),
    ("20 two blocks, the second the fix", "gen-fixed", "ok"),
    ("21 whole program", "gen-program", "ok"), ("22 tool_calls", "gen-toolcall", "ok")]
for answer, name, verdict in expected:
    if name not in verdicts:
        problems.append(f"answer {answer}: no candidate {name}")
    elif verdicts[name] != verdict:
        problems.append(f"answer {answer}: {name} is {verdicts[name]}, expected {verdict}")
# Edits of the parent are known by their answers, not their names: a
# candidate takes its contract's name where it differs from its parent's,
# which depends on the parent the run picked.
def ok_candidates_answering(needle):
    return db.execute(
        "SELECT COUNT(DISTINCT c.id) FROM candidates c JOIN evaluations e ON e.candidate_id = c.id "
        "WHERE c.proposer != 'seed' AND instr(c.answer, ?) > 0 AND e.verdict = 'ok'",
        (needle,)).fetchone()[0]
edits = ok_candidates_answering("<<<<<<< SEARCH")
if edits < 3:
    problems.append(f"{edits} SEARCH/REPLACE candidates verified, expected 3 (exact, drifted, elided)")
if ok_candidates_answering("```diff") < 1:
    problems.append("answer 17 unified diff: no verified candidate")
reasons = [m for (m,) in db.execute("SELECT message FROM attempts WHERE kind LIKE '%malformed_answer'")]
for needed in ("SEARCH text not found", "no code block", "truncated answer"):
    if not any(needed in m for m in reasons):
        problems.append(f"no attempt kept with the reason '{needed}'")
for p in problems:
    print("replay check:", p)
print(f"replay check: {len(verdicts)} model candidates, {len(reasons)} unreadable answers kept")
sys.exit(1 if problems else 0)
