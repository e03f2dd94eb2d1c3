"""Ctrl-C stops a running call: the farm stops at its next task, the outputs are
removed as after any failed run, and KeyboardInterrupt reaches the caller."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import seqfarm

ALIGN = textwrap.dedent("""
    import sys, seqfarm
    prefix, r1, r2, out = sys.argv[1:]
    aligner = seqfarm.Aligner(seqfarm.Index(prefix), p=2)
    try:
        aligner.align_files(r1, r2, out=out)
        print("finished")
    except KeyboardInterrupt:
        print("interrupted")
""")

COUNT = textwrap.dedent("""
    import sys, time, seqfarm
    bam, bed = sys.argv[1:]
    print("started", flush=True)
    started = time.perf_counter()
    try:
        seqfarm.count(bam, bed=bed, threads=2)
        print("finished", time.perf_counter() - started)
    except KeyboardInterrupt:
        print("interrupted", time.perf_counter() - started)
""")


def python(script, *args, cwd):
    """Runs `script` in a new interpreter (in `cwd`, away from the source tree's
    `seqfarm` folder, so that the installed package is imported)."""
    return subprocess.Popen([sys.executable, "-c", script, *map(str, args)], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def repeated_fastq(source, copies, path):
    import gzip
    text = gzip.open(source, "rt").read()
    path.write_text(text * copies)
    return path


def test_ctrl_c_stops_align_files_and_leaves_no_output(data, tmp_path):
    prefix = tmp_path / "ref"
    seqfarm.Index.build(data / "index_ref.fa.gz", prefix, threads=2)
    r1 = repeated_fastq(data / "pe_sim_R1.fq.gz", 20, tmp_path / "r1.fq")
    r2 = repeated_fastq(data / "pe_sim_R2.fq.gz", 20, tmp_path / "r2.fq")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    child = python(ALIGN, prefix, r1, r2, out_dir / "pairs.sam", cwd=tmp_path)
    # The alignment is under way once its temporary output exists.
    deadline = time.monotonic() + 60
    while not os.listdir(out_dir) and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert os.listdir(out_dir), "the run wrote no temporary output"
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=60)
    assert stdout.strip() == "interrupted", stderr
    # Had the run gone on to the end, its SAM would have been moved into place.
    assert os.listdir(out_dir) == []


def test_ctrl_c_stops_count_before_it_would_have_ended(data, tmp_path):
    import random
    draw = random.Random(1)
    bed = tmp_path / "regions.bed"
    bed.write_text("".join(f"chrM\t{s}\t{s + 500}\n"
                           for s in (draw.randrange(16000) for _ in range(10000))))
    bam = data / "bam" / "na12878_chrM.bam"
    whole = python(COUNT, bam, bed, cwd=tmp_path)
    stdout, stderr = whole.communicate(timeout=300)
    word, seconds = stdout.split("\n")[1].split()
    assert word == "finished", stderr
    whole_run = float(seconds)
    child = python(COUNT, bam, bed, cwd=tmp_path)
    assert child.stdout.readline().strip() == "started"
    time.sleep(whole_run / 4)
    child.send_signal(signal.SIGINT)
    stdout, stderr = child.communicate(timeout=300)
    word, seconds = stdout.split()
    assert word == "interrupted", stderr
    # The call ended well before the whole count would have.
    assert float(seconds) < 0.75 * whole_run
