"""seqfarm.dask.snp_pileup on a LocalCluster of worker processes: the command line's
CSV (and BGZF output), byte for byte, with the tasks cut small so that every worker
runs several parts and the walk crosses parts at any site."""

import gzip

import pytest

import seqfarm
import seqfarm.dask
from client_received import byte_size, record_received
from worker_kill import a_worker_killed_when_busy

#: (keyword options, the command line's options)
CASES = [
    ({}, []),
    ({"P": 100, "q": 15, "Q": 20, "r": [10, 0]}, ["-P", "100", "-q", "15", "-Q", "20", "-r", "10,0"]),
    ({"A": True, "x": True, "q": 1, "Q": 13}, ["-A", "-x", "-q", "1", "-Q", "13"]),
    ({"d": 8, "P": 50, "r": [2, 2]}, ["-d", "8", "-P", "50", "-r", "2,2"]),
    ({"P": 7, "A": True}, ["-P", "7", "-A"]),
]

#: Small tasks (hidden options of the command, for tests of task boundaries).
SMALL = [({"task_bytes": 20000}, ["--task-bytes", "20000"]), ({"task_span": 3000}, ["--task-span", "3000"])]


@pytest.mark.parametrize("options,flags", CASES)
@pytest.mark.parametrize("small,small_flags", SMALL)
def test_snp_pileup_is_the_cli_csv(dask_client, cli, data, tmp_path, options, flags, small, small_flags):
    d = data / "snp-pileup"
    vcf, bams = d / "sites_slice.vcf.gz", [d / "normal_slice.bam", d / "tumor_slice.bam"]
    expected = tmp_path / "cli.csv"
    cli("snp-pileup", *flags, vcf, expected, *bams)
    out = tmp_path / "dask.csv"
    got = seqfarm.dask.snp_pileup(
        dask_client, vcf, bams, out=out, parts_per_worker=8, **options, **small
    )
    assert got == str(out)
    assert out.read_bytes() == expected.read_bytes()


@pytest.mark.parametrize("form", ["bgzf", "text", "one gzip stream", "one gzip stream, no index kept", "bzip2"])
def test_parts_read_a_vcf_in_any_form(dask_client, cli, data, tmp_path, capfd, monkeypatch, form):
    """Each part starts at its own line: a BGZF VCF at the block that holds it, a plain
    one at its offset, one gzip stream at the access points of the index the client
    keeps beside it. A VCF compressed as one stream without such an index is read from
    its start by every part, which the client warns about."""
    import bz2

    d = data / "snp-pileup"
    bams = [d / "normal_slice.bam", d / "tumor_slice.bam"]
    vcf = d / "sites_slice.vcf.gz"
    text = gzip.decompress(vcf.read_bytes())
    if form == "text":
        vcf = tmp_path / "sites.vcf"
        vcf.write_bytes(text)
    elif form.startswith("one gzip stream"):
        vcf = tmp_path / "sites.vcf.gz"
        vcf.write_bytes(gzip.compress(text))
    elif form == "bzip2":
        vcf = tmp_path / "sites.vcf.bz2"
        vcf.write_bytes(bz2.compress(text))
    if form.endswith("no index kept"):
        # Neither beside the VCF nor in the cache directory can an index be written.
        (tmp_path / "sites.vcf.gz.sfzi").mkdir()
        (tmp_path / "cache").write_text("not a directory")
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    expected = cli("snp-pileup", "-P", "100", vcf, "-", *bams).stdout
    capfd.readouterr()
    out = tmp_path / "dask.csv"
    seqfarm.dask.snp_pileup(dask_client, vcf, bams, out=out, parts_per_worker=8, P=100, task_bytes=20000)
    assert out.read_bytes() == expected
    warned = "not BGZF: each of the" in capfd.readouterr().err
    assert warned == (form in ("one gzip stream, no index kept", "bzip2"))
    assert (tmp_path / "sites.vcf.gz.sfzi").is_file() == (form == "one gzip stream")


