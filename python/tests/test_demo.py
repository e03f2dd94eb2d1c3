"""python/examples/demo.py as demo.sh runs it, on the index of tests/data/index_ref.fa.gz."""

import subprocess
import sys
from pathlib import Path

DEMO = Path(__file__).resolve().parents[2] / "python" / "examples" / "demo.py"


def test_the_demo_matches_and_stops_its_cluster_quietly(data, sim_index, tmp_path):
    """The Dask alignment is the in-process one, and nothing reaches standard error: no
    warning or traceback from the cluster's workers and scheduler as they stop."""
    done = subprocess.run(
        [sys.executable, DEMO, sim_index, data, tmp_path],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "Dask output identical to the in-process one: True"
    assert done.stderr == ""
