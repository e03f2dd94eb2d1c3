"""The Dask region jobs on CRAM inputs: the command line's outputs, byte for byte. The
client plans a CRAM's parts from its containers' sizes, decoding none of it."""

import json

import pytest

import seqfarm.dask

#: The committed CRAMs, with their references embedded (the same reads as the
#: snp-pileup test BAMs).
CRAMS = ["normal_slice.cram", "tumor_slice.cram"]


@pytest.fixture
def crams(data):
    return [data / "cram" / name for name in CRAMS]


@pytest.mark.parametrize("mixed", [False, True])
def test_count_on_crams_is_the_cli_rows(dask_client, cli, data, tmp_path, crams, mixed):
    inputs = [crams[0], data / "snp-pileup" / "tumor_slice.bam"] if mixed else crams
    expected = cli("count", "--window", "2000", "-q", "10", *inputs).stdout
    out = tmp_path / "counts.tsv"
    seqfarm.dask.count(dask_client, inputs, window=2000, out=out, parts_per_worker=8, min_map_quality=10)
    assert out.read_bytes() == expected


@pytest.mark.parametrize("bed", [False, True])
def test_count_parts_of_a_cram_of_many_containers(dask_client, cli, data, tmp_path, bed):
    # Each part decodes the containers of its own regions alone.
    cram = data / "cram" / "normal_slice_containers.cram"
    where = ["--window", "1500"]
    if bed:
        regions = tmp_path / "regions.bed"
        regions.write_text("".join(f"20\t{s}\t{s + 700}\n" for s in range(1_000_000, 1_060_000, 1100)))
        where = ["--bed", regions]
    expected = cli("count", *where, cram).stdout
    out = tmp_path / "counts.tsv"
    placed = {"bed": where[1]} if bed else {"window": 1500}
    seqfarm.dask.count(dask_client, [cram], out=out, parts_per_worker=8, task_bytes=20000, **placed)
    assert out.read_bytes() == expected


@pytest.mark.parametrize("name", ["normal_slice.cram", "normal_slice_containers.cram"])
def test_depth_on_a_cram_is_the_cli_files(dask_client, cli, data, tmp_path, name):
    cram = data / "cram" / name
    suffixes = (".regions.bed.gz", ".regions.bed.gz.csi", ".mosdepth.summary.txt", ".mosdepth.global.dist.txt",
                ".per-base.bed.gz", ".thresholds.bed.gz")
    cli("depth", "--window", "3000", "-T", "1,5", "--per-base", "-o", tmp_path / "cli", cram)
    seqfarm.dask.depth(dask_client, cram, tmp_path / "dask", window=3000, thresholds=[1, 5], per_base=True,
                       parts_per_worker=8, task_bytes=30000)
    for suffix in suffixes:
        assert (tmp_path / f"dask{suffix}").read_bytes() == (tmp_path / f"cli{suffix}").read_bytes(), suffix


def test_snp_pileup_on_crams_is_the_cli_csv(dask_client, cli, data, tmp_path, crams):
    vcf = data / "snp-pileup" / "sites_slice.vcf.gz"
    cli("snp-pileup", "-q", "15", "-Q", "20", "-P", "100", vcf, tmp_path / "cli.csv", *crams)
    out = tmp_path / "dask.csv"
    seqfarm.dask.snp_pileup(dask_client, vcf, crams, out=out, parts_per_worker=8, q=15, Q=20, P=100, task_bytes=20000)
    assert out.read_bytes() == (tmp_path / "cli.csv").read_bytes()


@pytest.mark.parametrize("pseudo", [0, 100])
def test_snp_pileup_parts_of_a_cram_of_many_containers(dask_client, cli, data, tmp_path, pseudo):
    # Each part, and the client's walk, decodes the containers its replays reach.
    vcf = data / "snp-pileup" / "sites_slice.vcf.gz"
    inputs = [data / "cram" / "normal_slice_containers.cram", data / "snp-pileup" / "tumor_slice.bam"]
    cli("snp-pileup", "-q", "15", "-P", pseudo, vcf, tmp_path / "cli.csv", *inputs)
    out = tmp_path / "dask.csv"
    seqfarm.dask.snp_pileup(dask_client, vcf, inputs, out=out, parts_per_worker=8, q=15, P=pseudo, task_bytes=20000)
    assert out.read_bytes() == (tmp_path / "cli.csv").read_bytes()


@pytest.mark.parametrize("name", ["normal_slice.cram", "normal_slice_containers.cram", "tumor_slice.cram"])
def test_flagstat_on_a_cram_is_the_cli_report(dask_client, cli, data, name):
    # The parts are runs of the CRAM's containers, decoded by the workers.
    cram = data / "cram" / name
    expected = json.loads(cli("flagstat", "-O", "json", cram).stdout)
    assert seqfarm.dask.flagstat(dask_client, cram, parts_per_worker=8) == expected
    assert seqfarm.dask.flagstat(dask_client, cram, format="default") == cli("flagstat", cram).stdout.decode()
