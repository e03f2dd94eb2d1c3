#!/usr/bin/env python3
"""Where two aligners disagree on simulated reads: the reads only one of them places
correctly (primary alignment on the true contig and strand, leftmost position within 50 bp
of the true one, as bench/align_eval.awk counts), split by whether that read's alignment
in the other tool's output is a tie (AS equal to XS: several equally good places, so which
one is reported is chance).

usage: align_ties.py TRUTH.sam A.sam B.sam [NAME_A NAME_B]
"""
import sys


def primaries(path):
    """Read name -> (flag, contig, position, AS, XS) of each primary alignment."""
    out = {}
    for line in open(path):
        if line.startswith("@"):
            continue
        f = line.rstrip("\n").split("\t")
        flag = int(f[1])
        if flag & 0x900:
            continue
        tags = {t[:2]: t[5:] for t in f[11:]}
        out[f[0]] = (flag, f[2], int(f[3]), tags.get("AS"), tags.get("XS"))
    return out


def correct(record, truth):
    flag, contig, pos, _, _ = record
    return not flag & 4 and contig == truth[1] and (flag & 16) == (truth[0] & 16) and abs(pos - truth[2]) <= 50


truth_path, a_path, b_path = sys.argv[1:4]
name_a, name_b = sys.argv[4:6] if len(sys.argv) >= 6 else ("A", "B")
truth = {n: (r[0], r[1], r[2]) for n, r in primaries(truth_path).items()}
a, b = primaries(a_path), primaries(b_path)
counts = {}
for name, t in truth.items():
    right_a, right_b = correct(a[name], t), correct(b[name], t)
    if right_a == right_b:
        continue
    winner, loser = (name_a, a[name]) if right_a else (name_b, b[name])
    tie = loser[3] is not None and loser[3] == loser[4]
    counts[(winner, tie)] = counts.get((winner, tie), 0) + 1
for winner in (name_a, name_b):
    tied, untied = counts.get((winner, True), 0), counts.get((winner, False), 0)
    print(f"only {winner} correct: {tied + untied} reads, {tied} of them ties in the other's output")
