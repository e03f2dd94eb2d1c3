"""Aligner.align_files and Aligner.align against seqfarm align on the bundled reads."""

import gzip
import itertools
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

import seqfarm

REPO = Path(__file__).resolve().parents[2]


def run_align(args):
    """Runs ``seqfarm align ARGS`` with ``seqfarm`` as its program name (so that the @PG
    line reads as the one Aligner.align_files writes)."""
    binary = os.environ.get("SEQFARM_BIN", REPO / "target" / "release" / "seqfarm")
    done = subprocess.run(["seqfarm", *map(str, args)], executable=str(binary),
                          capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()
    return done


def fastq(path):
    with gzip.open(path, "rt") as lines:
        while True:
            header = lines.readline()
            if not header:
                return
            seq = lines.readline().strip()
            lines.readline()
            yield header[1:].split()[0], seq, lines.readline().strip()


def write_fastq(path, reads):
    path.write_text("".join(f"@{n}\n{s}\n+\n{q}\n" for n, s, q in reads))


@pytest.fixture(scope="module")
def index(data, tmp_path_factory):
    prefix = tmp_path_factory.mktemp("align") / "ref"
    return seqfarm.Index.build(data / "index_ref.fa.gz", prefix, threads=2)


def records_of(sam_text):
    return [seqfarm.align.parse_sam_record(line)
            for line in sam_text.splitlines() if not line.startswith("@")]


@pytest.mark.parametrize("threads", [1, 2])
def test_single_end_sam_is_the_cli_sam(data, index, tmp_path, threads):
    reads = data / "align_reads_100.fq.gz"
    aligner = seqfarm.Aligner(index, local=True, p=threads)
    out = tmp_path / "out.sam"
    summary = aligner.align_files(reads, out=out)
    ours = out.read_bytes()
    out.unlink()
    done = run_align(["align", "--local", "-p", threads, "-x", index.prefix, "-U", reads,
                      "-S", out])
    assert ours == out.read_bytes()
    assert summary["text"] == done.stderr.decode()
    assert summary["reads"] == summary["unpaired"] > 0
    assert aligner.command_line(reads, out=out)[1:] == [
        "--local", "-p", str(threads), "-x", str(index.prefix), "-U", str(reads), "-S",
        str(out)]


def test_paired_end_bam_is_the_cli_bam_at_any_thread_count(data, index, tmp_path):
    r1, r2 = data / "pe_sim_R1.fq.gz", data / "pe_sim_R2.fq.gz"
    aligner = seqfarm.Aligner(index, X=700)
    outputs = []
    out = tmp_path / "out.bam"
    for threads in (1, 2):
        summary = aligner.align_files(r1, r2, out=out, p=threads)
        outputs.append(out.read_bytes())
        out.unlink()
    done = run_align(["align", "-X", "700", "-p", "2", "-x", index.prefix, "-1", r1, "-2", r2,
                      "-o", out])
    assert outputs[0] == outputs[1] == out.read_bytes()
    assert summary["text"] == done.stderr.decode()
    assert summary["paired"] == 4000
    assert summary["reads"] == 4000


def test_align_yields_the_cli_records_single_end(data, index, tmp_path):
    reads = list(itertools.islice(fastq(data / "align_reads_100.fq.gz"), 300))
    aligner = seqfarm.Aligner(index, very_sensitive=True, k=3)
    records = list(aligner.align(reads))
    path = tmp_path / "reads.fq"
    write_fastq(path, reads)
    done = run_align(["align", "--very-sensitive", "-k", "3", "-x", index.prefix, "-U", path])
    expected = records_of(done.stdout.decode())
    assert records == expected
    assert aligner.header == "".join(
        line + "\n" for line in done.stdout.decode().splitlines() if line.startswith("@")
    ).replace(f" -U {path}", "")
    first = records[0]
    assert isinstance(first.pos, int) and isinstance(first.tags["AS"], int)


def test_align_yields_the_cli_records_paired_end(data, index, tmp_path):
    pairs = list(itertools.islice(
        zip(fastq(data / "pe_sim_R1.fq.gz"), fastq(data / "pe_sim_R2.fq.gz")), 500))
    pairs += list(itertools.islice(
        zip(fastq(data / "pe_junk_R1.fq.gz"), fastq(data / "pe_junk_R2.fq.gz")), 5))
    aligner = seqfarm.Aligner(index)
    records = list(aligner.align(pairs))
    p1, p2 = tmp_path / "r1.fq", tmp_path / "r2.fq"
    write_fastq(p1, [m1 for m1, _ in pairs])
    write_fastq(p2, [m2 for _, m2 in pairs])
    done = run_align(["align", "-x", index.prefix, "-1", p1, "-2", p2])
    assert records == records_of(done.stdout.decode())
    assert len(records) == 2 * len(pairs)


def test_reads_without_qualities_align_as_fasta(data, index, tmp_path):
    reads = [(n, s) for n, s, _ in itertools.islice(fastq(data / "align_reads_100.fq.gz"), 50)]
    records = list(seqfarm.Aligner(index).align(reads))
    path = tmp_path / "reads.fa"
    path.write_text("".join(f">{n}\n{s}\n" for n, s in reads))
    done = run_align(["align", "-f", "-x", index.prefix, "-U", path])
    assert records == records_of(done.stdout.decode())


def test_bad_options_and_reads_raise_the_cli_errors(data, index, tmp_path):
    with pytest.raises(seqfarm.OptionError, match="--no-such-option"):
        seqfarm.Aligner(index, no_such_option=True)
    with pytest.raises(seqfarm.Error, match="--score-min"):
        seqfarm.Aligner(index, score_min="Q,1")
    bad = tmp_path / "bad.fq"
    bad.write_text("@r1\nACGT\n+\nII\n")
    done = subprocess.run(
        [os.environ.get("SEQFARM_BIN", REPO / "target" / "release" / "seqfarm"), "align",
         "-x", index.prefix, "-U", bad, "-S", tmp_path / "cli.sam"], capture_output=True)
    with pytest.raises(seqfarm.FormatError) as caught:
        seqfarm.Aligner(index).align_files(bad, out=tmp_path / "py.sam")
    assert done.stderr.decode().strip() == f"seqfarm: error: {caught.value}"
    with pytest.raises(seqfarm.FormatError):
        list(seqfarm.Aligner(index).align([("r1", "ACGT", "II")]))
    with pytest.raises(seqfarm.Error, match="--plot"):
        list(seqfarm.Aligner(index, plot=tmp_path / "x.svg").align([("r1", "ACGT", "IIII")]))


def test_the_gil_is_released_while_aligning(data, index, tmp_path):
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    aligner = seqfarm.Aligner(index, p=1)
    ticker = threading.Thread(target=tick)
    ticker.start()
    try:
        started = time.perf_counter()
        aligner.align_files(data / "pe_sim_R1.fq.gz", data / "pe_sim_R2.fq.gz",
                            out=tmp_path / "out.sam")
        ended = time.perf_counter()
    finally:
        stop.set()
        ticker.join()
    during = [t for t in ticks if started < t < ended]
    assert ended - started > 0.05
    assert len(during) >= 10


def test_align_files_twice_replaces_every_output(data, index, tmp_path):
    out, un, met = tmp_path / "out.sam", tmp_path / "un.fq", tmp_path / "met.txt"
    aligner = seqfarm.Aligner(index)
    first = aligner.align_files(data / "align_reads_100.fq.gz", out=out, un=un, met_file=met)
    assert first["reads"] > 0 and un.exists() and met.exists()
    reads = tmp_path / "few.fq"
    write_fastq(reads, itertools.islice(fastq(data / "align_reads_100.fq.gz"), 10))
    second = aligner.align_files(reads, out=out, un=un, met_file=met)
    assert second["reads"] == 10
    ours = [p.read_bytes() for p in (out, un)]
    for p in (out, un, met):
        p.unlink()
    run_align(["align", "--un", un, "--met-file", met, "-x", index.prefix, "-U", reads,
               "-S", out])
    assert ours == [p.read_bytes() for p in (out, un)]
    assert met.read_text().count("\n") >= 2
    aligner.align_files(reads, out=out, force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["few.fq", "met.txt", "out.sam", "un.fq"]


def test_align_files_refuses_two_outputs_of_one_file_and_an_input(data, index, tmp_path):
    out = tmp_path / "out.sam"
    reads = data / "align_reads_100.fq.gz"
    with pytest.raises(seqfarm.InputError) as caught:
        seqfarm.Aligner(index).align_files(reads, out=out, met_file=tmp_path / "." / "out.sam")
    message = str(caught.value)
    assert "out.sam" in message and "-S" in message and "--met-file" in message, message
    assert list(tmp_path.iterdir()) == []
    copy = tmp_path / "reads.fq"
    write_fastq(copy, itertools.islice(fastq(reads), 10))
    before = copy.read_bytes()
    with pytest.raises(seqfarm.InputError, match="this output is the input"):
        seqfarm.Aligner(index).align_files(copy, out=tmp_path / "x.sam", un=copy)
    assert copy.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["reads.fq"]


def test_align_refuses_a_read_field_with_a_tab_or_line_break(index):
    aligner = seqfarm.Aligner(index)
    read = "ACGT" * 10
    for bad in [("a\tb", read, "I" * 40), ("a\nb", read), ("a", read + "\t"),
                (("m\t1", read), ("m", read))]:
        with pytest.raises(seqfarm.InputError, match="tab or a line break"):
            list(aligner.align([bad]))


def test_align_takes_bytes_fields_and_names_what_it_refuses(data, index):
    aligner = seqfarm.Aligner(index)
    reads = list(itertools.islice(fastq(data / "align_reads_100.fq.gz"), 20))
    as_bytes = [tuple(field.encode() for field in read) for read in reads]
    assert list(aligner.align(as_bytes)) == list(aligner.align(reads))
    name, seq, qual = reads[0]
    with pytest.raises(TypeError, match="read name: a str or bytes, not int"):
        list(aligner.align([(7, seq, qual)]))
    with pytest.raises(TypeError, match=f"read '{name}': its qualities: a str or bytes"):
        list(aligner.align([(name, seq, 40)]))
