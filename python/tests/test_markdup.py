import pytest

import seqfarm


def metrics_rows(path):
    """The metrics file's DuplicationMetrics rows, as dicts of its columns (text)."""
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("## METRICS CLASS"))
    names = lines[start + 1].split("\t")
    rows = {}
    for line in lines[start + 2:]:
        if not line:
            break
        values = dict(zip(names, line.split("\t")))
        rows[values.pop("LIBRARY")] = values
    return rows


@pytest.mark.parametrize("name", ["markdup/sim.bam", "bam/chm1.bam"])
def test_markdup_writes_the_cli_bam_and_returns_its_metrics(tmp_path, data, cli, name):
    ours, theirs = tmp_path / "py.bam", tmp_path / "cli.bam"
    metrics = tmp_path / "cli.txt"
    cli("markdup", data / name, "-t", "2", "-o", theirs, "--metrics", metrics)
    returned = seqfarm.markdup(data / name, ours, threads=2)
    assert ours.read_bytes() == theirs.read_bytes()
    assert (tmp_path / "py.bam.bai").read_bytes() == (tmp_path / "cli.bam.bai").read_bytes()
    expected = metrics_rows(metrics)
    assert set(returned) == set(expected)
    for library, row in returned.items():
        assert isinstance(row["READ_PAIRS_EXAMINED"], int)
        assert isinstance(row["PERCENT_DUPLICATION"], float)
        for column, text in expected[library].items():
            value = row[column]
            if column == "PERCENT_DUPLICATION":
                assert value == pytest.approx(float(text), abs=1e-6)
            elif value is None:
                assert text == ""
            else:
                assert str(value) == text, column


def test_markdup_options_and_errors(tmp_path, data, cli):
    metrics = tmp_path / "m.txt"
    rows = seqfarm.markdup(data / "markdup" / "sim.bam", tmp_path / "x.bam", metrics=metrics,
                           remove_duplicates=True, optical_distance=2500, memory="1M")
    assert metrics.exists() and rows
    # The keywords are the command line's options, with the same effect.
    cli("markdup", data / "markdup" / "sim.bam", "-o", tmp_path / "cli.bam", "--metrics",
        tmp_path / "cli.txt", "--remove-duplicates", "--optical-distance", "2500", "--memory", "1M")
    assert (tmp_path / "x.bam").read_bytes() == (tmp_path / "cli.bam").read_bytes()
    assert metrics_rows(metrics) == metrics_rows(tmp_path / "cli.txt")
    with pytest.raises(seqfarm.OptionError):
        seqfarm.markdup(data / "markdup" / "sim.bam", tmp_path / "y.bam", no_such_option=1)
    with pytest.raises(seqfarm.InputError):
        seqfarm.markdup(tmp_path / "missing.bam", tmp_path / "z.bam")
    assert not (tmp_path / "z.bam").exists()
