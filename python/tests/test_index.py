"""Index.build / Index.count / Index.locate against seqfarm index and seqfarm locate."""

import pytest

import seqfarm

PATTERNS = ["GATTACA", "ACGTACGT", "AAAAAAAAAAAA", "CCGGNAT", "TTGACA"]


@pytest.fixture(scope="module")
def built(data, tmp_path_factory):
    prefix = tmp_path_factory.mktemp("index") / "ref"
    return seqfarm.Index.build(data / "index_ref.fa.gz", prefix, threads=2, memory="64M")


def test_build_writes_the_cli_index(data, cli, built, tmp_path):
    prefix = tmp_path / "cli"
    cli("index", "-t", "1", "-o", prefix, data / "index_ref.fa.gz")
    assert (tmp_path / "cli.sfi").read_bytes() == built.prefix.with_suffix(".sfi").read_bytes()
    assert built.contigs == [("ecoli_K12_1_200000", 200000), ("chr20_1_260000", 260000)]


def locate_lines(cli, prefix, *args):
    out = cli("locate", "-x", prefix, *args).stdout.decode()
    return [line.split("\t") for line in out.splitlines()]


def test_count_is_locate(cli, built):
    lines = locate_lines(cli, built.prefix, "--max-hits", "0", *PATTERNS)
    assert built.count(PATTERNS) == [int(line[1]) for line in lines]
    assert built.count("GATTACA") == [int(lines[0][1])]


@pytest.mark.parametrize("pattern", ["GATTACA", "ACGTACGT", "TTGACA"])
def test_locate_is_locate(cli, built, pattern):
    [line] = locate_lines(cli, built.prefix, "--max-hits", "7", pattern)
    hits = built.locate(pattern, max_hits=7)
    expected = [h.split(":") for h in line[2].split(",")] if line[2] else []
    assert [(h.contig, str(h.pos), h.strand) for h in hits] == [tuple(e) for e in expected]
    frame = built.locate(pattern, max_hits=7, as_frame=True)
    assert list(frame.columns) == ["contig", "pos", "strand"]
    assert frame["pos"].tolist() == [h.pos for h in hits]


def test_bad_pattern_and_missing_index_are_cli_errors(cli, built, tmp_path):
    message = cli("locate", "-x", built.prefix, "GATXACA", check=False).stderr.decode().strip()
    with pytest.raises(seqfarm.Error) as caught:
        built.count(["GATXACA"])
    assert message == f"seqfarm: error: {caught.value}"
    missing = tmp_path / "none"
    message = cli("locate", "-x", missing, "ACGT", check=False).stderr.decode().strip()
    with pytest.raises(seqfarm.InputError) as caught:
        seqfarm.Index(missing)
    assert message == f"seqfarm: error: {caught.value}"
    foreign = tmp_path / "foreign"
    (tmp_path / "foreign.sfi").write_bytes(b"not an index at all, but long enough" * 4)
    with pytest.raises(seqfarm.FormatError, match="not a seqfarm index"):
        seqfarm.Index(foreign)


def test_build_twice_replaces_the_index(data, cli, tmp_path):
    small = tmp_path / "small.fa"
    small.write_text(">c\nACGTACGTAGCTAGCTAGCATCGATCGACTGACTG\n")
    prefix = tmp_path / "again"
    first = seqfarm.Index.build(small, prefix, threads=1)
    assert first.contigs == [("c", 35)]
    before = (tmp_path / "again.sfi").stat().st_ino
    second = seqfarm.Index.build(data / "index_ref.fa.gz", prefix, threads=1)
    assert second.contigs == [("ecoli_K12_1_200000", 200000), ("chr20_1_260000", 260000)]
    assert (tmp_path / "again.sfi").stat().st_ino != before, "replaced by a rename"
    cli("index", "-t", "1", "-o", tmp_path / "cli", data / "index_ref.fa.gz")
    assert (tmp_path / "again.sfi").read_bytes() == (tmp_path / "cli.sfi").read_bytes()
    seqfarm.Index.build(data / "index_ref.fa.gz", prefix, threads=1, force=True)
    assert (tmp_path / "again.sfi").read_bytes() == (tmp_path / "cli.sfi").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.sfi", "cli.sfi", "small.fa"]


def test_build_options_are_the_commands(data, cli, tmp_path):
    small = tmp_path / "small.fa"
    small.write_text(">c\nACGTACGTAGCTAGCTAGCATCGATCGACTGACTG\n")
    seqfarm.Index.build(small, tmp_path / "py", threads=1, memory=64 << 20, sa_rate=4, kmer=5)
    cli("index", "-t", "1", "-m", "64M", "--sa-rate", "4", "--kmer", "5", "-o", tmp_path / "cli",
        small)
    assert (tmp_path / "py.sfi").read_bytes() == (tmp_path / "cli.sfi").read_bytes()
    with pytest.raises(seqfarm.OptionError, match="sa_rate: \"3\" is not a power of two"):
        seqfarm.Index.build(small, tmp_path / "bad", sa_rate=3)
    with pytest.raises(seqfarm.OptionError, match="memory: \"lots\" is not a size"):
        seqfarm.Index.build(small, tmp_path / "bad", memory="lots")
    with pytest.raises(TypeError):
        seqfarm.Index.build(small, tmp_path / "bad", no_such_option=1)
    assert not (tmp_path / "bad.sfi").exists()
