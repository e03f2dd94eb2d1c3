"""seqfarm.depth in process: the command's files, byte for byte, and its errors."""

import pytest

import seqfarm

SUFFIXES = (
    ".regions.bed.gz",
    ".regions.bed.gz.csi",
    ".thresholds.bed.gz",
    ".thresholds.bed.gz.csi",
    ".per-base.bed.gz",
    ".per-base.bed.gz.csi",
    ".mosdepth.summary.txt",
    ".mosdepth.global.dist.txt",
    ".mosdepth.region.dist.txt",
)


@pytest.mark.parametrize("threads", [1, 2])
def test_depth_writes_the_commands_files(cli, data, tmp_path, threads):
    bam = data / "bam" / "na12878_chrM.bam"
    cli("depth", "--window", 300, "-T", "1,100", "--per-base", "-Q", 20, "-o", tmp_path / "cli", bam)
    prefix = tmp_path / "py"
    got = seqfarm.depth(bam, prefix, window=300, thresholds=[1, 100], per_base=True, Q=20, threads=threads)
    assert got == prefix
    for suffix in SUFFIXES:
        assert (tmp_path / f"py{suffix}").read_bytes() == (tmp_path / f"cli{suffix}").read_bytes(), suffix


def test_depth_errors_are_the_commands(data, tmp_path):
    with pytest.raises(seqfarm.OptionError):
        seqfarm.depth(data / "bam" / "sarscov2.bam", tmp_path / "x")
    bad = tmp_path / "bad.bam"
    bad.write_bytes(b"not a BAM at all")
    with pytest.raises(seqfarm.Error, match="bad.bam"):
        seqfarm.depth(bad, tmp_path / "y", window=100)
    assert [p.name for p in tmp_path.iterdir()] == ["bad.bam"]
