#!/usr/bin/env python3
"""bench/library_vs_seeds.py, the check of the library's generic rule, on a
fake example: the best seed pooled over several bench files (named by the
file it came from), the ratio and the summary, the exit status when a shape
fails the 1e-2 check or runs over 1.3x its best seed, and one line with exit
status 2, no traceback, for inputs it cannot read."""
import json
import os
import stat
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "library_vs_seeds.py")

# What the fake example prints for `--rows M KxN`: the example's result line
# (kernels/common/kopt_example_harness.h's format).
FAKE_EXAMPLE = """\
import sys
lines = {LINES!r}
rows, shape = sys.argv[2], sys.argv[3]
verdict, us = lines[shape]
k, n = shape.split("x")
print(f" {{k}} x {{n}}  g64  M {{rows}}  {{verdict}}  {{us:.2f}} us  max err 1.00e-05  generic, by the rule")
"""


def bench(results):
    return {"results": [{"shape": f"w4a16_batch:{shape}", "column": column, "verdict": "ok",
                         "timing": {"median_us": us}} for shape, column, us in results]}


def run(d, lines, benches, shapes, rows=6):
    example = os.path.join(d, "example.py")
    with open(example, "w") as f:
        f.write(f"#!{sys.executable}\n" + FAKE_EXAMPLE.format(LINES=lines))
    os.chmod(example, os.stat(example).st_mode | stat.S_IXUSR)
    args = [sys.executable, SCRIPT, "--example", example, "--rows", str(rows), "--out", os.path.join(d, "out.md")]
    for name, content in benches.items():
        path = os.path.join(d, name)
        if content is not None:
            with open(path, "w") as f:
                f.write(content if isinstance(content, str) else json.dumps(content))
        args += ["--bench", path]
    for s in shapes:
        args += ["--shape", s]
    return subprocess.run(args, capture_output=True, text=True)


def main():
    g1 = bench([("6x3584x3584", "klanes", 14.00), ("6x3584x1152", "klanes", 7.90), ("6x896x3584", "klanes", 5.10)])
    g2 = bench([("6x3584x3584", "klanes", 11.80), ("6x3584x1152", "klanes", 7.18), ("6x896x3584", "klanes", 7.26),
                ("6x896x3584", "cublas", 4.00)])  # a peer, not a batched seed: left out
    shapes = ["6x3584x3584", "6x3584x1152", "6x896x3584"]
    with tempfile.TemporaryDirectory() as d:
        # The best of both files, named by the file it came from.
        lines = {"3584x3584": ("ok", 13.90), "3584x1152": ("ok", 7.94), "896x3584": ("ok", 5.07)}
        r = run(d, lines, {"g1.json": g1, "g2.json": g2}, shapes)
        assert r.returncode == 0, r
        out = open(os.path.join(d, "out.md")).read()
        assert "| 6x3584x3584 | not tuned, not a probe | 13.90 | generic, by the rule | 11.80 (klanes, g2.json) | 1.18 | ok |" in out, out
        assert "| 6x896x3584 | not tuned, not a probe | 5.07 | generic, by the rule | 5.10 (klanes, g1.json) | 0.99 | ok |" in out, out
        assert "3 shapes: 3 pass the 1e-2 check; library / best seed 1.090 on average (geometric), 0.99 to 1.18; 0 over 1.3x." in out, out

        # One file: the seed alone names the best.
        r = run(d, lines, {"g1.json": g1}, shapes)
        assert r.returncode == 0 and "| 14.00 (klanes) | 0.99 |" in r.stdout, r

        # Over 1.3x its best seed, and a shape that fails the check: exit status 1, both named.
        lines = {"3584x3584": ("ok", 15.40), "3584x1152": ("FAIL", 7.94), "896x3584": ("ok", 5.07)}
        r = run(d, lines, {"g1.json": g1, "g2.json": g2}, shapes)
        assert r.returncode == 1, r
        assert "1 over 1.3x: 6x3584x3584." in r.stdout and "FAILED: 6x3584x1152" in r.stdout, r.stdout

        # Inputs it cannot read: one line, exit status 2, no traceback.
        for benches, says in (({"missing.json": None}, "missing.json: No such file or directory"),
                              ({"cut.json": '{"results": [{"shape"'}, 'cut.json: not a JSON file with a "results" list'),
                              ({"other.json": {"probes": []}}, 'other.json: not a JSON file with a "results" list')):
            r = run(d, lines, benches, shapes)
            assert r.returncode == 2 and says in r.stderr and "Traceback" not in r.stderr, r
            assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        r = subprocess.run([sys.executable, SCRIPT, "--example", os.path.join(d, "no-example"), "--rows", "6",
                            "--shape", "6x896x3584"], capture_output=True, text=True)
        assert r.returncode == 2 and "no-example: No such file or directory" in r.stderr, r
        assert "Traceback" not in r.stderr, r.stderr
        r = subprocess.run([sys.executable, SCRIPT, "--example", "x", "--suite", "contest"], capture_output=True,
                           text=True)
        assert r.returncode == 2 and "--suite contest needs --kopt" in r.stderr, r
        # A `kopt suites` that fails: its error in the one line.
        kopt = os.path.join(d, "kopt")
        with open(kopt, "w") as f:
            f.write("#!/bin/sh\necho 'unknown suite nope' >&2\nexit 2\n")
        os.chmod(kopt, os.stat(kopt).st_mode | stat.S_IXUSR)
        r = subprocess.run([sys.executable, SCRIPT, "--example", "x", "--kopt", kopt, "--suite", "nope"],
                           capture_output=True, text=True)
        assert r.returncode == 2 and "kopt suites nope exited 2: unknown suite nope" in r.stderr, r
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    print("ok")


if __name__ == "__main__":
    main()
