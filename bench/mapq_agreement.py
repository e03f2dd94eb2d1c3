#!/usr/bin/env python3
"""How often seqfarm's MAPQ equals bowtie2's, on the mates (or reads) both place alike.

    bench/mapq_agreement.py BOWTIE2.sam SEQFARM.sam [LABEL]

Two primary records are placed alike when they give the same contig, leftmost position
and strand. For those, prints one markdown table row: the mates placed alike, the share
with the same MAPQ, the share a `samtools view -q 30` filter treats alike (both kept or
both dropped), then the records whose MAPQ differs, counted by the first cause that
explains them:

* type: the pair is concordant, discordant or unpaired (YT) in one tool and not the other;
* score: the record's own alignment score (AS) differs: aligned otherwise at that place;
* partner: the partner's score (YS) differs: the other mate was aligned elsewhere or
  otherwise;
* second: one tool found a second best for the mate (XS) and the other did not, or
  both did with other scores;
* pairs: the same scores and XS: the pairs' second best (the next concordant pair, which
  SAM does not show) differs.

With --list CAUSE, prints the names of the records of that cause instead.
"""
import sys
from collections import Counter

CAUSES = ["type", "score", "partner", "second", "pairs"]


def primaries(path):
    """(name, mate) -> (contig, pos, reverse, mapq, tags) of each aligned primary record."""
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith("@"):
                continue
            fields = line.rstrip("\n").split("\t")
            flag = int(fields[1])
            if flag & 0x904:
                continue
            mate = 1 if flag & 0x40 else 2 if flag & 0x80 else 0
            tags = {t[:2]: t[5:] for t in fields[11:]}
            out[(fields[0], mate)] = (fields[2], int(fields[3]), bool(flag & 0x10), int(fields[4]), tags)
    return out


def cause(a, b):
    ta, tb = a[4], b[4]
    for tag, name in (("YT", "type"), ("AS", "score"), ("YS", "partner"), ("XS", "second")):
        if ta.get(tag) != tb.get(tag):
            return name
    return "pairs"


def main():
    args = sys.argv[1:]
    listing = None
    if args and args[0] == "--list":
        listing, args = args[1], args[2:]
    bowtie2, seqfarm = primaries(args[0]), primaries(args[1])
    label = args[2] if len(args) > 2 else args[1]
    alike = same = same_q30 = 0
    causes = Counter()
    for key, a in bowtie2.items():
        b = seqfarm.get(key)
        if b is None or a[:3] != b[:3]:
            continue
        alike += 1
        same += a[3] == b[3]
        same_q30 += (a[3] >= 30) == (b[3] >= 30)
        if a[3] != b[3]:
            c = cause(a, b)
            causes[c] += 1
            if listing == c:
                print(key[0], key[1], a[3], b[3])
    if listing or not alike:
        return
    print(f"| {label} | {alike:,} | {100 * same / alike:.2f} % | {100 * same_q30 / alike:.2f} % | "
          + " | ".join(f"{causes[c]:,}" for c in CAUSES) + " |")


if __name__ == "__main__":
    main()
