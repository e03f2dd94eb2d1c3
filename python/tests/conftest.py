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
    """Runs the seqfarm binary with the given arguments and returns its standard output."""

    def run(*args, check=True):
        done = subprocess.run(
            [str(seqfarm_binary()), *map(str, args)], capture_output=True, check=False
        )
        if check and done.returncode != 0:
            raise AssertionError(f"seqfarm {' '.join(map(str, args))}: {done.stderr.decode()}")
        return done

    return run
