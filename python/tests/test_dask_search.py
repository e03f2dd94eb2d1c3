"""seqfarm.dask.search on a LocalCluster of worker processes: the command line's
tabular output, byte for byte (hits merged across database parts, ties in database
order)."""

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


def test_existing_output_is_refused(dask_client, data, tmp_path):
    out = tmp_path / "exists.tsv"
    out.write_text("keep")
    with pytest.raises(seqfarm.InputError, match="already exists"):
        seqfarm.dask.search(dask_client, data / "sw_q10.fa", data / "sw_db1500.fa.gz", out)
