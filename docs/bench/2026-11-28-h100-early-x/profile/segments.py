#!/usr/bin/env python3
"""Warp stall samples of an ncu source page (--page source --csv --print-source sass) grouped by the part of the
klanes kernel they fall in, told apart by the instructions of each run of equally often executed instructions:
dp2a (IDP) the dots, HADD2 with FMNMX the staging of x, SHFL with FSEL the tile's butterfly, MEMBAR with EXIT the
end of a block (its barrier and fence before the ticket), executed less often than the block's warps after it the
last block's sum of the slices; the rest (set-up, the loads' addressing, branches) as other."""
import collections, csv, sys

def parts(path):
    rows = list(csv.reader(open(path)))
    head, data = rows[1], rows[2:]
    samples, executed, source = (head.index(h) for h in ("Warp Stall Sampling (All Samples)",
                                                         "Instructions Executed", "Source"))
    runs = []
    for r in data:
        op = [w for w in r[source].split() if not w.startswith("@")][0].split(".")[0] if r[source].split() else ""
        if not runs or runs[-1][0] != int(r[executed]):
            runs.append([int(r[executed]), collections.Counter(), 0])
        runs[-1][1][op] += 1
        runs[-1][2] += int(r[samples])
    share, total, warps, after_end = collections.Counter(), sum(r[2] for r in runs), runs[0][0], False
    for count, ops, s in runs:
        if ops["IDP"]: part = "dots"
        elif ops["HADD2"] and ops["FMNMX"]: part = "staging x"
        elif ops["SHFL"] and ops["FSEL"]: part = "butterfly"
        elif ops["MEMBAR"] and ops["EXIT"]: part, after_end = "end of block", True
        elif after_end and 0 < count < warps: part = "sum of slices"
        else: part = "other"
        share[part] += s
    return {p: 100.0 * s / total for p, s in share.items()}, total

names = ["dots", "staging x", "butterfly", "end of block", "sum of slices", "other"]
print("| profile | samples | " + " | ".join(names) + " |")
print("|---|---|" + "---|" * len(names))
for path in sys.argv[1:]:
    share, total = parts(path)
    print(f"| {path.rsplit('/', 1)[-1].replace('-sass.csv', '')} | {total} | " +
          " | ".join(f"{share.get(n, 0.0):.1f}%" for n in names) + " |")
