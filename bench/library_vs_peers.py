#!/usr/bin/env python3
"""The shipped library against PyTorch's peers at one decode batch, shape by shape.

Usage: library_vs_peers.py EXAMPLE_OUTPUT TORCH_PEERS.json ROWS OUT.md

EXAMPLE_OUTPUT is what the library example printed for the contest shapes at
`--rows ROWS` (each line "K x N gG M rows ok|FAILED T us ..."), TORCH_PEERS.json
what bench/torch_peers.py wrote at the same rows in the same session (both
time by weight copies past 4x the L2, a graph of calls, the median replay).
Writes a Markdown table: the library's time, PyTorch's int4 kernel, cuBLAS
fp16, whether the library is faster than both, and the sums.
"""
import sys

from example_output import verdicts_by_shape
from script_inputs import read_json, read_text


def compare(example_text, peers, rows):
    """Per shape of the peers' file, in its order: shape, verdict ("ok",
    "FAIL" or "missing"), the library's µs, PyTorch int4's, cuBLAS fp16's,
    and whether the library is faster than both."""
    # The peers' group size (torch_peers.py times G = 64, the contest's; its
    # older files do not say): the example also runs some shapes at other G.
    group = peers.get("G", 64)
    lib = verdicts_by_shape(example_text, rows, group)
    compared = []
    for r in peers["results"]:
        verdict, us = lib.get(r["shape"], ("missing", float("nan")))
        int4, cublas = r.get("torch_int4_us", float("nan")), r.get("cublas_fp16_us", float("nan"))
        compared.append({"shape": r["shape"], "verdict": verdict, "us": us, "int4": int4, "cublas": cublas,
                         "win": verdict == "ok" and us < int4 and us < cublas})
    return compared


def table(compared, rows):
    lines = [f"| shape | library M={rows} µs | PyTorch int4 µs | cuBLAS fp16 µs | faster than both |",
             "|---|---|---|---|---|"]
    for c in compared:
        cell = f"**{c['us']:.2f}**" if c["win"] else f"{c['us']:.2f}"
        lines.append(f"| {c['shape']} | {cell}{'' if c['verdict'] == 'ok' else ' (' + c['verdict'] + ')'} | "
                     f"{c['int4']:.2f} | {c['cublas']:.2f} | {'yes' if c['win'] else 'no'} |")
    sums = [sum(c[k] for c in compared) for k in ("us", "int4", "cublas")]
    lines.append(f"| **sum** | {sums[0]:.2f} | {sums[1]:.2f} | {sums[2]:.2f} | "
                 f"{sum(c['win'] for c in compared)} of {len(compared)} |")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 5 or not sys.argv[3].isdigit():
        sys.exit(__doc__)
    example, peers_path, rows, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    peers = read_json(peers_path, "results")
    text = table(compare(read_text(example), peers, rows), rows)
    open(out, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
