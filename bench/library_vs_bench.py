#!/usr/bin/env python3
"""The shipped library against `kopt bench` for the same kernels.

Usage: library_vs_bench.py KOPT_BENCH.json EXAMPLE_BINARY [OUT.md]

KOPT_BENCH.json comes from `kopt bench --tuned kernels/w4a16_gemv/generated/MANIFEST.json
--json ...` (scripts/peers.sh writes one); its "tuned" column timed the
exported sources through the sandbox (NVRTC, graph replay). The example
program (kernels/w4a16_gemv/example) times the same kernels compiled ahead of time into
the static library, with the same method. Each shape runs in a fresh process,
so that nothing one shape leaves behind can touch the next (an earlier
example that left a stream and events behind per shape slowed every later
shape by ~0.4 µs per launch; see PERFORMANCE.md).
"""
import sys

from example_output import example_results
from script_inputs import read_json, run_example


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    bench = read_json(sys.argv[1], "results")
    # kopt names shapes "problem:KxN"; the example takes KxN.
    tuned = {r["shape"].split(":")[-1]: r["timing"]["median_us"] for r in bench["results"]
             if r.get("column") == "tuned" and r.get("verdict") == "ok" and "timing" in r}
    lines = ["| shape | kopt bench (tuned) µs | library µs | difference | library kernel |", "|---|---|---|---|---|"]
    worst = 0.0
    for shape, bench_us in tuned.items():
        out = run_example([sys.argv[2], shape], 120)
        ok = [r for r in example_results(out) if r["ok"]]
        if not ok:
            lines.append(f"| {shape} | {bench_us:.2f} | failed | | {out.strip()[:80]} |")
            worst = float("inf")
            continue
        lib_us = ok[0]["us"]
        diff = 100 * (lib_us / bench_us - 1)
        worst = max(worst, abs(diff))
        lines.append(f"| {shape} | {bench_us:.2f} | {lib_us:.2f} | {diff:+.1f}% | {ok[0]['kernel']} |")
    lines.append("")
    lines.append(f"Largest difference: {worst:.1f}%.")
    text = "\n".join(lines) + "\n"
    print(text)
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
