#!/usr/bin/env python3
"""Where the shipped library stands at each decode batch, beside PyTorch's peers, in one run.

Usage: library_standing.py --example EXAMPLE --out DIR [--rows 1,2,4,8,16]
                           [--peers PEERS_SCRIPT] [--timeout SECONDS]
                           [--sms SMS --sm-mhz MHZ]

For each M of --rows, in that order: the library example at `--rows M`
(kernels/w4a16_gemv/example: every shape checked against an fp64 reference
by the 1e-2 rule, the library's call timed as `kopt bench` times), its
output in DIR/mM.txt; past one row, the peers at the same M
(bench/torch_peers.py, or PEERS_SCRIPT taking the same arguments: OUT.json
M) in DIR/torch-mM.json, and the two merged as library_vs_peers.py merges
them in DIR/mM-vs-peers.md. Then DIR/standing.md: per contest shape the
library at each M with the peers beside it (bold where it is faster than
both), M=8 / M=1 where both ran, the sums and the counts; it is printed too.
With --sms and --sm-mhz (the GPU's SM count and highest SM clock, e.g.
`nvidia-smi --query-gpu=clocks.max.sm`), a second table follows: per shape
and M past one, the share of the arithmetic peak that beating the faster
peer needs, and the share the library reaches.

Exit status 1 when a (shape, M) fails the 1e-2 check or has no result; 2,
with one line, when the example or a peer script cannot be run.
"""
import argparse
import math
import os
import sys

from example_output import verdicts_by_shape
from library_vs_peers import compare, table
from script_inputs import fail, read_json, run_example, run_program

HERE = os.path.dirname(os.path.abspath(__file__))


def run_peers(script, out, rows, timeout):
    """The peers at `rows` rows, as the JSON the script wrote to `out`."""
    run_program([sys.executable, script, out, str(rows)], f"{script} at M={rows}", timeout)
    return read_json(out, "results")


MISSING = {"verdict": "missing", "us": float("nan"), "int4": float("nan"), "cublas": float("nan"), "win": False}


