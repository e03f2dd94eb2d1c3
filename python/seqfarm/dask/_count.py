"""``seqfarm.dask.count``: the command's tasks (consecutive regions) counted by the
workers, the rows put together in region order."""

import os

from .. import _native
from .._options import option_argv
from ..tables import count_columns_frame, path_list
from ._cluster import submit_in_order, task_threads, total_threads, whole_output, write_parts


def count_argv(bams, bed, window, out, options):
    """The ``seqfarm count`` arguments (without the program name) of a job; ``out``:
    the output file (``None``: standard output)."""
    argv = ["count"]
    if bed is not None:
        argv += ["--bed", os.fspath(bed)]
    if window is not None:
        argv += ["--window", str(window)]
    if out is not None:
        argv += ["-o", os.fspath(out)]
    return argv + option_argv(options, "count") + ["--"] + path_list(bams)


def count(
    client,
    bams,
    bed=None,
    window=None,
    out=None,
    *,
    parts_per_worker=2,
    force=False,
    progress=False,
    **options,
):
    """Reads per region of ``bed`` (or per window of ``window`` bases) in each BAM of
    ``bams`` on the cluster of ``client``, as ``seqfarm count`` counts them (keyword
    ``options``: ``min_map_quality=20``, ``duplicates=True``, ...).

    Writes the file ``out`` (byte for byte the command's output) and returns its path,
    or, without ``out``, returns the ``pandas.DataFrame`` :func:`seqfarm.count` returns.
    An existing ``out`` is replaced once the job has succeeded, as ``seqfarm count``
    replaces it (``force`` is accepted, as ``--force`` is, and changes nothing); ``out``
    must not be one of the BAMs, their indexes or the BED, which is refused before any
    part runs.

    The BAMs and the BED are read by the workers from a shared filesystem; a part gets
    a task range and reads only its own lines of the BED (a BED compressed as one gzip
    stream from the access points of the index the client keeps beside it,
    ``NAME.sfzi``); its rows are written into ``out``'s temporary file (beside ``out``) by
    its worker, the client learning only their size, or without ``out`` come back as
    columns.
    """
    argv = count_argv(bams, bed, window, out, {"force": force, **options})
    if out is None:
        futures = _submit(client, argv, parts_per_worker, progress, columns=True)
        return count_columns_frame([f.result() for f in futures], path_list(bams))
    with whole_output(argv) as output:
        write_parts(client, _submit(client, argv, parts_per_worker, progress, columns=False), output, b"", b"")
    return out


def _submit(client, argv, parts_per_worker, progress, columns):
    """The futures of the job's parts, in region order (their rows as text, or with
    ``columns`` as columns)."""
    task_bytes, parts = _native.count_plan(argv, total_threads(client) * parts_per_worker)
    arguments = [(argv, task_bytes, first, last, start, columns) for first, last, start in parts]
    return submit_in_order(client, _tasks, arguments, "count", progress)


def _tasks(argv, task_bytes, first, last, start, columns):
    """Runs on a worker: the rows of tasks ``first..last`` of the plan, the regions read
    from the part's ``start``, on one thread of the worker (as text, or with ``columns``
    as a dict of columns)."""
    return _native.count_tasks(argv, task_bytes, first, last, start, task_threads(), columns)