@pytest.mark.parametrize("pseudo", [0, 100])
def test_warnings_about_skipped_sites_are_the_command_s(dask_client, cli, data, tmp_path, capfd, pseudo):
    """Sites on contigs absent from the BAMs, sites behind an earlier one and lowercase
    REF letters, in every part: the job prints the command's warnings, in a file or a
    DataFrame, whatever part counted them."""
    d = data / "snp-pileup"
    bams = [d / "normal_slice.bam", d / "tumor_slice.bam"]
    lines = gzip.decompress((d / "sites_slice.vcf.gz").read_bytes()).decode().splitlines(keepends=True)
    body = [line for line in lines if not line.startswith("#")]
    edited = [line for line in lines if line.startswith("#")]
    for i, line in enumerate(body):
        fields = line.split("\t")
        if i % 50 == 7:
            fields[3] = fields[3].lower()
        edited.append("\t".join(fields))
        if i % 40 == 39:
            edited.append(f"GL00019{i % 7}.1\t500\t.\tA\tG\t.\t.\t.\n")
        if i % 300 == 299:
            edited.append(body[i - 100])
    vcf = tmp_path / "edited.vcf"
    vcf.write_text("".join(edited))
    done = cli("snp-pileup", "-P", pseudo, vcf, "-", *bams)

    def warnings(text):
        return [line for line in text.splitlines() if line.startswith("seqfarm: warning: snp-pileup:")]

    expected = warnings(done.stderr.decode())
    assert len(expected) == 3, expected
    capfd.readouterr()
    out = tmp_path / "dask.csv"
    seqfarm.dask.snp_pileup(dask_client, vcf, bams, out=out, parts_per_worker=8, P=pseudo, task_bytes=20000)
    assert out.read_bytes() == done.stdout
    assert warnings(capfd.readouterr().err) == expected
    seqfarm.dask.snp_pileup(dask_client, vcf, bams, parts_per_worker=8, P=pseudo, task_bytes=20000)
    assert warnings(capfd.readouterr().err) == expected


@pytest.mark.parametrize("vcf,bam,flags", [
    ("chrM_sites.vcf.gz", "na12878_chrM.bam", ["-P", "101", "-Q", "20", "-d", "150"]),
    ("chm1_sites.vcf.gz", "chm1.bam", ["-P", "7", "-q", "20"]),
    ("chm1_sites.vcf.gz", "chm1.bam", []),
])
def test_snp_pileup_other_contigs(dask_client, cli, data, tmp_path, vcf, bam, flags):
    vcf, bam = data / "snp-pileup" / vcf, data / "bam" / bam
    expected = cli("snp-pileup", *flags, vcf, "-", bam).stdout
    out = tmp_path / "dask.csv"
    options = {flags[i][1:]: flags[i + 1] for i in range(0, len(flags), 2)}
    seqfarm.dask.snp_pileup(dask_client, vcf, [bam], out=out, parts_per_worker=8,
                            task_span=2000, **options)
    assert out.read_bytes() == expected


def test_snp_pileup_gzip_is_the_cli_bgzf(dask_client, cli, data, tmp_path):
    d = data / "snp-pileup"
    vcf, bams = d / "sites_slice.vcf.gz", [d / "normal_slice.bam", d / "tumor_slice.bam"]
    cli("snp-pileup", "-g", "-q15", "-Q20", "-P100", "-r10,0", vcf, tmp_path / "cli.csv", *bams)
    got = seqfarm.dask.snp_pileup(dask_client, vcf, bams, out=tmp_path / "dask.csv", g=True,
                                  q=15, Q=20, P=100, r=[10, 0], task_span=5000)
    assert got == str(tmp_path / "dask.csv.gz")
    assert (tmp_path / "dask.csv.gz").read_bytes() == (tmp_path / "cli.csv.gz").read_bytes()
    assert gzip.decompress((tmp_path / "dask.csv.gz").read_bytes()).startswith(b"Chromosome,")


def test_snp_pileup_frame_is_the_local_frame(dask_client, data):
    d = data / "snp-pileup"
    vcf, bams = d / "sites_slice.vcf.gz", [d / "normal_slice.bam", d / "tumor_slice.bam"]
    frame = seqfarm.dask.snp_pileup(dask_client, vcf, bams, P=50, task_span=4000)
    assert frame.equals(seqfarm.snp_pileup(vcf, bams, P=50))


def test_snp_pileup_errors_are_the_cli_errors(dask_client, cli, data, tmp_path):
    d = data / "snp-pileup"
    bams = [d / "normal_slice.bam", d / "tumor_slice.bam"]
    bad = tmp_path / "bad.vcf"
    bad.write_text("##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n20\t1000010\t.\tA\tG\n"
                   "20\tx\t.\tA\tG\n")
    message = cli("snp-pileup", bad, tmp_path / "cli.csv", *bams, check=False).stderr.decode()
    out = tmp_path / "dask.csv"
    with pytest.raises(seqfarm.FormatError) as error:
        seqfarm.dask.snp_pileup(dask_client, bad, bams, out=out)
    assert str(error.value) in message
    assert not out.exists()


