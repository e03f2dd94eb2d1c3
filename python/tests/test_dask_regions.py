"""seqfarm.dask.flagstat and seqfarm.dask.count on a LocalCluster of worker processes:
the command line's results, byte for byte."""

import json

import pytest

import seqfarm.dask


@pytest.mark.parametrize("name", ["chm1.bam", "sarscov2.bam", "na12878_chrM.bam", "long_cigar.bam"])
def test_flagstat_is_the_cli_report(dask_client, cli, data, name):
    path = data / "bam" / name
    expected = json.loads(cli("flagstat", "-O", "json", path).stdout)
    assert seqfarm.dask.flagstat(dask_client, path, parts_per_worker=8) == expected
    text = cli("flagstat", path).stdout.decode()
    assert seqfarm.dask.flagstat(dask_client, path, format="default") == text


def test_flagstat_without_index_counts_the_whole_file(dask_client, cli, data, tmp_path):
    path = tmp_path / "unindexed.bam"
    path.write_bytes((data / "bam" / "chm1.bam").read_bytes())
    expected = cli("flagstat", "-O", "tsv", path).stdout.decode()
    assert seqfarm.dask.flagstat(dask_client, path, format="tsv") == expected


@pytest.mark.parametrize(
    "options",
    [
        {"window": 1000},
        {"window": 5000, "min_map_quality": 20, "duplicates": True},
    ],
)
def test_count_windows_are_the_cli_rows(dask_client, cli, data, tmp_path, options, monkeypatch):
    import distributed

    bams = [data / "snp-pileup" / "normal_slice.bam", data / "snp-pileup" / "tumor_slice.bam"]
    argv = ["count", "--window", options["window"]]
    if "min_map_quality" in options:
        argv += ["-q", options["min_map_quality"], "-D"]
    expected = cli(*argv, *bams).stdout
    out = tmp_path / "counts.tsv"
    extra = {k: v for k, v in options.items() if k != "window"}
    # The rows go from the workers into the file: the client receives none of them.
    received = []
    result, gather = distributed.Future.result, distributed.Client.gather
    monkeypatch.setattr(distributed.Future, "result", lambda f, *a, **k: received.append(result(f, *a, **k)) or received[-1])

    def recording_gather(client, *args, **kwargs):
        values = gather(client, *args, **kwargs)
        received.extend(values)
        return values

    monkeypatch.setattr(distributed.Client, "gather", recording_gather)
    seqfarm.dask.count(
        dask_client, bams, window=options["window"], out=out, parts_per_worker=8, **extra
    )
    monkeypatch.undo()
    assert out.read_bytes() == expected
    assert received and not any(isinstance(r, bytes) for r in received)
    frame = seqfarm.dask.count(dask_client, bams, window=options["window"], **extra)
    assert frame.equals(seqfarm.count(bams, window=options["window"], **extra))
    assert len(frame) == expected.count(b"\n")


def test_count_bed_regions_are_the_cli_rows(dask_client, cli, data, tmp_path):
    bam = data / "bam" / "chm1.bam"
    header = cli("count", "--window", 100000, bam).stdout.decode().splitlines()
    bed = tmp_path / "regions.bed"
    lines = []
    for row in header:
        contig, start, end = row.split("\t")[:3]
        for s in range(int(start), int(end), 7919):
            lines.append(f"{contig}\t{s}\t{min(s + 500, int(end))}\tr{s}\n")
    lines.append("absent\t10\t20\tnone\n")
    bed.write_text("".join(lines))
    expected = cli("count", "--bed", bed, bam).stdout
    out = tmp_path / "bed.tsv"
    seqfarm.dask.count(dask_client, [bam], bed=bed, out=out, parts_per_worker=8)
    assert out.read_bytes() == expected


def test_a_second_count_replaces_the_output(dask_client, cli, data, tmp_path):
    bams = [data / "snp-pileup" / "normal_slice.bam", data / "snp-pileup" / "tumor_slice.bam"]
    expected = cli("count", "--window", 2000, *bams).stdout
    out = tmp_path / "again.tsv"
    assert seqfarm.dask.count(dask_client, bams, window=5000, out=out) == out
    first = out.read_bytes()
    seqfarm.dask.count(dask_client, bams, window=2000, out=out, parts_per_worker=4)
    assert out.read_bytes() == expected != first
    seqfarm.dask.count(dask_client, bams, window=2000, out=out, force=True)
    assert out.read_bytes() == expected
    assert [p.name for p in tmp_path.iterdir()] == ["again.tsv"]


def test_count_never_writes_over_an_input(dask_client, data, tmp_path):
    bed = tmp_path / "regions.bed"
    bed.write_text("20\t1000000\t1100000\n")
    bam = data / "snp-pileup" / "normal_slice.bam"
    for force in (False, True):
        with pytest.raises(seqfarm.InputError, match="this output is the input"):
            seqfarm.dask.count(dask_client, [bam], bed=bed, out=bed, force=force)
    assert bed.read_text() == "20\t1000000\t1100000\n"
    assert [p.name for p in tmp_path.iterdir()] == ["regions.bed"]
