"""seqfarm.dask.depth on a LocalCluster of worker processes: the command line's files
(the BGZF outputs, their CSI indexes, the summary and distributions), byte for byte,
written by the workers."""

import pytest

import seqfarm
import seqfarm.dask
from client_received import byte_size, record_received
from worker_kill import a_worker_killed_when_busy

OUTPUTS = (
    ".regions.bed.gz",
    ".regions.bed.gz.csi",
    ".mosdepth.summary.txt",
    ".mosdepth.global.dist.txt",
    ".mosdepth.region.dist.txt",
)
THRESHOLDS = (".thresholds.bed.gz", ".thresholds.bed.gz.csi")
PER_BASE = (".per-base.bed.gz", ".per-base.bed.gz.csi")


def files(prefix, suffixes):
    """The bytes of the files ``prefix`` + each suffix."""
    return {s: open(f"{prefix}{s}", "rb").read() for s in suffixes}


def cli_depth(cli, bam, prefix, *args):
    """The command's files for ``seqfarm depth ARGS -o PREFIX BAM``."""
    cli("depth", *args, "-o", prefix, bam)


@pytest.fixture(scope="module")
def bed(tmp_path_factory, data):
    """Regions where chm1's reads are, across the command's stretches, a named one on
    another contig and one on a contig the BAM lacks."""
    path = tmp_path_factory.mktemp("bed") / "regions.bed"
    lines = [f"1\t{s}\t{s + 5000}\tr{s}\n" for s in range(0, 300_000, 7000)]
    path.write_text("".join(lines) + "2\t100\t900\tother\nabsent\t1\t5\n")
    return path


@pytest.mark.parametrize(
    "args,options,suffixes",
    [
        (["--window", "50000"], {"window": 50000}, OUTPUTS),
        (
            ["--window", "20000", "-T", "0,1,10", "--per-base", "-Q", "20"],
            {"window": 20000, "thresholds": [0, 1, 10], "per_base": True, "Q": 20},
            OUTPUTS + THRESHOLDS + PER_BASE,
        ),
    ],
)
def test_depth_windows_are_the_cli_files(dask_client, cli, data, tmp_path, args, options, suffixes):
    bam = data / "bam" / "chm1.bam"
    cli_depth(cli, bam, tmp_path / "cli", *args)
    prefix = tmp_path / "dask"
    assert seqfarm.dask.depth(dask_client, bam, prefix, parts_per_worker=8, **options) == prefix
    assert files(prefix, suffixes) == files(tmp_path / "cli", suffixes)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"cli{s}" for s in suffixes] + [f"dask{s}" for s in suffixes]
    )


def test_depth_bed_regions_are_the_cli_files(dask_client, cli, data, tmp_path, bed):
    bam = data / "bam" / "chm1.bam"
    cli_depth(cli, bam, tmp_path / "cli", "--bed", bed, "-T", "1,5", "--per-base")
    prefix = tmp_path / "dask"
    seqfarm.dask.depth(dask_client, bam, prefix, bed=bed, thresholds=[1, 5], per_base=True, parts_per_worker=3)
    suffixes = OUTPUTS + THRESHOLDS + PER_BASE
    assert files(prefix, suffixes) == files(tmp_path / "cli", suffixes)


def _fails_once(function, marks):
    """``function`` wrapped so that its first call for each set of arguments fails, after
    writing zeros over the start of the part's own blocks (as a worker whose filesystem
    errs mid-write); later tries run it."""
    import os

    from seqfarm import _native

    def wrapped(compressed, paths, offsets):
        mark = os.path.join(marks, str(abs(hash((tuple(map(str, paths)), repr(offsets))))))
        if not os.path.exists(mark):
            open(mark, "w").close()
            sizes = _native.depth_inner_sizes(compressed)
            for path, placed, size in zip(paths, offsets, sizes):
                if path is not None:
                    _native.write_at(path, placed[1], bytes(min(size, 100)))
            raise OSError("simulated failure writing a part")
        return function(compressed, paths, offsets)

    return wrapped


def test_the_workers_write_and_a_failed_write_is_retried(cli, data, tmp_path, monkeypatch):
    import distributed

    from seqfarm.dask import _depth

    bam = data / "bam" / "chm1.bam"
    cli_depth(cli, bam, tmp_path / "cli", "--window", "20000", "--per-base")
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setattr(_depth, "_write", _fails_once(_depth._write, str(marks)))
    # What the client receives: the parts' summaries, sizes and offsets, never a row.
    received = record_received(monkeypatch)
    prefix = tmp_path / "dask"
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1, dashboard_address=":0") as client:
        seqfarm.dask.depth(client, bam, prefix, window=20000, per_base=True, parts_per_worker=4)
    suffixes = OUTPUTS + PER_BASE
    assert files(prefix, suffixes) == files(tmp_path / "cli", suffixes)
    assert len(list(marks.iterdir())) > 1

    outputs = sum(len(b) for b in files(prefix, suffixes).values())
    assert 0 < byte_size(received) < outputs / 20
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_killed_worker_has_its_parts_recomputed(cli, data, tmp_path, local_cluster):
    bam = data / "bam" / "chm1.bam"
    cli_depth(cli, bam, tmp_path / "cli", "--window", "5000", "-T", "1", "--per-base")
    prefix = tmp_path / "dask"
    with local_cluster(silence_logs=50) as client, a_worker_killed_when_busy(client):
        seqfarm.dask.depth(client, bam, prefix, window=5000, thresholds=[1], per_base=True, parts_per_worker=4)
    suffixes = OUTPUTS + THRESHOLDS + PER_BASE
    assert files(prefix, suffixes) == files(tmp_path / "cli", suffixes)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_a_second_run_replaces_the_files(dask_client, cli, data, tmp_path):
    bam = data / "bam" / "sarscov2.bam"
    prefix = tmp_path / "again"
    seqfarm.dask.depth(dask_client, bam, prefix, window=100)
    first = files(prefix, OUTPUTS)
    seqfarm.dask.depth(dask_client, bam, prefix, window=1000)
    cli_depth(cli, bam, tmp_path / "cli", "--window", "1000")
    assert files(prefix, OUTPUTS) == files(tmp_path / "cli", OUTPUTS) != first


def test_an_input_is_never_an_output_and_bad_options_are_refused(dask_client, data, tmp_path):
    bam = data / "bam" / "sarscov2.bam"
    bed = tmp_path / "x.regions.bed.gz"
    bed.write_bytes(b"MN908947.3\t0\t100\n")
    with pytest.raises(seqfarm.InputError, match="regions.bed.gz"):
        seqfarm.dask.depth(dask_client, bam, tmp_path / "x", bed=bed)
    assert bed.read_bytes() == b"MN908947.3\t0\t100\n"
    with pytest.raises(seqfarm.OptionError, match="plot"):
        seqfarm.dask.depth(dask_client, bam, tmp_path / "y", window=100, plot=tmp_path / "y.svg")
    with pytest.raises(seqfarm.OptionError, match="stats"):
        seqfarm.dask.depth(dask_client, bam, tmp_path / "y", window=100, stats=tmp_path / "y.json")
    with pytest.raises(seqfarm.OptionError):
        seqfarm.dask.depth(dask_client, bam, tmp_path / "z")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.regions.bed.gz"]
