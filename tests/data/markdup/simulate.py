"""Writes SAM records of simulated PCR and optical duplicates (to standard output).

Deterministic (fixed seed). Two contigs, three read groups (libraries libA and libB,
and one without LB), pairs in every orientation with duplicate copies (a base changed,
lower qualities, soft clips that keep the unclipped 5' ends), optical names
M1:1:FC:1:TILE:X:Y near and far from each other, mates on the other contig, unmapped
mates, secondary and supplementary records, fragments at pair positions, QC failures,
copies already flagged 0x400 and unplaced unmapped pairs.
"""
import random

rng = random.Random(60)
CONTIGS = [("chrA", 30000), ("chrB", 15000)]
GROUPS = [("rg1", "libA"), ("rg2", "libB"), ("rg3", None)]
LEN = 100
records = []


def seq(n):
    return "".join(rng.choice("ACGT") for _ in range(n))


def quals(n, low=False):
    top = 25 if low else 40
    return "".join(chr(33 + rng.randint(2, top)) for _ in range(n))


serial = [0]


def name(near=None):
    serial[0] += 1
    if near is not None and rng.random() < 0.7:
        tile, x, y = near
        return "M1:1:FC:1:%d:%d:%d" % (tile, x + rng.randint(-60, 60), y + rng.randint(-60, 60)), near
    tile = rng.choice([1101, 1102, 2101])
    loc = (tile, rng.randint(1000, 30000), rng.randint(1000, 30000))
    if rng.random() < 0.1:
        return "SIM.%d" % serial[0], loc
    return "M1:1:FC:1:%d:%d:%d" % loc, loc


def cigar_for(reverse, clip):
    """CIGAR with `clip` bases soft-clipped at the 3' end, or -`clip` at the 5' end (the
    unclipped 5' end stays put either way)."""
    if clip == 0:
        return "%dM" % LEN
    if clip > 0:
        return "%dS%dM" % (clip, LEN - clip) if reverse else "%dM%dS" % (LEN - clip, clip)
    c = -clip
    return "%dM%dS" % (LEN - c, c) if reverse else "%dS%dM" % (c, LEN - c)


def aligned_start(five, reverse, clip):
    """Leftmost aligned base (1-based) of a read with 5' end `five` and `clip`."""
    if reverse:
        return five - LEN + 1 + max(clip, 0)
    return five + max(-clip, 0)


def add(qname, flag, rname, pos, cigar, rnext, pnext, rg, seqq=None, qual=None, extra=""):
    s = seqq or seq(LEN)
    q = qual or quals(LEN)
    tags = "RG:Z:%s" % rg if rg else ""
    if extra:
        tags = (tags + "\t" + extra) if tags else extra
    records.append([qname, flag, rname, pos, 60, cigar, rnext, pnext, 0, s, q] + ([tags] if tags else []))


def pair(qname, rg, a, b, low=False, clip=(0, 0), dup_flag=False, qc=False):
    """Two mapped mates: a and b are (contig, five_prime, reverse)."""
    (ca, fa, ra), (cb, fb, rb) = a, b
    base = 0x1 | (0x400 if dup_flag else 0) | (0x200 if qc else 0)
    pa = aligned_start(fa, ra, clip[0])
    pb = aligned_start(fb, rb, clip[1])
    fl_a = base | 0x40 | (0x10 if ra else 0) | (0x20 if rb else 0)
    fl_b = base | 0x80 | (0x10 if rb else 0) | (0x20 if ra else 0)
    q = quals(LEN, low)
    add(qname, fl_a, ca, pa, cigar_for(ra, clip[0]), "=" if ca == cb else cb, pb, rg, qual=q)
    add(qname, fl_b, cb, pb, cigar_for(rb, clip[1]), "=" if ca == cb else ca, pa, rg, qual=quals(LEN, low))
    return pa, pb


for molecule in range(260):
    rg, _ = rng.choice(GROUPS)
    contig, length = rng.choice(CONTIGS)
    start = rng.randint(200, length - 800)
    frag = rng.randint(180, 500)
    kind = rng.random()
    if kind < 0.75:
        a, b = (contig, start, False), (contig, start + frag, True)
    elif kind < 0.83:
        a, b = (contig, start, True), (contig, start + frag, False)
    elif kind < 0.88:
        a, b = (contig, start, False), (contig, start + frag, False)
    elif kind < 0.93:
        a, b = (contig, start, True), (contig, start + frag, True)
    else:
        other = "chrB" if contig == "chrA" else "chrA"
        a, b = (contig, start, False), (other, rng.randint(200, 14000), rng.random() < 0.5)
    copies = rng.choice([1, 1, 2, 2, 3, 4, 6])
    loc = None
    for copy in range(copies):
        qname, loc = name(loc)
        clip = (rng.choice([0, 0, 5, -12]), rng.choice([0, 0, -7, 20]))
        low = copy > 0 and rng.random() < 0.5
        pa, pb = pair(qname, rg, a, b, low=low, clip=clip, dup_flag=rng.random() < 0.1,
                      qc=rng.random() < 0.03)
        r = rng.random()
        if r < 0.05:
            add(qname, 0x1 | 0x40 | 0x100, a[0], pa + 37, "%dM" % LEN, b[0] if b[0] != a[0] else "=", pb, rg)
        elif r < 0.10:
            add(qname, 0x1 | 0x80 | 0x800, b[0], max(1, pb - 2000), "40M60H", a[0] if b[0] != a[0] else "=", pa, rg, seqq=seq(40), qual=quals(40))
    if rng.random() < 0.2:
        # A fragment (or a read whose mate is unmapped) at one of the pair's ends.
        qname, _ = name()
        contig5, five, rev = a
        pos = aligned_start(five, rev, 0)
        if rng.random() < 0.5:
            add(qname, 0x10 if rev else 0, contig5, pos, "%dM" % LEN, "*", 0, rg)
        else:
            add(qname, 0x1 | 0x40 | 0x8 | (0x10 if rev else 0), contig5, pos, "%dM" % LEN, "=", pos, rg)
            add(qname, 0x1 | 0x80 | 0x4 | (0x20 if rev else 0), contig5, pos, "*", "=", pos, rg)