def test_an_existing_output_is_refused_unless_force(dask_client, cli, data, tmp_path):
    d = data / "snp-pileup"
    vcf, bams = d / "sites_slice.vcf.gz", [d / "normal_slice.bam", d / "tumor_slice.bam"]
    expected = tmp_path / "cli.csv"
    cli("snp-pileup", "-P", "100", vcf, expected, *bams)
    out = tmp_path / "again.csv"
    seqfarm.dask.snp_pileup(dask_client, vcf, bams, out=out, P=50, task_span=4000)
    first = out.read_bytes()
    assert first.startswith(b"Chromosome,") and first != expected.read_bytes()
    # As FACETS' snp-pileup (and the command) refuse it, before any part runs.
    with pytest.raises(seqfarm.InputError) as caught:
        seqfarm.dask.snp_pileup(dask_client, vcf, bams, out=out, P=100)
    message = str(caught.value)
    assert str(out) in message and "already exists" in message, message
    assert "force=True" in message, message
    assert out.read_bytes() == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.csv", "cli.csv"]
    # force=True replaces it, once the job has succeeded.
    got = seqfarm.dask.snp_pileup(dask_client, vcf, bams, out=out, P=100, force=True,
                                  task_span=4000)
    assert got == str(out)
    assert out.read_bytes() == expected.read_bytes()
    # force=True never replaces an input.
    before = bams[0].read_bytes()
    with pytest.raises(seqfarm.InputError, match="this output is the input"):
        seqfarm.dask.snp_pileup(dask_client, vcf, bams, out=bams[0], force=True)
    assert bams[0].read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again.csv", "cli.csv"]


def test_the_workers_walk_and_write_and_the_client_learns_sizes(dask_client, cli, data, tmp_path, monkeypatch):
    from seqfarm.dask import _snp_pileup

    d = data / "snp-pileup"
    vcf, bams = d / "sites_slice.vcf.gz", [d / "normal_slice.bam", d / "tumor_slice.bam"]
    cli("snp-pileup", "-g", "-P", "7", "-Q", "20", vcf, tmp_path / "cli.csv", *bams)
    expected = (tmp_path / "cli.csv.gz").read_bytes()
    # Walks of several parts each: their runs' findings meet on one worker.
    monkeypatch.setattr(_snp_pileup, "WALKS", 3)
    received = record_received(monkeypatch)
    out = tmp_path / "dask.csv"
    seqfarm.dask.snp_pileup(dask_client, vcf, bams, out=out, g=True, P=7, Q=20, task_span=3000,
                            parts_per_worker=4)
    assert (tmp_path / "dask.csv.gz").read_bytes() == expected

    # The parts' sizes and the last walk's carry (its bytes after the last whole block,
    # compressed): no site, no row.
    assert 0 < byte_size(received) < len(gzip.decompress(expected)) / 20


def test_a_killed_worker_has_its_parts_and_walks_recomputed(cli, data, tmp_path, local_cluster):
    d = data / "snp-pileup"
    vcf, bams = d / "sites_slice.vcf.gz", [d / "normal_slice.bam", d / "tumor_slice.bam"]
    cli("snp-pileup", "-g", "-P", "50", vcf, tmp_path / "cli.csv", *bams)
    out = tmp_path / "dask.csv"
    with local_cluster(silence_logs=50) as client, a_worker_killed_when_busy(client):
        seqfarm.dask.snp_pileup(client, vcf, bams, out=out, g=True, P=50, task_span=2000, parts_per_worker=8)
    assert (tmp_path / "dask.csv.gz").read_bytes() == (tmp_path / "cli.csv.gz").read_bytes()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("flags,options", [([], {}), (["-g"], {"g": True})])
def test_a_vcf_without_sites_gives_the_cli_header(dask_client, cli, data, tmp_path, flags, options):
    vcf = tmp_path / "empty.vcf"
    vcf.write_text("##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\n")
    bam = data / "snp-pileup" / "normal_slice.bam"
    cli("snp-pileup", *flags, vcf, tmp_path / "cli.csv", bam)
    got = seqfarm.dask.snp_pileup(dask_client, vcf, [bam], out=tmp_path / "dask.csv", **options)
    suffix = ".gz" if flags else ""
    assert got == str(tmp_path / f"dask.csv{suffix}")
    assert (tmp_path / f"dask.csv{suffix}").read_bytes() == (tmp_path / f"cli.csv{suffix}").read_bytes()
    assert seqfarm.dask.snp_pileup(dask_client, vcf, [bam]).empty
