"""``seqfarm.dask.search``: database chunks scanned by the workers, each part's best
hits merged on the client in the command's order and written as the command writes
them."""

import os

from .. import _native
from .._options import option_argv
from ..tables import search_results_frame
from ._cluster import even_runs, submit_in_order, task_threads, total_threads


def search_argv(queries, database, out, force, options):
    """The ``seqfarm search`` arguments (without the program name) of a job; ``out``:
    the output file (``None``: the results are kept in memory)."""
    argv = ["search", os.fspath(queries), os.fspath(database)]
    if out is not None:
        argv += ["-o", os.fspath(out)]
    if force:
        argv.append("--force")
    return argv + option_argv(options, "search")


def _scan_chunks(argv, first, last):
    """Runs on a worker: sizes, best hits and score lines of chunks ``first..last``."""
    return _native.search_chunks(argv, first, last, task_threads())


def search(
    client,
    queries,
    database,
    out=None,
    *,
    parts_per_worker=4,
    force=False,
    progress=False,
    **options,
):
    """Smith-Waterman search of ``queries`` against ``database`` (FASTA files) on the
    cluster of ``client``, as ``seqfarm search`` does it (keyword ``options``:
    ``top=5``, ``matrix="BLOSUM50"``, ``scores_only=True``, ...).

    Writes the file ``out`` (byte for byte the command's BLAST tabular output) and
    returns its path, or, without ``out``, returns the ``pandas.DataFrame``
    :func:`seqfarm.search` returns. An existing ``out`` is replaced once the job has
    succeeded, as ``seqfarm search`` (and parasail) replace it (``force`` is accepted, as
    ``--force`` is, and changes nothing); ``out`` must not be the queries, the database
    or a matrix file, which is refused before any part runs.

    Each part scans a range of the database's chunks of about 1 MB (its workers read the
    database from a shared filesystem, inflating it up to the part's last chunk); per
    part, only the chunk range goes out and each query's best hits (name and residues)
    come back. The hits are aligned again with traceback on the client, whose E-values
    need the whole database's size.
    """
    argv = search_argv(queries, database, out, force, options)
    chunks = _native.search_plan(argv)
    parts = total_threads(client) * parts_per_worker
    arguments = [(argv, a, b) for a, b in even_runs(chunks, parts)]
    futures = submit_in_order(client, _scan_chunks, arguments, "search", progress)
    results = [f.result() for f in futures]
    kept = _native.search_finish(argv, results, None, out is None)
    return out if out is not None else search_results_frame(kept)
