"""count, snp_pileup and search against the command line's output on the bundled data."""

import csv
import io
import re
from pathlib import Path

import pandas as pd
import pytest

import seqfarm


def cli_table(stdout, names, dtype, sep="\t", header=None):
    return pd.read_csv(io.BytesIO(stdout), sep=sep, header=header, names=names, dtype=dtype,
                       keep_default_na=False, na_values={"evalue": ["NA"], "bitscore": ["NA"]},
                       quoting=csv.QUOTE_NONE)


@pytest.fixture
def bed(tmp_path):
    path = tmp_path / "regions.bed"
    path.write_text(
        "NC_045512.2\t0\t1000\tfirst\t0\t+\n"
        "NC_045512.2\t21000\t25000\tspike\t7\t-\n"
        "elsewhere\t10\t20\tabsent\t0\t+\n"
        "NC_045512.2\t500\t29903\twide\t1\t+\n"
    )
    return path


@pytest.mark.parametrize("threads", [1, 2])
def test_count_with_a_bed_is_the_cli_tsv(data, cli, bed, threads):
    bam = data / "bam" / "sarscov2.bam"
    frame = seqfarm.count(bam, bed=bed, threads=threads, q=20)
    assert list(frame.columns) == ["chrom", "start", "end", "name", "score", "strand",
                                   "sarscov2.bam"]
    assert str(frame["sarscov2.bam"].dtype) == "int64"
    assert str(frame["start"].dtype) == "int64"
    expected = cli("count", "--bed", bed, "-q", "20", bam).stdout
    assert frame.to_csv(sep="\t", header=False, index=False).encode() == expected


@pytest.mark.parametrize("threads", [1, 2])
def test_count_in_windows_is_the_cli_tsv(data, cli, threads):
    bam = data / "bam" / "chm1.bam"
    frame = seqfarm.count([bam], window=20000, threads=threads, duplicates=True)
    assert list(frame.columns) == ["chrom", "start", "end", "chm1.bam"]
    expected = cli("count", "--window", "20000", "-D", bam).stdout
    assert frame.to_csv(sep="\t", header=False, index=False).encode() == expected
    assert len(frame) > 1


def test_count_errors_are_the_cli_errors(data, cli, tmp_path):
    missing = tmp_path / "missing.bam"
    message = cli("count", "--window", "100", missing, check=False).stderr.decode().strip()
    with pytest.raises(seqfarm.InputError) as caught:
        seqfarm.count(missing, window=100)
    assert message == f"seqfarm: error: {caught.value}"
    with pytest.raises(seqfarm.OptionError, match="--no-such-option"):
        seqfarm.count(data / "bam" / "sarscov2.bam", window=100, no_such_option=True)


SNP = {"q": 15, "Q": 20, "r": [5, 0], "P": 50}


@pytest.mark.parametrize("threads", [1, 2])
def test_snp_pileup_is_the_cli_csv(data, cli, tmp_path, threads):
    d = data / "snp-pileup"
    vcf, bams = d / "sites_slice.vcf.gz", [d / "tumor_slice.bam", d / "normal_slice.bam"]
    frame = seqfarm.snp_pileup(vcf, bams, threads=threads, **SNP)
    out = tmp_path / "out.csv"
    cli("snp-pileup", "-q", "15", "-Q", "20", "-r", "5,0", "-P", "50", vcf, out, *bams)
    expected = out.read_bytes()
    names = ["Chromosome", "Position", "Ref", "Alt"] + [
        f"File{i}{x}" for i in (1, 2) for x in "RAED"]
    assert list(frame.columns) == names
    assert str(frame["Chromosome"].dtype) in ("str", "string", "object")
    assert all(str(frame[n].dtype) == "int64" for n in names if n.startswith("File"))
    dtype = {n: "int64" for n in names}
    dtype.update({"Chromosome": str, "Ref": str, "Alt": str})
    pd.testing.assert_frame_equal(frame, cli_table(expected, names, dtype, sep=",", header=0))
    assert frame.to_csv(index=False).encode() == expected


def test_snp_pileup_bad_option_is_option_error(data):
    d = data / "snp-pileup"
    with pytest.raises(seqfarm.OptionError, match="invalid value"):
        seqfarm.snp_pileup(d / "sites_slice.vcf.gz", [d / "tumor_slice.bam"], q="many")


