"""seqfarm.dask against a scheduler and workers started as the ``dask scheduler`` and
``dask worker`` programs (subprocesses on free ports of 127.0.0.1)."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import seqfarm.dask

import distributed  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cli_cluster_client():
    """A client of a scheduler and two single-threaded worker processes run by the
    ``dask`` command-line program; all stopped afterwards."""
    dask = Path(sys.executable).with_name("dask")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    started = [
        subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            **quiet,
        )
    ]
    try:
        started.append(
            subprocess.Popen(
                [dask, "worker", address, "--nworkers", "2", "--nthreads", "1",
                 "--host", "127.0.0.1", "--no-dashboard"],
                **quiet,
            )
        )
        with distributed.Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=60)
            yield client
    finally:
        for process in reversed(started):
            process.terminate()
        for process in reversed(started):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def test_align_and_flagstat_on_a_command_line_cluster(cli_cluster_client, cli, data, sim_index, tmp_path):
    client = cli_cluster_client
    assert len(client.scheduler_info()["workers"]) == 2
    pids = set(client.run(os.getpid).values())
    assert os.getpid() not in pids and len(pids) == 2
    reads = [data / "pe_sim_R1.fq.gz", data / "pe_sim_R2.fq.gz"]
    out = tmp_path / "pairs.bam"
    done = cli("align", "-x", sim_index, "-1", reads[0], "-2", reads[1], "-o", out)
    expected = out.read_bytes()
    out.unlink()
    summary = seqfarm.dask.align(client, sim_index, *reads, out=out, tasks_per_part=1, quiet=True)
    assert out.read_bytes() == expected
    assert summary == done.stderr.decode()
    bam = data / "bam" / "chm1.bam"
    assert seqfarm.dask.flagstat(client, bam) == json.loads(cli("flagstat", "-O", "json", bam).stdout)
