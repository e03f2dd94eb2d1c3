"""The primary alignments of a SAM file keyed by read (mates told apart), and whether one
is where a simulator's truth put the read: shared by the scripts that score aligners on
simulated reads (bench/align_ties.py, bench/align_misses.py, bench/mapq_calibration.py)."""


def key(name, flag):
    """The read's name, with the mate for a mate of a pair (a /1 or /2 suffix dropped)."""
    if flag & 0xC0:
        if name.endswith(("/1", "/2")):
            name = name[:-2]
        return name + ("/1" if flag & 0x40 else "/2")
    return name


def primary_fields(path):
    """The fields of each primary alignment record (no header lines, no secondary or
    supplementary records), as (read key, flag, the record's fields)."""
    for line in open(path):
        if line.startswith("@"):
            continue
        f = line.rstrip("\n").split("\t")
        flag = int(f[1])
        if not flag & 0x900:
            yield key(f[0], flag), flag, f


def primary(flag, f):
    """(flag, contig, position, MAPQ, tags) of one record's fields, tags as a dictionary
    from the two-letter tag to its value."""
    return (flag, f[2], int(f[3]), int(f[4]), {t[:2]: t[5:] for t in f[11:]})


def primaries(path):
    """Read key -> (flag, contig, position, MAPQ, tags) of each primary alignment."""
    return {name: primary(flag, f) for name, flag, f in primary_fields(path)}


def truth_places(path):
    """Read key -> (flag, contig, position) of each read the simulator placed."""
    return {n: r[:3] for n, r in primaries(path).items() if not r[0] & 4}


def correct(record, truth):
    """Whether an alignment is right: on the true contig and strand, leftmost position
    within 50 bp of the true one (as bench/align_eval.awk counts)."""
    flag, contig, pos = record[:3]
    return not flag & 4 and contig == truth[1] and (flag & 16) == (truth[0] & 16) and abs(pos - truth[2]) <= 50
