"""What every job needs from the cluster: its workers' threads, parts submitted as
futures, and outputs written whole (a temporary file renamed at the end)."""

import os
from contextlib import contextmanager

from .. import _native


def worker_threads(client):
    """Threads of every worker of the cluster, by worker address."""
    return {address: info["nthreads"] for address, info in client.scheduler_info()["workers"].items()}


def total_threads(client):
    """Threads of all the workers together (at least 1)."""
    return max(1, sum(worker_threads(client).values()))


def this_worker_threads():
    """Threads of the worker running the calling task (None outside a worker: one per core)."""
    try:
        from distributed import get_worker

        return get_worker().state.nthreads
    except (ImportError, ValueError, AttributeError):
        return None


def even_runs(n, parts):
    """`(first, last)` bounds cutting ``range(n)`` into at most ``parts`` runs of
    consecutive items, as even as possible."""
    parts = max(1, min(parts, n))
    bounds = [n * i // parts for i in range(parts + 1)]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def submit_in_order(client, function, argument_lists, name, show_progress=False):
    """Futures of ``function(*arguments)`` for each list of arguments, in that order; Dask
    names them ``seqfarm-<name>-<number>`` (dashboard) and recomputes the lost ones."""
    futures = [
        client.submit(function, *arguments, key=f"seqfarm-{name}-{i}-{os.urandom(4).hex()}", pure=False)
        for i, arguments in enumerate(argument_lists)
    ]
    if show_progress:
        from distributed import progress

        progress(futures)
    return futures


@contextmanager
def whole_output(argv):
    """The output file of the command line ``argv`` (``align``'s ``-S``/``-o``,
    ``count``'s ``-o``), opened as the command opens it, before any part runs: an
    existing file is replaced, as the command (and the tool it stands in for) replaces
    it; one of the run's inputs, or another of its outputs, is refused. The block writes
    bytes to it (``write``); they go to a temporary file beside it, renamed onto it once
    the block ends without error (removed otherwise, an existing file left as it was)."""
    output = _native.PartsOutput(argv)
    try:
        yield output
    except BaseException:
        output.discard()
        raise
    output.commit()


def region_tasks(argv, task_bytes, first, last, columns=False):
    """Runs on a worker: tasks ``first..last`` of a ``count`` or ``snp-pileup`` plan, on
    the worker's threads (``count``'s rows, or ``snp-pileup``'s findings, as bytes;
    with ``columns``, ``count``'s rows as a dict of columns)."""
    threads = this_worker_threads()
    return _native.region_tasks(argv, task_bytes, first, last, threads, columns)
