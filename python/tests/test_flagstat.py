import json

import pytest

import seqfarm


@pytest.mark.parametrize("name", ["chm1.bam", "sarscov2.bam"])
@pytest.mark.parametrize("threads", [1, 2])
def test_flagstat_is_the_cli_json(data, cli, name, threads):
    path = data / "bam" / name
    expected = json.loads(cli("flagstat", "-O", "json", path).stdout)
    assert seqfarm.flagstat(path, threads=threads) == expected


def test_missing_file_raises_input_error_with_the_cli_message(tmp_path, cli):
    missing = tmp_path / "missing.bam"
    message = cli("flagstat", missing, check=False).stderr.decode().strip()
    with pytest.raises(seqfarm.InputError) as caught:
        seqfarm.flagstat(missing)
    assert message == f"seqfarm: error: {caught.value}"


def test_malformed_file_raises_format_error_naming_it(tmp_path):
    bad = tmp_path / "bad.sam"
    bad.write_text("read1\tnot-a-flag\n")
    with pytest.raises(seqfarm.FormatError, match="bad.sam: line 1"):
        seqfarm.flagstat(bad)


def test_errors_share_one_base_class():
    for cls in (seqfarm.InputError, seqfarm.FormatError, seqfarm.OptionError):
        assert issubclass(cls, seqfarm.Error)
    assert issubclass(seqfarm.Error, Exception)
