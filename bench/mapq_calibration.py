#!/usr/bin/env python3
"""How well an aligner's mapping qualities predict its errors on simulated reads: for
each band of reported MAPQ, the primary alignments in it, how many are wrong (not on the
true contig and strand with the leftmost position within 50 bp, as bench/align_eval.awk
counts), and the quality those errors imply, -10 log10(wrong / alignments) (a lower
bound, ">= Q", when none is wrong). A calibrated aligner's observed quality sits at or
above the band. Mates of pairs count as reads (told apart by flags 0x40 and 0x80); reads
the truth leaves unplaced are left out. Given several TRUTH OUT pairs, the bands pool
the alignments of all of them.

usage: mapq_calibration.py TRUTH.sam OUT.sam [TRUTH.sam OUT.sam ...] [NAME]
"""
import math
import sys

from simulated_sam import correct, primaries, truth_places

BANDS = [(0, 0), (1, 1), (2, 4), (5, 9), (10, 14), (15, 19), (20, 29), (30, 39), (40, 255)]

args = sys.argv[1:]
paths = args[: len(args) // 2 * 2]
name = args[-1] if len(args) % 2 else " + ".join(paths[1::2])
counts = {band: [0, 0] for band in BANDS}
for truth_path, out_path in zip(paths[::2], paths[1::2]):
    truth = truth_places(truth_path)
    for read, record in primaries(out_path).items():
        t = truth.get(read)
        if t is None or record[0] & 4:
            continue
        mapq, right = record[3], correct(record, t)
        for band in BANDS:
            if band[0] <= mapq <= band[1]:
                counts[band][0] += 1
                counts[band][1] += not right
print(f"MAPQ calibration of {name}: alignments, wrong, observed quality per band")
print()
print("| MAPQ | alignments | wrong | observed |")
print("|---|---:|---:|---:|")
for (lo, hi), (n, wrong) in counts.items():
    if not n:
        continue
    band = f"{lo}" if lo == hi else f"{lo}-{hi}" if hi < 255 else f">={lo}"
    observed = f"{abs(-10 * math.log10(wrong / n)):.0f}" if wrong else f">= {10 * math.log10(n):.0f}"
    print(f"| {band} | {n} | {wrong} | {observed} |")
