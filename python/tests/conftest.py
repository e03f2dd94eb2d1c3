"""Shared fixtures: the repository's test data and the `seqfarm` binary the Python
results are compared with (``SEQFARM_BIN``, else target/release/seqfarm)."""

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def seqfarm_binary():
    path = Path(os.environ.get("SEQFARM_BIN", REPO / "target" / "release" / "seqfarm"))
    if not path.is_file():
        raise RuntimeError(f"{path}: no seqfarm binary (build it with cargo build --release)")
    return path


@pytest.fixture(scope="session")
def data():
    """The directory of the repository's bundled test data."""
    return DATA


@pytest.fixture(scope="session")
def cli():
    """Runs the seqfarm binary with the given arguments (its name given as ``seqfarm``,
    as in ``@PG CL:`` lines) and returns the finished process."""

    def run(*args, check=True):
        done = subprocess.run(
            ["seqfarm", *map(str, args)],
            executable=str(seqfarm_binary()),
            capture_output=True,
            check=False,
        )
        if check and done.returncode != 0:
            raise AssertionError(f"seqfarm {' '.join(map(str, args))}: {done.stderr.decode()}")
        return done

    return run



def start_local_cluster(silence_logs=40):
    """A LocalCluster of 2 single-threaded worker processes (with nannies), over TCP on
    127.0.0.1, and a client of it (a context manager yielding the client)."""
    import contextlib

    import distributed

    @contextlib.contextmanager
    def started():
        with distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            protocol="tcp",
            dashboard_address=":0",
            silence_logs=silence_logs,
        ) as cluster, distributed.Client(cluster) as client:
            yield client

    return started()


@pytest.fixture(scope="session")
def dask_client():
    """A client of a local cluster (see :func:`start_local_cluster`) shared by the tests
    of a session."""
    with start_local_cluster() as client:
        yield client


@pytest.fixture(scope="session")
def local_cluster():
    """Starts a cluster of its own for a test (``with local_cluster() as client``)."""
    return start_local_cluster


@pytest.fixture(scope="session")
def sim_index(tmp_path_factory, cli):
    """The index of tests/data/index_ref.fa.gz (the reference of the pe_sim pairs and of
    align_reads_100), as a prefix."""
    prefix = tmp_path_factory.mktemp("index") / "index_ref"
    cli("index", "-t", "2", "-o", prefix, DATA / "index_ref.fa.gz")
    return prefix
