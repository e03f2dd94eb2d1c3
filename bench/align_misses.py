#!/usr/bin/env python3
"""Why an aligner misplaced the simulated reads it misplaced: each misplaced mate's pair is
scored at its true place and at the place reported, by bowtie2's end-to-end scores at their
defaults (quality-aware mismatches 6..2, N 1, gaps 5+3 per base, no gap within 4 bases of
a read end), so only for an aligner that reports such AS tags (seqfarm, bowtie2).

The true place's score comes from the simulator's own alignment (its CIGAR) against the
reference. A misplaced mate then falls into one of:
  * tie: the true pair scores as the reported one (copies the scores cannot tell apart;
    which one is reported is chance);
  * scored lower: the true pair scores below the reported one (the sample's variants and
    the read errors make another place look better: no aligner with these scores would
    report the true one);
  * missed: the true pair scores above the reported one, a better pair the search did not
    find (split off: the true alignment has a gap within 4 bases of a read end, which the
    scores forbid, so the true place's best allowed score may be lower);
  * unaligned: the mate was not aligned.
A mate reported without its mate aligned is compared alone. Of the ties, it also counts
those whose reported alignment has the same mismatches at the same read positions and
the same gaps as the true one (read-oriented, so a copy on the other strand compares
too): identical copies. Pairs are read as in
bench/align_ties.py (each mate a read; mates told apart by flags 0x40 and 0x80); mates the
truth leaves unplaced are left out.

usage: align_misses.py REFERENCE.fa[.gz] TRUTH.sam ALIGNED.sam [NAME]
"""
import gzip
import re
import sys

from simulated_sam import correct, primary, primary_fields

CIGAR_OP = re.compile(r"(\d+)([MIDNSHP=X])")
GAP_BARRIER = 4


def read_fasta(path):
    """Contig name (up to the first space) -> upper-case sequence."""
    opener = gzip.open if path.endswith(".gz") else open
    contigs, name, parts = {}, None, []
    with opener(path, "rt") as fasta:
        for line in fasta:
            if line.startswith(">"):
                if name is not None:
                    contigs[name] = "".join(parts).upper()
                name, parts = line[1:].split()[0], []
            else:
                parts.append(line.strip())
    if name is not None:
        contigs[name] = "".join(parts).upper()
    return contigs


def mismatch_penalty(quality):
    """bowtie2's quality-aware mismatch penalty (--mp 6,2) at a Phred quality."""
    return 2 + int(4 * min(quality, 40) / 40)


def alignment(reference, pos, cigar, seq, qual, reverse):
    """(score, whether a gap lies within the gap barrier of a read end, edits) of one
    alignment; edits: the read offsets of its mismatches, as sequenced, and the kinds and
    lengths of its gaps, sorted."""
    score, read_at, ref_at, near_end = 0, 0, pos - 1, False
    length = len(seq)
    mismatches, gaps = [], []
    for count, op in CIGAR_OP.findall(cigar):
        count = int(count)
        if op in "M=X":
            for i in range(count):
                r, g = seq[read_at + i], reference[ref_at + i] if ref_at + i < len(reference) else "N"
                if r not in "ACGT" or g not in "ACGT":
                    score -= 1
                elif r != g:
                    score -= mismatch_penalty(ord(qual[read_at + i]) - 33)
                    at = read_at + i
                    mismatches.append(length - 1 - at if reverse else at)
            read_at += count
            ref_at += count
        elif op in "ID":
            score -= 5 + 3 * count
            gaps.append((op, count))
            # An insertion's bases must all lie outside the barrier; a deletion next to
            # it is counted as inside (its row is that of the base before or after it).
            if op == "I":
                near_end |= read_at < GAP_BARRIER or read_at + count + GAP_BARRIER > length
                read_at += count
            else:
                near_end |= read_at <= GAP_BARRIER or read_at + GAP_BARRIER >= length
                ref_at += count
        elif op == "S":
            read_at += count
    return score, near_end, (sorted(mismatches), sorted(gaps))


def edits_of(contigs, f, flag):
    """The edits (see `alignment`) of one aligned record's fields."""
    return alignment(contigs[f[2]], int(f[3]), f[5], f[9].upper(), f[10], bool(flag & 16))[2]


def true_scores(truth_path, contigs):
    """Mate key -> (flag, contig, position, score, gap near an end, edits) of each placed
    mate."""
    out = {}
    for name, flag, f in primary_fields(truth_path):
        if flag & 4:
            continue
        score, near_end, edits = alignment(
            contigs[f[2]], int(f[3]), f[5], f[9].upper(), f[10], bool(flag & 16)
        )
        out[name] = (flag, f[2], int(f[3]), score, near_end, edits)
    return out


def mate_of(name):
    """The key of the other mate of a pair's mate."""
    return name[:-1] + ("2" if name.endswith("1") else "1")


def classify(name, truth, aligned):
    """The class of one misplaced mate (see the module's text)."""
    record = aligned[name]
    if record[0] & 4 or "AS" not in record[4]:
        return "unaligned"
    reported, expected, near_end = int(record[4]["AS"]), truth[name][3], truth[name][4]
    other = mate_of(name)
    if other in aligned and other in truth and not aligned[other][0] & 4 and "AS" in aligned[other][4]:
        reported += int(aligned[other][4]["AS"])
        expected += truth[other][3]
        near_end |= truth[other][4]
    if expected == reported:
        return "tie"
    if expected < reported:
        return "scored lower"
    return "missed, gap near an end" if near_end else "missed"


def main():
    reference_path, truth_path, aligned_path = sys.argv[1:4]
    name = sys.argv[4] if len(sys.argv) > 4 else aligned_path
    contigs = read_fasta(reference_path)
    truth = true_scores(truth_path, contigs)
    fields = {name: (flag, f) for name, flag, f in primary_fields(aligned_path)}
    aligned = {name: primary(flag, f) for name, (flag, f) in fields.items()}
    classes, missed, identical = {}, [], 0
    for mate, place in truth.items():
        if correct(aligned[mate], place[:3]):
            continue
        kind = classify(mate, truth, aligned)
        classes[kind] = classes.get(kind, 0) + 1
        if kind == "missed":
            missed.append(mate)
        elif kind == "tie":
            flag, f = fields[mate]
            identical += edits_of(contigs, f, flag) == place[5]
    total = sum(classes.values())
    order = ["tie", "scored lower", "missed", "missed, gap near an end", "unaligned"]
    parts = ", ".join(f"{kind} {classes.get(kind, 0)}" for kind in order)
    print(f"{name}: {total} of {len(truth)} mates misplaced; at their true places: {parts}")
    print(f"ties with the same mismatches and gaps at the true and the reported place: {identical}")
    if missed:
        print(f"missed (first 10): {' '.join(missed[:10])}")


if __name__ == "__main__":
    main()
