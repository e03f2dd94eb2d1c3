"""seqfarm.dask against a scheduler and workers started as the ``dask scheduler`` and
``dask worker`` programs (subprocesses on free ports of 127.0.0.1)."""

import json
import os
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

import seqfarm.dask
from read_copies import DATA_PAIRS, compressed_copies, plain_copies

import distributed  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(process):
    """Stops a ``dask`` program (SIGTERM, SIGKILL after 30 s) and waits for its exit."""
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def command_line_cluster(log=subprocess.DEVNULL):
    """The address of a scheduler (its HTTP server on a free port) and two single-threaded
    worker processes run by the ``dask`` command-line program, which log warnings and
    errors (as a LocalCluster's do) to ``log``. On leaving, the workers stop first and
    the scheduler once they have exited: workers whose scheduler stops with them hang
    in closing, are killed after 8 s, and log failed heartbeats ("Failed to communicate
    with scheduler during heartbeat")."""
    dask = Path(sys.executable).with_name("dask")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    output = {"stdout": subprocess.DEVNULL, "stderr": log,
              "env": {**os.environ, "DASK_LOGGING__DISTRIBUTED": "warning"}}
    scheduler = subprocess.Popen(
        [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard",
         "--dashboard-address", "127.0.0.1:0"],
        **output,
    )
    try:
        workers = subprocess.Popen(
            [dask, "worker", address, "--nworkers", "2", "--nthreads", "1",
             "--host", "127.0.0.1", "--no-dashboard"],
            **output,
        )
        try:
            yield address
        finally:
            stop(workers)
    finally:
        stop(scheduler)


@contextmanager
def command_line_cluster_client(log=subprocess.DEVNULL):
    """A client of a :func:`command_line_cluster` once both workers are up; the client is
    closed before the workers and the scheduler stop."""
    with command_line_cluster(log) as address:
        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            yield client


@pytest.fixture(scope="module")
def cli_cluster_client():
    """A client of a command-line cluster shared by the module's tests."""
    with command_line_cluster_client() as client:
        yield client


@pytest.mark.parametrize("how", ["plain", "gzip", "bgzf"])
def test_align_and_flagstat_on_a_command_line_cluster(cli_cluster_client, cli, data, sim_index, tmp_path, how):
    client = cli_cluster_client
    assert len(client.scheduler_info()["workers"]) == 2
    pids = set(client.run(os.getpid).values())
    assert os.getpid() not in pids and len(pids) == 2
    if how == "plain":
        reads = plain_copies(tmp_path, data, DATA_PAIRS)
    else:
        reads = compressed_copies(tmp_path, data, DATA_PAIRS, how)
    out = tmp_path / "pairs.bam"
    done = cli("align", "-x", sim_index, "-1", reads[0], "-2", reads[1], "-o", out)
    expected = out.read_bytes()
    out.unlink()
    summary = seqfarm.dask.align(client, sim_index, *reads, out=out, tasks_per_part=1, quiet=True)
    assert out.read_bytes() == expected
    assert summary == done.stderr.decode()
    cli("align", "--sort", "-x", sim_index, "-1", reads[0], "-2", reads[1], "-o", out)
    expected, expected_index = out.read_bytes(), (tmp_path / "pairs.bam.bai").read_bytes()
    out.unlink()
    (tmp_path / "pairs.bam.bai").unlink()
    seqfarm.dask.align(client, sim_index, *reads, out=out, sort=True, quiet=True)
    assert out.read_bytes() == expected
    assert (tmp_path / "pairs.bam.bai").read_bytes() == expected_index
    bam = data / "bam" / "chm1.bam"
    assert seqfarm.dask.flagstat(client, bam) == json.loads(cli("flagstat", "-O", "json", bam).stdout)


def test_a_command_line_cluster_stops_without_warnings_or_tracebacks(cli, data, tmp_path):
    """After a job, the scheduler and the workers log nothing as they stop."""
    bam = data / "bam" / "chm1.bam"
    expected = json.loads(cli("flagstat", "-O", "json", bam).stdout)
    log_path = tmp_path / "dask.log"
    with open(log_path, "w") as log:
        with command_line_cluster_client(log) as client:
            assert seqfarm.dask.flagstat(client, bam) == expected
    assert log_path.read_text() == ""


def test_region_jobs_and_search_on_a_command_line_cluster(cli_cluster_client, cli, data, tmp_path):
    client = cli_cluster_client
    d = data / "snp-pileup"
    vcf, bams = d / "sites_slice.vcf.gz", [d / "normal_slice.bam", d / "tumor_slice.bam"]
    counts = tmp_path / "counts.tsv"
    seqfarm.dask.count(client, bams, window=1000, out=counts)
    assert counts.read_bytes() == cli("count", "--window", 1000, *bams).stdout
    pileup = tmp_path / "dask.csv"
    seqfarm.dask.snp_pileup(client, vcf, bams, out=pileup, q=15, Q=20, task_span=5000)
    cli("snp-pileup", "-q15", "-Q20", vcf, tmp_path / "cli.csv", *bams)
    assert pileup.read_bytes() == (tmp_path / "cli.csv").read_bytes()
    bam = data / "bam" / "chm1.bam"
    seqfarm.dask.depth(client, bam, tmp_path / "dask", window=20000, thresholds=[1], per_base=True)
    cli("depth", "--window", 20000, "-T", 1, "--per-base", "-o", tmp_path / "cli", bam)
    for suffix in (".regions.bed.gz", ".thresholds.bed.gz.csi", ".per-base.bed.gz", ".mosdepth.summary.txt"):
        assert (tmp_path / f"dask{suffix}").read_bytes() == (tmp_path / f"cli{suffix}").read_bytes()
    queries, database = data / "sw_q10.fa", data / "sw_db1500.fa.gz"
    hits = tmp_path / "hits.tsv"
    seqfarm.dask.search(client, queries, database, hits, chunk_size=20000, top=3)
    assert hits.read_bytes() == cli("search", queries, database, "--chunk-size", 20000, "--top", 3).stdout
