"""The library examples' result lines, read in one place.

kernels/common/kopt_example_harness.h prints one line per shape and number
of rows: "K x N gG M m ok|FAIL T us max err E kernel", where kernel says
which kernel the library ran.
"""
import re

LINE = re.compile(r"^\s*(\d+) x (\d+)\s+g(\d+)\s+M\s+(\d+)\s+(ok|FAIL)\s+([\d.]+) us\s+max err \S+\s*(.*)$")


def example_results(text):
    """Each result line of an example's output, in order, as a dict: shape
    ("KxN"), G, rows, ok (within 1e-2), us (the median call) and kernel."""
    results = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            results.append({"shape": f"{m[1]}x{m[2]}", "G": int(m[3]), "rows": int(m[4]),
                            "ok": m[5] == "ok", "us": float(m[6]), "kernel": m[7].strip()})
    return results


def verdicts_by_shape(text, rows, group):
    """Each shape's (verdict, µs) at `rows` rows and group size `group`:
    verdict "ok" within 1e-2, "FAIL" otherwise."""
    return {r["shape"]: ("ok" if r["ok"] else "FAIL", r["us"])
            for r in example_results(text) if r["rows"] == rows and r["G"] == group}
