"""seqfarm.dask.search on a LocalCluster of worker processes: the command line's
tabular output, byte for byte (hits merged across database parts, ties in database
order), a DNA search of both strands with a record cut into pieces among them."""

import pytest

import seqfarm
import seqfarm.dask


@pytest.mark.parametrize("options", [{}, {"top": 3, "matrix": "BLOSUM50"}, {"scores_only": True}])
def test_search_is_the_cli_output(dask_client, cli, data, tmp_path, options):
    queries, database = data / "sw_q10.fa", data / "sw_db1500.fa.gz"
    flags = []
    for name, value in options.items():
        flags += [f"--{name.replace('_', '-')}"] + ([] if value is True else [value])
    expected = cli("search", queries, database, "--chunk-size", 20000, *flags).stdout
    out = tmp_path / "hits.tsv"
    seqfarm.dask.search(
        dask_client, queries, database, out, parts_per_worker=4, chunk_size=20000, **options
    )
    assert out.read_bytes() == expected


def test_search_returns_a_data_frame(dask_client, cli, data):
    queries, database = data / "sw_q10.fa", data / "sw_db1500.fa.gz"
    expected = cli("search", queries, database, "--top", 2).stdout.decode().splitlines()
    frame = seqfarm.dask.search(dask_client, queries, database, top=2)
    assert frame.equals(seqfarm.search(queries, database, top=2))
    assert len(frame) == len(expected)
    assert list(frame["sseqid"]) == [line.split("\t")[1] for line in expected]


def test_a_second_search_replaces_the_output(dask_client, cli, data, tmp_path):
    queries, database = data / "sw_q10.fa", data / "sw_db1500.fa.gz"
    expected = cli("search", queries, database, "--top", 2).stdout
    out = tmp_path / "again.tsv"
    seqfarm.dask.search(dask_client, queries, database, out, scores_only=True)
    first = out.read_bytes()
    assert seqfarm.dask.search(dask_client, queries, database, out, top=2) == out
    assert out.read_bytes() == expected != first
    seqfarm.dask.search(dask_client, queries, database, out, top=2, force=True)
    assert out.read_bytes() == expected
    assert [p.name for p in tmp_path.iterdir()] == ["again.tsv"]


def test_an_input_is_never_the_output(dask_client, data, tmp_path):
    queries = tmp_path / "q.fa"
    queries.write_bytes((data / "sw_q10.fa").read_bytes())
    with pytest.raises(seqfarm.InputError, match="this output is the input"):
        seqfarm.dask.search(dask_client, queries, data / "sw_db1500.fa.gz", queries, force=True)
    assert queries.read_bytes() == (data / "sw_q10.fa").read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["q.fa"]


def _dna(rng, n):
    return "".join(rng.choice("ACGT") for _ in range(n))


def _reverse_complement(seq):
    return seq[::-1].translate(str.maketrans("ACGT", "TGCA"))


def _fasta(name, seq):
    return f">{name}\n" + "".join(seq[i:i + 80] + "\n" for i in range(0, len(seq), 80))


@pytest.fixture(scope="module")
def long_record_files(tmp_path_factory):
    """DNA queries and a database whose 1.2 Mb record is cut into pieces (over 1 MiB)
    and fragments, between short records, with copies of the queries planted on both
    strands: across the first piece's end, in the long record and in a short one."""
    import random

    rng = random.Random(16)
    a, b = _dna(rng, 150), _dna(rng, 60)
    long = list(_dna(rng, 1_200_000))
    for at, seq in [(1_035_550, _reverse_complement(a)), (16_100, a[:70] + "T" + a[71:]),
                    (600_000, b), (1_100_000, _reverse_complement(b))]:
        long[at:at + len(seq)] = seq
    short = [_dna(rng, 3_000) for _ in range(6)]
    short[4] = short[4][:1000] + _reverse_complement(a) + short[4][1150:]
    folder = tmp_path_factory.mktemp("long_record")
    queries, database = folder / "q.fa", folder / "db.fa"
    queries.write_text(_fasta("a", a) + _fasta("b", b))
    records = [_fasta(f"short{i + 1}", s) for i, s in enumerate(short[:3])]
    records.append(_fasta("long", "".join(long)))
    records += [_fasta(f"short{i + 4}", s) for i, s in enumerate(short[3:])]
    database.write_text("".join(records))
    return queries, database


@pytest.mark.parametrize(
    "options", [{}, {"outfmt": "6 std sstrand qseq sseq"}, {"scores_only": True}]
)
def test_dna_search_of_a_long_record_is_the_cli_output(
    dask_client, cli, long_record_files, tmp_path, options
):
    queries, database = long_record_files
    flags = []
    for name, value in options.items():
        flags += [f"--{name.replace('_', '-')}"] + ([] if value is True else [value])
    expected = cli("search", "--dna", queries, database, *flags).stdout
    assert b"\tlong\t" in expected and b"\tshort5\t" in expected
    out = tmp_path / "hits.tsv"
    seqfarm.dask.search(
        dask_client, queries, database, out, parts_per_worker=4, chunk_size=8000, dna=True,
        **options,
    )
    assert out.read_bytes() == expected
