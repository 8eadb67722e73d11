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

from example_output import example_results
from script_inputs import read_json, read_text


def main():
    if len(sys.argv) != 5 or not sys.argv[3].isdigit():
        sys.exit(__doc__)
    example, peers_path, rows, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    peers = read_json(peers_path, "results")
    # The peers' group size (torch_peers.py times G = 64, the contest's; its
    # older files do not say): the example also runs some shapes at other G.
    group = peers.get("G", 64)
    lib = {r["shape"]: ("ok" if r["ok"] else "FAIL", r["us"])
           for r in example_results(read_text(example)) if r["rows"] == rows and r["G"] == group}
    lines = [f"| shape | library M={rows} µs | PyTorch int4 µs | cuBLAS fp16 µs | faster than both |",
             "|---|---|---|---|---|"]
    sums = [0.0, 0.0, 0.0]
    wins = 0
    for r in peers["results"]:
        shape = r["shape"]
        verdict, us = lib.get(shape, ("missing", float("nan")))
        int4, cublas = r.get("torch_int4_us", float("nan")), r.get("cublas_fp16_us", float("nan"))
        win = verdict == "ok" and us < int4 and us < cublas
        wins += win
        for i, v in enumerate((us, int4, cublas)):
            sums[i] += v
        cell = f"**{us:.2f}**" if win else f"{us:.2f}"
        lines.append(f"| {shape} | {cell}{'' if verdict == 'ok' else ' (' + verdict + ')'} | "
                     f"{int4:.2f} | {cublas:.2f} | {'yes' if win else 'no'} |")
    lines.append(f"| **sum** | {sums[0]:.2f} | {sums[1]:.2f} | {sums[2]:.2f} | "
                 f"{wins} of {len(peers['results'])} |")
    text = "\n".join(lines) + "\n"
    open(out, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
