#!/usr/bin/env python3
"""Warp stall samples and executed warp instructions of ncu source pages (--page source --csv
--print-source sass), grouped by the part of the kernel they fall in, told apart by the opcodes of
each run of equally often executed instructions: IDP the dots; HADD2 with FMNMX the conversion of x
to fixed point; SHFL the butterfly; MEMBAR with EXIT the end of a block; BAR other barriers (xrows'
block sums); executed less often than the first run after the end, the last block's sum of slices."""
import collections, csv, sys

NAMES = ["dots", "convert x", "butterfly", "barrier", "end of block", "sum of slices", "other"]

def parts(path):
    rows = list(csv.reader(open(path)))
    head = next(i for i, r in enumerate(rows) if "Source" in r)
    cols, data = rows[head], rows[head + 1:]
    samples, executed, source = (cols.index(h) for h in ("Warp Stall Sampling (All Samples)",
                                                         "Instructions Executed", "Source"))
    runs = []
    for r in data:
        try:
            n, s = int(r[executed] or 0), int(r[samples] or 0)
        except (ValueError, IndexError):
            continue
        words = [w for w in r[source].split() if not w.startswith("@")]
        op = words[0].split(".")[0] if words else ""
        if not runs or runs[-1][0] != n:
            runs.append([n, collections.Counter(), 0, 0])
        runs[-1][1][op] += 1
        runs[-1][2] += s
        runs[-1][3] += n
    stalls, insts, after_end = collections.Counter(), collections.Counter(), False
    warps = runs[0][0] if runs else 0
    for count, ops, s, n in runs:
        if ops["IDP"]: part = "dots"
        elif ops["HADD2"] and ops["FMNMX"]: part = "convert x"
        elif ops["SHFL"]: part = "butterfly"
        elif ops["MEMBAR"] and ops["EXIT"]: part, after_end = "end of block", True
        elif ops["BAR"]: part = "barrier"
        elif after_end and 0 < count < warps: part = "sum of slices"
        else: part = "other"
        stalls[part] += s
        insts[part] += n
    return stalls, insts

print("| profile | samples | warp insts | " + " | ".join(NAMES) + " |")
print("|---|---|---|" + "---|" * len(NAMES))
for path in sys.argv[1:]:
    try:
        stalls, insts = parts(path)
    except Exception as e:  # a profile that did not run
        print(f"| {path} | failed: {e} |")
        continue
    ts, ti = sum(stalls.values()) or 1, sum(insts.values()) or 1
    name = path.rsplit('/', 1)[-1].replace('-sass.csv', '')
    print(f"| {name} | {ts} | {ti} | " + " | ".join(
        f"{100 * stalls[n] / ts:.1f}% / {100 * insts[n] / ti:.1f}%" for n in NAMES) + " |")
print("(each cell: share of stall samples / share of executed warp instructions)")
