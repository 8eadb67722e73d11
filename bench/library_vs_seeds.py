#!/usr/bin/env python3
"""The shipped library against the best seed, shape by shape.

Usage: library_vs_seeds.py --example EXAMPLE [--kopt KOPT] [--generic GENERIC.json]
                           [--bench BENCH.json ...] [--suite NAME ...] [--shape SHAPE ...]
                           [--rows M] [--out OUT.md]

A --shape is KxN, or MxKxN with --rows M > 1 (as the batched problem names
it); --kopt is needed with --suite.

For every shape of the named suites (`kopt suites NAME`) and every --shape,
the library example (kernels/w4a16_gemv/example) verifies y against an fp64 reference
(the 1e-2 rule) and times the library's call, each shape in a fresh process.
The best seed is the fastest of kopt's seeds at their default parameters
(naive, splitk, vec, dot, gen), each timed by kopt's own protocol: from
GENERIC.json (`kopt export --measure-generic`, which times every seed's
defaults on every suite shape) or, for shapes not measured there, from
BENCH.json (`kopt bench --seeds naive,splitk,vec,dot,gen --json`).
With --rows M > 1, the decode batch: the suites are the batched problem's
(e.g. qwen2.5-7b-m4), the example runs the library's kopt_w4a16_gemm at M
rows, and the best seed is the fastest of the batched seeds (klanes, ncols,
xrows at MR = M) in BENCH.json (`kopt bench --problem w4a16_batch --seeds
klanes ncols xrows --param MR=M --json`).
Several --bench files (the same seed at other settings) are one pool: a
shape's best is the fastest of them, named by its seed and, where more than
one file was given, the file it came from.
Exit status 1 when a shape fails the check or runs over 1.3x its best seed;
2, with one line, when an input cannot be read or the example cannot be run.
"""
import argparse
import os
import re
import sys

from example_output import example_results
from script_inputs import fail, read_json, run_example, run_program

SEEDS = {"generic_naive": "naive", "generic_splitk": "splitk", "generic_vec": "vec",
         "generic_dot": "dot", "generic_gen": "gen"}
BATCHED_SEEDS = {"klanes", "ncols", "xrows"}


def suite_shapes(kopt, name, rows):
    problem = ["--problem", "w4a16_batch"] if rows > 1 else []
    if not kopt:
        fail(f"--suite {name} needs --kopt (the suite's shapes come from `kopt suites`)")
    out = run_program([kopt, "suites", name] + problem, f"kopt suites {name}")
    rows = []
    for line in out.splitlines()[1:]:
        m = re.match(r"\s+(\S+)\s+(.*?)\s+[\d.]+ MB$", line)
        if m:
            rows.append((m.group(1), f"{name} {m.group(2)}"))
    return rows


def best_seeds(generic_path, bench_paths, seeds):
    best = {}
    if generic_path:
        for p in read_json(generic_path, "probes")["probes"]:
            for variant, us in p["us"].items():
                if variant in SEEDS and us > 0 and (p["shape"] not in best or us < best[p["shape"]][0]):
                    best[p["shape"]] = (us, SEEDS[variant])
    for path in bench_paths:
        for r in read_json(path, "results")["results"]:
            if r.get("verdict") != "ok" or "timing" not in r or r.get("column") not in seeds:
                continue
            us = r["timing"]["median_us"]
            shape = r["shape"].split(":")[-1]  # without the problem's prefix
            name = r["column"] if len(bench_paths) == 1 else f"{r['column']}, {os.path.basename(path)}"
            if shape not in best or us < best[shape][0]:
                best[shape] = (us, name)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--example", required=True)
    ap.add_argument("--kopt")
    ap.add_argument("--generic")
    ap.add_argument("--bench", action="append", default=[])
    ap.add_argument("--suite", action="append", default=[])
    ap.add_argument("--shape", action="append", default=[])
    ap.add_argument("--rows", type=int, default=1)
    ap.add_argument("--out")
    a = ap.parse_args()
    shapes = []
    for s in a.suite:
        shapes += suite_shapes(a.kopt, s, a.rows)
    shapes += [(s, "not tuned, not a probe") for s in a.shape]
    best = best_seeds(a.generic, a.bench, set(SEEDS.values()) if a.rows == 1 else BATCHED_SEEDS)
    lines = ["| shape | what | library µs | library kernel | best seed µs | library / best seed | check |",
             "|---|---|---|---|---|---|---|"]
    ratios, failures, over = [], [], []
    for shape, what in shapes:
        # A batched suite names MxKxN; the example takes KxN and the rows.
        call = [a.example, shape] if a.rows == 1 else [a.example, "--rows", str(a.rows), shape.split("x", 1)[1]]
        out = run_example(call, 300)
        results = example_results(out)
        if not results or not results[0]["ok"]:
            failures.append(shape)
            lines.append(f"| {shape} | {what} | | | | | FAILED: {out.strip()[:100]} |")
            continue
        lib_us, kernel = results[0]["us"], results[0]["kernel"]
        if shape in best:
            seed_us, seed = best[shape]
            ratio = lib_us / seed_us
            ratios.append(ratio)
            if ratio > 1.3:
                over.append(shape)
            lines.append(f"| {shape} | {what} | {lib_us:.2f} | {kernel} | {seed_us:.2f} ({seed}) | "
                         f"{ratio:.2f} | ok |")
        else:
            lines.append(f"| {shape} | {what} | {lib_us:.2f} | {kernel} | not measured | | ok |")
    lines.append("")
    if ratios:
        geo = 1.0
        for r in ratios:
            geo *= r
        geo **= 1 / len(ratios)
        lines.append(f"{len(shapes)} shapes: {len(shapes) - len(failures)} pass the 1e-2 check; "
                     f"library / best seed {geo:.3f} on average (geometric), {min(ratios):.2f} "
                     f"to {max(ratios):.2f}; {len(over)} over 1.3x{': ' + ', '.join(over) if over else ''}.")
    if failures:
        lines.append(f"FAILED: {', '.join(failures)}")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    sys.exit(1 if failures or over else 0)


if __name__ == "__main__":
    main()
