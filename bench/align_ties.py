#!/usr/bin/env python3
"""Where two aligners disagree on simulated reads: the reads only one of them places
correctly (primary alignment on the true contig and strand, leftmost position within 50 bp
of the true one, as bench/align_eval.awk counts), split by whether that read's alignment
in the other tool's output is a tie (AS equal to XS: several equally good places, so which
one is reported is chance). Then, over the reads that are ties in both outputs, how often
each tool placed them right (a fair tie-break is right as often in either tool). Pairs are
read too: each mate counts as a read (told apart by flags 0x40 and 0x80); reads the truth
leaves unplaced are left out.

usage: align_ties.py TRUTH.sam A.sam B.sam [NAME_A NAME_B]
"""
import sys

from simulated_sam import correct, primaries, truth_places

truth_path, a_path, b_path = sys.argv[1:4]
name_a, name_b = sys.argv[4:6] if len(sys.argv) >= 6 else ("A", "B")
truth = truth_places(truth_path)
a, b = primaries(a_path), primaries(b_path)


def tie(record):
    """Whether an alignment's score equals the best found elsewhere (AS equal to XS)."""
    tags = record[4]
    return not record[0] & 4 and tags.get("AS") is not None and tags.get("AS") == tags.get("XS")


counts = {}
both_tied = [0, 0, 0]
for name, t in truth.items():
    right_a, right_b = correct(a[name], t), correct(b[name], t)
    if tie(a[name]) and tie(b[name]):
        both_tied[0] += 1
        both_tied[1] += right_a
        both_tied[2] += right_b
    if right_a == right_b:
        continue
    winner, loser = (name_a, a[name]) if right_a else (name_b, b[name])
    counts[(winner, tie(loser))] = counts.get((winner, tie(loser)), 0) + 1
for winner in (name_a, name_b):
    tied, untied = counts.get((winner, True), 0), counts.get((winner, False), 0)
    print(f"only {winner} correct: {tied + untied} reads, {tied} of them ties in the other's output")
n, right_a, right_b = both_tied
if n:
    print(
        f"ties in both outputs: {n} reads, {name_a} right for {100 * right_a / n:.1f} %, "
        f"{name_b} for {100 * right_b / n:.1f} %"
    )
