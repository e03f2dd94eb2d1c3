"""``seqfarm.dask.count``: the command's tasks (consecutive regions) counted by the
workers, the rows put together in region order."""

import os

from .. import _native
from .._options import option_argv
from ..tables import count_frame, path_list
from ._cluster import even_runs, region_tasks, submit_in_order, total_threads, whole_output


def count_argv(bams, bed, window, options):
    """The ``seqfarm count`` arguments (without the program name) of a job."""
    argv = ["count"]
    if bed is not None:
        argv += ["--bed", os.fspath(bed)]
    if window is not None:
        argv += ["--window", str(window)]
    return argv + option_argv(options) + path_list(bams)


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

    The BAMs and the BED are read by the workers from a shared filesystem; a part sends
    a task range out and its rows (text) back.
    """
    argv = count_argv(bams, bed, window, options)
    parts = total_threads(client) * parts_per_worker
    task_bytes, tasks = _native.region_plan(argv, parts)
    arguments = [(argv, task_bytes, a, b) for a, b in even_runs(tasks, parts)]
    futures = submit_in_order(client, region_tasks, arguments, "count", progress)
    if out is None:
        return count_frame(b"".join(f.result() for f in futures), path_list(bams))
    with whole_output(out, force) as output:
        for future in futures:
            output.write(future.result())
            future.release()
    return out
