"""``seqfarm.dask.flagstat``: the groups of the command's work plan over an indexed BAM
counted by the workers, the counts added up."""

import json
import os

from .. import _native
from ._cluster import even_runs, submit_in_order, task_threads, total_threads


def _count_groups(path, unit, first, last):
    """Runs on a worker: the flag counts of groups ``first..last`` of the plan."""
    return _native.flagstat_groups(path, unit, first, last, task_threads())


def flagstat(client, bam, format="json", *, parts_per_worker=2, progress=False):
    """FLAG statistics of the BAM file ``bam`` (indexed or not) or CRAM on the cluster
    of ``client``: with ``format="json"`` a dict as :func:`seqfarm.flagstat` returns it,
    with ``"default"`` or ``"tsv"`` the text ``seqfarm flagstat -O <format>`` prints.

    The BAM's ranges (from its index; the unmapped tail and unindexed stretches as
    whole runs of blocks), or the CRAM's runs of containers, are counted by the
    workers, which read the file from a shared filesystem; only a range's bounds go out
    and 32 numbers come back per part.
    """
    path = os.fspath(bam)
    parts = total_threads(client) * parts_per_worker
    unit, groups = _native.flagstat_plan(path, parts)
    runs = even_runs(groups, parts)
    futures = submit_in_order(
        client, _count_groups, [(path, unit, a, b) for a, b in runs], "flagstat", progress
    )
    counts = [0] * 32
    for future in futures:
        counts = [a + b for a, b in zip(counts, future.result())]
    text = _native.flagstat_render(counts, format)
    return json.loads(text) if format == "json" else text