# Fragments only (no pair there), some duplicated with equal or lower scores.
for molecule in range(60):
    rg, _ = rng.choice(GROUPS)
    contig, length = rng.choice(CONTIGS)
    five = rng.randint(300, length - 300)
    rev = rng.random() < 0.5
    for copy in range(rng.choice([1, 2, 3])):
        qname, _ = name()
        clip = rng.choice([0, 6, -6])
        pos = aligned_start(five, rev, clip)
        q = "I" * LEN if copy < 2 and rng.random() < 0.3 else quals(LEN, copy > 0)
        add(qname, 0x10 if rev else 0, contig, pos, cigar_for(rev, clip), "*", 0, rg, qual=q)

# Ties: equal qualities, optical names deciding the order.
for molecule in range(15):
    contig, length = rng.choice(CONTIGS)
    start = rng.randint(200, length - 800)
    q = "F" * LEN
    for copy in range(3):
        qname, _ = name()
        pa, pb = start, start + 250
        add(qname, 0x1 | 0x40 | 0x20, contig, pa, "%dM" % LEN, "=", pb - LEN + 1, "rg1", qual=q)
        add(qname, 0x1 | 0x80 | 0x10, contig, pb - LEN + 1, "%dM" % LEN, "=", pa, "rg1", qual=q)

# Edge cases: mates facing each other at one 5' position (both orders in the file),
# a read group missing from the header, pixel coordinates past 32767 (Picard keeps
# them in 16 bits), and long reads whose quality sums reach Picard's cap.
for molecule in range(6):
    contig, length = rng.choice(CONTIGS)
    five = rng.randint(500, length - 500)
    for copy in range(2):
        qname, _ = name()
        first_reverse = copy == 1
        pr = five - LEN + 1
        add(qname, 0x1 | 0x40 | (0x10 if first_reverse else 0x20), contig,
            pr if first_reverse else five, "%dM" % LEN, "=", five if first_reverse else pr, "rg2")
        add(qname, 0x1 | 0x80 | (0x20 if first_reverse else 0x10), contig,
            five if first_reverse else pr, "%dM" % LEN, "=", pr if first_reverse else five, "rg2")
for molecule in range(5):
    contig, length = rng.choice(CONTIGS)
    start = rng.randint(500, length - 900)
    for copy in range(3):
        qname = "M1:1:FC:1:1101:%d:%d" % (40000 + 30 * copy, 50 + 70 * copy * (molecule % 2))
        rg = "rgX" if molecule < 2 else "rg1"
        add(qname, 0x1 | 0x40 | 0x20, contig, start, "%dM" % LEN, "=", start + 300, rg)
        add(qname, 0x1 | 0x80 | 0x10, contig, start + 300, "%dM" % LEN, "=", start, rg)
for molecule in range(4):
    contig, length = rng.choice(CONTIGS)
    start = rng.randint(500, length - 1500)
    for copy in range(2):
        qname, _ = name()
        n = 600
        q = "".join(chr(33 + (41 if i % 7 else 30 - copy)) for i in range(n))
        add(qname, 0x1 | 0x40 | 0x20, contig, start, "%dM" % n, "=", start + 200, "rg2",
            seqq=seq(n), qual=q)
        add(qname, 0x1 | 0x80 | 0x10, contig, start + 200, "%dM" % n, "=", start, "rg2",
            seqq=seq(n), qual=q)

# Unplaced unmapped pairs.
for i in range(10):
    qname, _ = name()
    add(qname, 0x1 | 0x40 | 0x4 | 0x8, "*", 0, "*", "*", 0, "rg1")
    add(qname, 0x1 | 0x80 | 0x4 | 0x8, "*", 0, "*", "*", 0, "rg1")

print("@HD\tVN:1.6\tSO:unsorted")
for contig, length in CONTIGS:
    print("@SQ\tSN:%s\tLN:%d" % (contig, length))
for rg, lb in GROUPS:
    print("@RG\tID:%s\tSM:sim" % rg + ("\tLB:%s" % lb if lb else ""))
for r in records:
    print("\t".join(str(f) for f in r))