BLAST_TYPES = {"qseqid": str, "sseqid": str, "pident": "float64", "length": "int64",
               "mismatch": "int64", "gapopen": "int64", "qstart": "int64", "qend": "int64",
               "sstart": "int64", "send": "int64", "evalue": "float64", "bitscore": "float64"}


@pytest.mark.parametrize("threads", [1, 2])
def test_search_is_the_cli_tabular(data, cli, threads):
    query, db = data / "sw_q10.fa", data / "sw_db1500.fa.gz"
    frame = seqfarm.search(query, db, threads=threads, top=3)
    assert list(frame.columns) == seqfarm.tables.BLAST_COLUMNS
    expected = cli_table(cli("search", "--top", "3", query, db).stdout,
                         seqfarm.tables.BLAST_COLUMNS, BLAST_TYPES)
    pd.testing.assert_frame_equal(frame, expected)
    assert len(frame) == 30


def test_search_with_gpu_auto_is_the_cli_tabular(data, cli):
    # On a GPU where there is one, on the CPU otherwise: the same hits either way.
    query, db = data / "sw_q10.fa", data / "sw_db1500.fa.gz"
    frame = seqfarm.search(query, db, top=3, gpu="auto")
    expected = cli_table(cli("search", "--top", "3", query, db).stdout,
                         seqfarm.tables.BLAST_COLUMNS, BLAST_TYPES)
    pd.testing.assert_frame_equal(frame, expected)


def test_search_takes_sequences_in_memory(data, cli, tmp_path):
    db = data / "sw_db1500.fa.gz"
    queries = ["MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQ",
               ("named", "MSDNGPQNQRNAPRITFGGPSDSTGSNQNGERSGARSKQRRPQGLPNNTASWFTAL")]
    frame = seqfarm.search(queries, db, top=2)
    fasta = tmp_path / "q.fa"
    fasta.write_text(f">query1\n{queries[0]}\n>named\n{queries[1][1]}\n")
    expected = cli_table(cli("search", "--top", "2", fasta, db).stdout,
                         seqfarm.tables.BLAST_COLUMNS, BLAST_TYPES)
    pd.testing.assert_frame_equal(frame, expected)
    assert set(frame["qseqid"]) == {"query1", "named"}


def test_search_takes_bytes_as_sequences_and_names_what_it_refuses(data):
    db = data / "sw_db1500.fa.gz"
    text = "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQ"
    as_text = seqfarm.search([text, ("named", text)], db, top=2)
    as_bytes = seqfarm.search([text.encode(), (b"named", bytearray(text.encode()))], db, top=2)
    pd.testing.assert_frame_equal(as_bytes, as_text)
    with pytest.raises(TypeError, match="query 'q': its sequence: a str or bytes, not int"):
        seqfarm.search([("q", 7)], db)
    with pytest.raises(TypeError, match="query 'query1': its sequence: byte 1 is not ASCII"):
        seqfarm.search(["M\u00e9".encode()], db)


def test_search_option_values_it_refuses_are_option_errors(data, cli, tmp_path):
    query, db = data / "sw_q10.fa", data / "sw_db1500.fa.gz"
    for options, args in [
        ({"outfmt": "6 qseqid nosuch"}, ["--outfmt", "6 qseqid nosuch"]),
        ({"outfmt": "5"}, ["--outfmt", "5"]),
        ({"matrix": tmp_path / "missing.mat"}, ["--matrix", tmp_path / "missing.mat"]),
        ({"evalue": -1}, ["--evalue", "-1"]),
    ]:
        with pytest.raises(seqfarm.OptionError) as caught:
            seqfarm.search(query, db, **options)
        message = cli("search", *args, query, db, check=False).stderr.decode()
        assert str(caught.value).splitlines()[0] in message
    with pytest.raises(seqfarm.OptionError, match="dna='no': dna takes no value"):
        seqfarm.search(query, db, dna="no")


def test_search_scores_only(data, cli):
    query, db = data / "sw_q10.fa", data / "sw_db1500.fa.gz"
    frame = seqfarm.search(query, db, scores_only=True)
    expected = cli_table(cli("search", "--scores-only", query, db).stdout,
                         ["qseqid", "sseqid", "score"],
                         {"qseqid": str, "sseqid": str, "score": "int64"})
    pd.testing.assert_frame_equal(frame, expected)


