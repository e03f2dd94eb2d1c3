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


def task_threads():
    """Threads a part may use: one on a Dask worker, which runs as many tasks at once
    as it has threads (each its own part, the worker's index shared by them); None
    outside a worker (one per core). Every part asks, so on a worker this is also where
    the process is set to keep the memory a part frees for its next part, rather than
    give it back and fault it in again (``_native.keep_freed_memory``, once)."""
    try:
        from distributed import get_worker

        get_worker()
    except (ImportError, ValueError):
        return None
    _native.keep_freed_memory()
    return 1


def even_runs(n, parts):
    """`(first, last)` bounds cutting ``range(n)`` into at most ``parts`` runs of
    consecutive items, as even as possible."""
    parts = max(1, min(parts, n))
    bounds = [n * i // parts for i in range(parts + 1)]
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def submit_in_order(client, function, argument_lists, name, show_progress=False):
    """Futures of ``function(*arguments)`` for each list of arguments, in that order; Dask
    names them ``seqfarm-<name>-<number>`` (dashboard) and recomputes the lost ones."""
    argument_lists = list(argument_lists)
    if not argument_lists:
        return []
    assert len({len(arguments) for arguments in argument_lists}) == 1, "lists of arguments of unequal lengths"
    # One graph for all of them: a submission per task costs the client and the
    # scheduler about three times as much.
    keys = [f"seqfarm-{name}-{i}-{os.urandom(4).hex()}" for i in range(len(argument_lists))]
    futures = client.map(function, *zip(*argument_lists), key=keys, pure=False)
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


def _bytes_of(result):
    """A part's output bytes: the result itself, or its first item (``(bytes, counts)``)."""
    return result[0] if isinstance(result, tuple) else result


def _part_sizes(counted, *results):
    """Runs on the worker holding parts' results: each one's byte count and, when
    ``counted``, its counts (``None`` for a result of bytes alone, and for all without
    ``counted``: what follows the bytes then stays on the worker), all the client learns
    of them."""
    return [(len(_bytes_of(r)), r[1] if counted and isinstance(r, tuple) else None) for r in results]


def _write_part(result, path, offset):
    """Runs on the worker holding a part's result: writes its bytes at ``offset`` of the
    job's temporary file ``path`` on the shared filesystem."""
    return _native.write_at(path, offset, _bytes_of(result))


def _write_run(path, offsets, *results):
    """Runs on the worker holding parts' results: writes each one's bytes at its offset
    of ``path``."""
    return sum(_write_part(r, path, offset) for r, offset in zip(results, offsets))


def _on_holders(client, function, futures, name, first=lambda group: (), **options):
    """Yields ``(group, future)`` per worker holding some of ``futures``' results: the
    group (those futures, in their order) and the future of ``function(*first(group),
    *results)``, run on that worker if it still can: the scheduler handles one task for
    all of a worker's parts rather than one per part."""
    holders = client.who_has(futures)
    groups = {}
    for future in futures:
        groups.setdefault((holders.get(future.key) or [None])[0], []).append(future)
    for where, group in groups.items():
        placed = {} if where is None else {"workers": [where], "allow_other_workers": True}
        key = f"seqfarm-{name}-{os.urandom(6).hex()}"
        yield group, client.submit(function, *first(group), *group, key=key, pure=False, **placed, **options)


def map_results(client, function, futures, suffix, *more, **options):
    """Futures of ``function(result, *more)`` for each of ``futures``' results, run
    where the result is, named after its future."""
    return client.map(function, futures, *more, key=[f"{f.key}-{suffix}" for f in futures], pure=False, **options)


def results_in_order(client, futures):
    """The results of ``futures`` in order, a run at a time: the next one waited for,
    fetched in one call with those after it already done; yields ``(index of the run's
    first, its results)``."""
    from distributed import wait

    start = 0
    while start < len(futures):
        wait(futures[start])
        end = start + 1
        while end < len(futures) and futures[end].done():
            end += 1
        yield start, client.gather(futures[start:end])
        start = end


def write_parts(client, futures, output, header, trailer, counted=True):
    """Writes ``header``, the parts' bytes (each future's result: bytes, or ``(bytes,
    counts)``, in output order) and ``trailer`` (bytes, or a function giving them once
    the parts are written) into ``output``; returns the parts' counts in order (``None``
    for results of bytes alone, and for all without ``counted``: then what follows the
    bytes in a result never reaches the client) and their offsets in the file.

    With a file on a shared filesystem the parts' bytes never pass through the client:
    it learns each part's size, places it after the parts before it, and the worker
    holding the part writes it there (Dask recomputes a part whose worker died, and a
    write is retried; either writes the same bytes at the same offset). The parts done
    together are sized, and those placed together written, by one task per worker
    holding them. On standard output the client writes the bytes itself."""
    counts, offsets = [], []
    output.write(header)
    path = output.temporary_path()
    if path is None:
        offset = len(header)
        for future in futures:
            result = future.result()
            future.release()
            [(length, part_counts)] = _part_sizes(counted, result)
            offsets.append(offset)
            offset += length
            output.write(_bytes_of(result))
            counts.append(part_counts)
        output.write(trailer() if callable(trailer) else trailer)
        return counts, offsets
    output.flush()
    from distributed import as_completed

    offset = len(header)
    number = {future.key: i for i, future in enumerate(futures)}
    sized = {}  # a sizing task's key: its parts' numbers
    known = {}  # a part's number: its size and counts, until it is placed
    sizings, writes = [], []
    placed = 0
    done = as_completed(futures)

    def counting(group):
        """The first argument of the sizing of ``group``: whether the client wants the
        parts' counts."""
        return (counted,)

    def placing(group):
        """The first arguments of the write of ``group``: the file and their offsets."""
        return path, [offsets[number[f.key]] for f in group]

    try:
        for batch in done.batches():
            parts = [f for f in batch if f.key in number]
            for failed in (f for f in parts if f.status == "error"):
                failed.result()
            for group, sizing in _on_holders(client, _part_sizes, parts, "size", counting) if parts else ():
                sized[sizing.key] = [number[f.key] for f in group]
                sizings.append(sizing)
                done.add(sizing)
            answered = [f for f in batch if f.key in sized]
            for sizing, sizes in zip(answered, client.gather(answered)):
                known.update(zip(sized.pop(sizing.key), sizes))
            start = placed
            while placed in known:
                length, part_counts = known.pop(placed)
                offsets.append(offset)
                offset += length
                counts.append(part_counts)
                placed += 1
            if placed > start:
                run = futures[start:placed]
                writes += [w for _, w in _on_holders(client, _write_run, run, "write", placing, retries=3)]
                # The parts' bytes stay on their workers until their writes are done.
                for future in run:
                    future.release()
        if placed < len(futures):
            raise RuntimeError(f"{len(futures) - placed} of the job's parts never came back")
        client.gather(writes)
    except BaseException:
        # No write may land in a later job's file of the same name.
        client.cancel(futures[placed:] + sizings + writes)
        raise
    _native.write_at(path, offset, trailer() if callable(trailer) else trailer)
    return counts, offsets
