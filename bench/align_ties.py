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


def key(name, flag):
    """The read's name, with the mate for a mate of a pair (a /1 or /2 suffix dropped)."""
    if flag & 0xC0:
        if name.endswith(("/1", "/2")):
            name = name[:-2]
        return name + ("/1" if flag & 0x40 else "/2")
    return name


def primaries(path):
    """Read key -> (flag, contig, position, AS, XS) of each primary alignment."""
    out = {}
    for line in open(path):
        if line.startswith("@"):
            continue
        f = line.rstrip("\n").split("\t")
        flag = int(f[1])
        if flag & 0x900:
            continue
        tags = {t[:2]: t[5:] for t in f[11:]}
        out[key(f[0], flag)] = (flag, f[2], int(f[3]), tags.get("AS"), tags.get("XS"))
    return out


def correct(record, truth):
    flag, contig, pos, _, _ = record
    return not flag & 4 and contig == truth[1] and (flag & 16) == (truth[0] & 16) and abs(pos - truth[2]) <= 50


truth_path, a_path, b_path = sys.argv[1:4]
name_a, name_b = sys.argv[4:6] if len(sys.argv) >= 6 else ("A", "B")
truth = {n: (r[0], r[1], r[2]) for n, r in primaries(truth_path).items() if not r[0] & 4}
a, b = primaries(a_path), primaries(b_path)


def tie(record):
    return not record[0] & 4 and record[3] is not None and record[3] == record[4]


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
