#!/usr/bin/env python3
"""Times the stages of one evaluation: sends one request to a kopt-worker and
prints each stage event with the seconds since the request was sent.

Usage: scripts/stage-times.py WORKER SOURCE KxN [repeat]
"""
import json
import subprocess
import sys
import time

worker, source, shape = sys.argv[1], sys.argv[2], sys.argv[3]
repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 1
K, N = (int(v) for v in shape.split("x"))
with open(source) as f:
    text = f.read()
proc = subprocess.Popen([worker], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
for i in range(repeat):
    request = {"id": i + 1, "op": "eval", "source": text, "params": {}, "shape": {"K": K, "N": N, "G": 64},
               "seed": 7 + i, "trials": 2, "time": True, "time_batches": 2, "repetitions": 8}
    start = time.monotonic()
    proc.stdin.write(json.dumps(request) + "\n")
    proc.stdin.flush()
    while True:
        event = json.loads(proc.stdout.readline())
        at = time.monotonic() - start
        if event.get("event") == "stage":
            print(f"{at:8.3f}  {event['stage']}")
        else:
            result = event.get("result", {})
            print(f"{at:8.3f}  {result.get('verdict')}: {result.get('message')}")
            break
proc.stdin.close()
proc.wait()
