"""Reads and mean MAPQ per window of a BAM, computed in Python three ways, timed.

    map_regions.py seqfarm BAM WINDOW THREADS OUT.npy
    map_regions.py seqfarm-in-workers BAM WINDOW THREADS OUT.npy   (func on the readers)
    map_regions.py pysam BAM WINDOW OUT.npy
    map_regions.py rust EXAMPLE_OUTPUT.tsv OUT.npy   (window_mapq's rows to the same array)
    map_regions.py same A.npy B.npy                  (exit 1 unless the results agree)

The first three print the wall and CPU seconds the computation took (the interpreter's
start and the imports are not counted) and save one row per window: reads, mean MAPQ (NaN without reads).
"""

import math
import resource
import sys
import time

import numpy as np


def clocks():
    """Wall seconds and CPU seconds of the process (every thread, user and system)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter(), usage.ru_utime + usage.ru_stime


def elapsed(began):
    now = clocks()
    return now[0] - began[0], now[1] - began[1]


def mean_mapq(batch):
    mapq = batch["mapq"]
    return len(mapq), (mapq.mean() if len(mapq) else math.nan)


def with_seqfarm(path, window, threads, in_workers):
    import seqfarm

    bam = seqfarm.BamFile(path)
    began = clocks()
    rows = bam.map_regions(mean_mapq, window=window, threads=threads, in_workers=in_workers)
    return elapsed(began), rows


def with_pysam(path, window):
    import pysam

    began = clocks()
    rows = []
    with pysam.AlignmentFile(path) as bam:
        for contig, length in zip(bam.references, bam.lengths):
            for start in range(0, length, window):
                reads = total = 0
                for read in bam.fetch(contig, start, min(start + window, length)):
                    reads += 1
                    total += read.mapping_quality
                rows.append((reads, total / reads if reads else math.nan))
    return elapsed(began), rows


def main(argv):
    mode = argv[0]
    if mode in ("seqfarm", "seqfarm-in-workers"):
        path, window, threads, out = argv[1], int(argv[2]), int(argv[3]), argv[4]
        seconds, rows = with_seqfarm(path, window, threads, mode == "seqfarm-in-workers")
    elif mode == "pysam":
        path, window, out = argv[1], int(argv[2]), argv[3]
        seconds, rows = with_pysam(path, window)
    elif mode == "rust":
        rows = [(int(f[3]), float(f[4])) for f in (line.split("\t") for line in open(argv[1]))]
        np.save(argv[2], np.array(rows, dtype=float).reshape(-1, 2))
        return 0
    elif mode == "same":
        a, b = np.load(argv[1]), np.load(argv[2])
        # The example prints means to 6 decimals.
        same = a.shape == b.shape and np.array_equal(a[:, 0], b[:, 0]) and np.allclose(
            a[:, 1], b[:, 1], rtol=0, atol=5e-7, equal_nan=True
        )
        print(f"{argv[1]} vs {argv[2]}: {'identical' if same else 'DIFFERENT'} ({len(a)} windows)")
        return 0 if same else 1
    else:
        raise SystemExit(__doc__)
    np.save(out, np.array(rows, dtype=float).reshape(-1, 2))
    print(f"{seconds[0]:.3f} {seconds[1]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