def standing_table(shapes, rows_list, compared, batch1):
    """The (shape x M) table: `compared` maps each M past one to
    library_vs_peers.compare's rows by shape, `batch1` each shape's M = 1
    (verdict, µs)."""
    ratio = 1 in rows_list and 8 in compared
    head = ["shape"]
    for m in rows_list:
        head += [f"M={m}"] if m == 1 else [f"M={m}", "PyTorch", "cuBLAS"]
    if ratio:
        head.append("M=8 / M=1")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    sums = {}
    for shape in shapes:
        cells = [shape]
        for m in rows_list:
            if m == 1:
                verdict, us = batch1.get(shape, ("missing", float("nan")))
                cells.append(f"{us:.2f}" + ("" if verdict == "ok" else f" ({verdict})"))
                sums[(1, "us")] = sums.get((1, "us"), 0.0) + us
                continue
            c = compared[m].get(shape, MISSING)
            mark = f"**{c['us']:.2f}**" if c["win"] else f"{c['us']:.2f}"
            cells += [mark + ("" if c["verdict"] == "ok" else f" ({c['verdict']})"), f"{c['int4']:.2f}",
                      f"{c['cublas']:.2f}"]
            for k in ("us", "int4", "cublas"):
                sums[(m, k)] = sums.get((m, k), 0.0) + c[k]
        if ratio:
            cells.append(f"{compared[8].get(shape, MISSING)['us'] / batch1.get(shape, ('', float('nan')))[1]:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    total, wins = ["**sum**"], ["faster than both"]
    for m in rows_list:
        if m == 1:
            total.append(f"{sums.get((1, 'us'), 0.0):.2f}")
            wins.append("")
            continue
        total += [f"{sums[(m, k)]:.2f}" for k in ("us", "int4", "cublas")]
        wins += [f"{sum(c['win'] for c in compared[m].values())} of {len(shapes)}", "", ""]
    if ratio:
        total.append(f"{sums[(8, 'us')] / sums[(1, 'us')]:.2f}")
        wins.append("")
    lines += ["| " + " | ".join(total) + " |", "| " + " | ".join(wins) + " |"]
    return "\n".join(lines) + "\n"


# Without matrix instructions (the problem's rule) every kopt kernel
# multiplies at most this many products a clock an SM: dp2a and HFMA2 (two
# products a lane) issue 64 lanes a clock an SM, FFMA 128 (PERFORMANCE.md,
# the arithmetic floor of issue 34's targets).
PRODUCTS_PER_CLOCK_SM = 128


def arithmetic_table(shapes, compared, sms, mhz):
    """Per shape (KxN) and M past one: M x K x N products at the peak of
    `sms` SMs at `mhz` take the floor; the share of the peak beating the
    faster peer needs is the floor over that peer's time, the share the
    library reaches the floor over its own."""
    peak = sms * PRODUCTS_PER_CLOCK_SM * mhz * 1e6  # products a second
    rows = sorted(compared)
    head = ["shape"] + [f"M={m}: {what}" for m in rows for what in ("needed", "library")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]

    def share(floor_us, us):
        return "nan" if math.isnan(us) or us <= 0 else f"{100 * floor_us / us:.0f}%"

    for shape in shapes:
        k, n = (int(v) for v in shape.split("x"))
        cells = [shape]
        for m in rows:
            c = compared[m].get(shape, MISSING)
            floor_us = m * k * n / peak * 1e6
            faster_peer = float("nan") if math.isnan(c["int4"]) or math.isnan(c["cublas"]) else min(
                c["int4"], c["cublas"])
            cells += [share(floor_us, faster_peer), share(floor_us, c["us"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--example", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--rows", default="1,2,4,8,16")
    ap.add_argument("--peers", default=os.path.join(HERE, "torch_peers.py"))
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--sms", type=int, help="the GPU's SM count, for the share of the arithmetic peak")
    ap.add_argument("--sm-mhz", type=float, help="its highest SM clock in MHz")
    a = ap.parse_args()
    if (a.sms is None) != (a.sm_mhz is None) or (a.sms is not None and (a.sms < 1 or a.sm_mhz <= 0)):
        fail("--sms and --sm-mhz go together, each above zero")
    try:
        rows_list = [int(m) for m in a.rows.split(",")]
    except ValueError:
        fail(f"--rows {a.rows}: not a list of row counts such as 1,2,4,8,16")
    if not rows_list or any(m < 1 or m > 16 for m in rows_list) or len(set(rows_list)) != len(rows_list):
        fail(f"--rows {a.rows}: each M once, from 1 to 16")
    os.makedirs(a.out, exist_ok=True)

    compared, batch1, shapes, checked, bad = {}, {}, [], 0, []
    for m in rows_list:
        text = run_example([a.example, "--rows", str(m)], a.timeout)
        open(os.path.join(a.out, f"m{m}.txt"), "w").write(text)
        if m == 1:
            batch1 = verdicts_by_shape(text, 1, 64)
            continue
        peers = run_peers(a.peers, os.path.join(a.out, f"torch-m{m}.json"), m, a.timeout)
        rows = compare(text, peers, m)
        open(os.path.join(a.out, f"m{m}-vs-peers.md"), "w").write(table(rows, m))
        compared[m] = {c["shape"]: c for c in rows}
        # The shapes the peers were timed on (the contest's), in their order.
        shapes += [c["shape"] for c in rows if c["shape"] not in shapes]
    if not compared:
        shapes = list(batch1)
    for m in rows_list:
        verdicts = [batch1.get(s, ("missing",))[0] if m == 1 else compared[m].get(s, MISSING)["verdict"]
                    for s in shapes]
        checked += len(verdicts)
        bad += [f"{s} at M={m} ({v})" for s, v in zip(shapes, verdicts) if v != "ok"]

    text = standing_table(shapes, rows_list, compared, batch1)
    if a.sms is not None and compared:
        text += (f"\nShare of the arithmetic peak ({PRODUCTS_PER_CLOCK_SM} products a clock an SM, "
                 f"{a.sms} SMs at {a.sm_mhz:g} MHz) that beating the faster peer needs, and that the "
                 "library reaches:\n\n" + arithmetic_table(shapes, compared, a.sms, a.sm_mhz))
    summary = f"{len(bad)} of {checked} (shape, M) failed the 1e-2 check or had no result"
    if bad:
        summary += ": " + ", ".join(bad)
    text += "\n" + summary + "\n"
    open(os.path.join(a.out, "standing.md"), "w").write(text)
    print(text, end="")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