def test_search_bad_query_is_format_error_with_cli_message(data, cli, tmp_path):
    bad = tmp_path / "bad.fa"
    bad.write_text("no header line\n")
    db = data / "sw_db1500.fa.gz"
    message = cli("search", bad, db, check=False).stderr.decode().strip().splitlines()[-1]
    with pytest.raises(seqfarm.Error) as caught:
        seqfarm.search(bad, db)
    assert message == f"seqfarm: error: {caught.value}"


SEVEN_COLUMNS = "6 qseqid sseqid qlen qcovs ppos evalue sstrand"
SEVEN_COLUMN_LINES = (b"q1\tsp|P12345|NAME_HUMAN\t64\t100\t98.44\t9.56e-47\tN/A\n"
                      b"q1\tNC_045512.2\t64\t31\t95.00\tNA\tN/A\n")


def test_search_frame_types_the_columns_of_outfmt():
    frame = seqfarm.tables.search_frame(SEVEN_COLUMN_LINES, outfmt=SEVEN_COLUMNS)
    assert list(frame.columns) == SEVEN_COLUMNS.split()[1:]
    types = [str, str, "int64", "int64", "float64", "float64", str]
    assert list(frame.dtypes) == [pd.Series([], dtype=t).dtype for t in types]
    assert frame["qcovs"].tolist() == [100, 31]
    assert frame["ppos"].tolist() == [98.44, 95.0]
    assert frame["evalue"][0] == 9.56e-47 and pd.isna(frame["evalue"][1])
    assert frame["sstrand"].tolist() == ["N/A", "N/A"]
    assert frame["sseqid"][0] == "sp|P12345|NAME_HUMAN"


def test_search_frame_skips_the_comments_of_outfmt_7():
    commented = (b"# seqfarm search 0.1.0\n# Query: q1 a protein\n# Database: db.fa\n"
                 b"# Fields: query id, subject id, query length, % query coverage per subject, "
                 b"% positives, evalue, subject strand\n# 2 hits found\n" + SEVEN_COLUMN_LINES
                 + b"# seqfarm search 0.1.0\n# Query: q2\n# Database: db.fa\n# 0 hits found\n"
                 b"# seqfarm processed 2 queries\n")
    frame = seqfarm.tables.search_frame(commented, outfmt="7" + SEVEN_COLUMNS[1:])
    expected = seqfarm.tables.search_frame(SEVEN_COLUMN_LINES, outfmt=SEVEN_COLUMNS)
    pd.testing.assert_frame_equal(frame, expected)


def test_search_frame_std_repeats_and_defaults():
    line = b"P12345\tNC_045512\t95.000\t20\t0\t1\t1\t20\t7\t25\t1.04e-09\t35.0\t64\t64\n"
    frame = seqfarm.tables.search_frame(line, outfmt="6 std qlen qlen")
    assert list(frame.columns) == seqfarm.tables.BLAST_STD_COLUMNS + ["qlen", "qlen"]
    assert frame.iloc[0, -1] == 64 and frame["send"][0] == 25
    assert list(seqfarm.tables.search_frame(line[: line.rfind(b"\t64\t64")] + b"\n",
                                            outfmt="6").columns) == \
        seqfarm.tables.BLAST_STD_COLUMNS
    assert seqfarm.tables.search_frame(b"", outfmt="6 qseqid qcovhsp").empty


def test_search_frame_unknown_column_is_option_error():
    with pytest.raises(seqfarm.OptionError, match="'qcov'.*qcovhsp"):
        seqfarm.tables.search_frame(b"", outfmt="6 qseqid qcov")
    with pytest.raises(seqfarm.OptionError, match="give 6 or 7"):
        seqfarm.tables.search_frame(b"", outfmt="5")


def test_every_readme_search_column_has_a_type():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme.split("| column | `# Fields:` label | meaning |\n")[1].split("\n\n")[0]
    names = re.findall(r"^\| `(\w+)` \| ", table, flags=re.M)
    assert names == list(seqfarm.tables.BLAST_COLUMN_TYPES)
