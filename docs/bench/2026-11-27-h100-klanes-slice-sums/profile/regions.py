"""Splits a klanes build's Nsight Compute source counters into three regions
and prints where its warps stall in each.

Input: the CSV of `ncu --import R.ncu-rep --page source --print-source sass
--csv` (srcprof2.sh writes it). The regions, by the SASS:
  prologue  up to the last BAR.SYNC before the first IDP (x staged in shared
            memory, the first weight stages in flight);
  loop      from there to the first memory fence (ERRBAR) or BAR.SYNC after
            the last IDP (the dot products, the tiles' butterflies);
  tail      the rest (the fence, the ticket, and in the last block of a
            column range the sums of the slices of K).
Prints each region's share of the stall samples, its instructions executed
and its commonest stall reasons, then the eight instructions with the most
samples (index, share, SASS, main reason).
"""
import collections
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
header, data = rows[1], rows[2:]
col = {h: i for i, h in enumerate(header)}
reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
sass = [r[col["Source"]].strip() for r in data]
samples = [int(r[col["Warp Stall Sampling (All Samples)"]]) for r in data]

first_dot = min(i for i, s in enumerate(sass) if "IDP" in s)
last_dot = max(i for i, s in enumerate(sass) if "IDP" in s)
barriers = [i for i, s in enumerate(sass) if "BAR.SYNC" in s]
prologue_end = max([b for b in barriers if b < first_dot] or [first_dot])
tail_start = min(i for i, s in enumerate(sass) if i > last_dot and ("BAR.SYNC" in s or "ERRBAR" in s))
regions = [(0, prologue_end + 1, "prologue"), (prologue_end + 1, tail_start, "loop"),
           (tail_start, len(data), "tail")]

total = sum(samples)
print("profile of", sys.argv[1].split("/")[-1], "samples", total)
for begin, end, name in regions:
    by_reason = collections.Counter()
    for r in data[begin:end]:
        for reason in reasons:
            by_reason[reason] += int(r[col[reason]])
    region_samples = sum(samples[begin:end])
    executed = sum(int(r[col["Instructions Executed"]]) for r in data[begin:end])
    common = " ".join(f"{reason[6:]}={100 * n / max(region_samples, 1):.0f}%"
                      for reason, n in by_reason.most_common(7))
    print(f"  {name:9s} {100 * region_samples / total:5.1f}%  executed {executed:9d}  {common}")
for i in sorted(sorted(range(len(data)), key=lambda i: -samples[i])[:8]):
    counts = {reason: int(data[i][col[reason]]) for reason in reasons}
    main = max(counts, key=counts.get)
    print("   ", i, f"{100 * samples[i] / total:.1f}%", sass[i][:50], main)
