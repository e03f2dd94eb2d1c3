"""seqfarm.BamFile against samtools view (the records of each region) and against the Rust
window_mapq example (mean MAPQ per window on the same region map)."""

import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import seqfarm

REPO = Path(__file__).resolve().parents[2]

needs_samtools = pytest.mark.skipif(shutil.which("samtools") is None, reason="no samtools")


def samtools_view(path, region):
    """(tid name, pos 0-based, end, flag, mapq, sequence length) of each record samtools
    selects for ``region``, the end computed from the CIGAR as htslib's bam_endpos."""
    out = subprocess.run(
        ["samtools", "view", str(path), region], capture_output=True, text=True, check=True
    ).stdout
    rows = []
    for line in out.splitlines():
        f = line.split("\t")
        flag, pos, cigar = int(f[1]), int(f[3]) - 1, f[5]
        span = sum(int(n) for n, op in re.findall(r"(\d+)([MDN=X])", cigar))
        end = pos + (span if span and not flag & 4 else 1)
        length = 0 if f[9] == "*" else len(f[9])
        rows.append((f[2], pos, end, flag, int(f[4]), length))
    return rows


def as_rows(bam, batch):
    return [
        (bam.references[t], int(p), int(e), int(f), int(q), int(n))
        for t, p, e, f, q, n in zip(
            batch["tid"], batch["pos"], batch["end"], batch["flag"], batch["mapq"], batch["length"]
        )
    ]


REGIONS = {
    "sarscov2.bam": ["NC_045512.2", "NC_045512.2:10000-10100", "NC_045512.2:1-1", "NC_045512.2:29000"],
    "na12878_chrM.bam": ["chrM:1-500", "chrM:16,000-16,571", "chrM:8000-8000", "chr1"],
    "long_cigar.bam": ["c1", "c1:20000-20001", "c1:69000-70000"],
}


@needs_samtools
@pytest.mark.parametrize("name", sorted(REGIONS))
def test_fetch_is_samtools_view(data, name):
    path = data / "bam" / name
    bam = seqfarm.BamFile(path)
    for region in REGIONS[name]:
        batch = bam.fetch(region)
        assert {k: v.dtype.str for k, v in batch.items()} == {
            "tid": "<i4", "pos": "<i8", "end": "<i8", "flag": "<u2", "mapq": "|u1", "length": "<i4",
        }
        assert as_rows(bam, batch) == samtools_view(path, region), region


def test_region_forms_agree(data):
    bam = seqfarm.BamFile(data / "bam" / "sarscov2.bam")
    assert bam.region("NC_045512.2:1,001-2,000") == (0, 1000, 2000)
    assert bam.region(("NC_045512.2", 1000, 2000)) == (0, 1000, 2000)
    assert bam.region((0, 1000, 10**9)) == (0, 1000, 29903)
    assert bam.region("NC_045512.2") == (0, 0, 29903)
    a = bam.fetch("NC_045512.2:10001-12000")
    b = bam.fetch(("NC_045512.2", 10000, 12000))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    for bad in ["chrZ:1-10", "NC_045512.2:0-10", "NC_045512.2:20-10", "NC_045512.2:a-b", ("x",)]:
        with pytest.raises(seqfarm.OptionError):
            bam.region(bad)


@needs_samtools
@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("in_workers", [False, True])
def test_map_regions_counts_are_samtools_counts(data, threads, in_workers):
    path = data / "bam" / "sarscov2.bam"
    bam = seqfarm.BamFile(path)
    windows = bam.windows(2500)
    # Overlapping and unsorted regions come back in the order given.
    regions = windows + ["NC_045512.2:20000-25000", ("NC_045512.2", 0, 29903)]
    got = bam.map_regions(lambda b: (len(b["pos"]), b["pos"].tolist()), regions, threads=threads,
                          in_workers=in_workers)
    assert len(got) == len(regions)
    for region, (n, pos) in zip(regions, got):
        contig, start, end = bam.region(region)
        want = samtools_view(path, f"{bam.references[contig]}:{start + 1}-{end}")
        assert n == len(want) and pos == [r[1] for r in want], region


def test_map_regions_windows_over_the_header(data):
    bam = seqfarm.BamFile(data / "bam" / "chm1.bam")
    counts = bam.map_regions(lambda b: len(b["pos"]), window=50_000_000, threads=2)
    assert len(counts) == len(bam.windows(50_000_000))
    assert sum(counts) >= 42455  # every read is placed; one spanning a window edge counts twice
    assert bam.map_regions(len, [], threads=2) == []


def rust_example():
    """The window_mapq example binary, built with cargo when missing."""
    path = REPO / "target" / "release" / "examples" / "window_mapq"
    if not path.is_file():
        if shutil.which("cargo") is None:
            pytest.skip("no cargo to build the window_mapq example")
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "-p", "seqfarm-io", "--example", "window_mapq"],
            cwd=REPO, check=True,
        )
    return path


@pytest.mark.parametrize("name, window", [("sarscov2.bam", 1000), ("long_cigar.bam", 5000)])
def test_mean_mapq_is_the_rust_example(data, name, window):
    path = data / "bam" / name
    out = subprocess.run(
        [str(rust_example()), "-w", str(window), "-t", "2", str(path)],
        capture_output=True, text=True, check=True,
    ).stdout
    want = [(f[0], int(f[1]), int(f[2]), int(f[3]), float(f[4]))
            for f in (line.split("\t") for line in out.splitlines())]
    bam = seqfarm.BamFile(path)

    def mean_mapq(batch):
        return len(batch["mapq"]), batch["mapq"].mean() if len(batch["mapq"]) else math.nan

    got = bam.map_regions(mean_mapq, window=window, threads=2)
    assert [w[:3] for w in want] == bam.windows(window)
    for (contig, start, end, n, mean), (m, value) in zip(want, got):
        assert n == m
        assert (math.isnan(mean) and math.isnan(value)) or abs(mean - value) <= 5e-7


def test_errors(data, tmp_path):
    with pytest.raises(seqfarm.InputError, match="missing.bam"):
        seqfarm.BamFile(tmp_path / "missing.bam")
    unindexed = tmp_path / "unindexed.bam"
    shutil.copy(data / "bam" / "sarscov2.bam", unindexed)
    with pytest.raises(seqfarm.FormatError, match="no index found"):
        seqfarm.BamFile(unindexed)
    bam = seqfarm.BamFile(data / "bam" / "sarscov2.bam")

    def fails(batch):
        raise KeyError("from the callback")

    for in_workers in [False, True]:
        with pytest.raises(KeyError, match="from the callback"):
            bam.map_regions(fails, window=1000, threads=2, in_workers=in_workers)
    with pytest.raises(seqfarm.OptionError):
        bam.map_regions(len)
    with pytest.raises(seqfarm.OptionError):
        bam.windows(0)
