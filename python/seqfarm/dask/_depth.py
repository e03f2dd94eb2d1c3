"""``seqfarm.dask.depth``: the command's tasks (stretches of contigs) computed by the
workers, which also compress and write the BGZF outputs and build their CSI indexes;
the client walks the parts' figures (the summary and distributions) and places their
bytes."""

import os

from .. import _native
from .._options import depth_argv
from ._cluster import _write_part, even_runs, map_results, results_in_order, submit_in_order, task_threads, total_threads

#: The BGZF outputs' suffixes, in the order the native steps number them.
_STREAMS = _native.DEPTH_STREAMS
#: The text outputs' suffixes, in the order the walk gives them.
_TEXTS = _native.DEPTH_TEXTS


def depth(client, bam, prefix, window=None, bed=None, *, parts_per_worker=2, force=False, progress=False, **options):
    """Depth of the indexed BAM ``bam`` on the cluster of ``client``, as ``seqfarm depth``
    (mosdepth ``-n --by``) computes it: the mean depth per window of ``window`` bases or
    per region of ``bed``; keyword ``options`` are the command's (``thresholds=[1, 10]``
    or ``T=...``, ``mapq``, ``flag``, ``per_base=True``).

    Writes the files ``PREFIX.regions.bed.gz`` (and ``.csi``), ``.mosdepth.summary.txt``,
    ``.mosdepth.global.dist.txt``, ``.mosdepth.region.dist.txt``, and when asked for
    ``.thresholds.bed.gz`` and ``.per-base.bed.gz`` with their indexes, byte for byte the
    command's files, and returns ``prefix``. Existing files are replaced once the job has
    succeeded, as the command (and mosdepth) replaces them; none may be an input.

    The workers read the BAM and the BED from a shared filesystem, and write the BGZF
    outputs and their indexes into temporary files beside them. The client learns each
    part's figures (a few numbers per contig and the depth distributions), the per-base
    runs at its edges and its sizes; the blocks that two parts share are compressed by a
    worker from both parts' pieces.
    """
    argv = depth_argv(bam, prefix, window, bed, {"force": force, **options})
    outputs = _native.PartsOutput(argv)
    try:
        _run(client, argv, outputs, parts_per_worker, progress)
    except BaseException:
        outputs.discard()
        raise
    outputs.commit()
    return prefix


def _tasks(argv, task_bytes, first, last):
    """Runs on a worker: tasks ``first..last`` of the plan, on one thread of the worker."""
    return _native.depth_tasks(argv, task_bytes, first, last, task_threads())


def _summary(part):
    return _native.depth_part_summary(part)


def _compress(part, plan):
    return _native.depth_compress(part, plan)


def _inner_sizes(compressed):
    return _native.depth_inner_sizes(compressed)


def _pieces(compressed):
    return _native.depth_pieces(compressed)


def _seam(stream, block, header, pieces):
    return _native.depth_seam(stream, block, header, pieces)


def _write(compressed, paths, offsets):
    return _native.depth_write(compressed, paths, offsets)


def _index(argv, stream, path, groups):
    return _native.depth_index(argv, stream, path, groups)


def _run(client, argv, outputs, parts_per_worker, progress):
    """The job's steps (see ``seqfarm::api::parts::depth``); every future is cancelled
    if one fails, so that no write lands in a later job's file."""
    submitted = []
    try:
        walk = _native.DepthWalk(argv)
        parts = total_threads(client) * parts_per_worker
        task_bytes, tasks = walk.plan(parts)
        arguments = [(argv, task_bytes, a, b) for a, b in even_runs(tasks, parts)]
        results = submit_in_order(client, _tasks, arguments, "depth", progress)
        summaries = map_results(client, _summary, results, "summary")
        submitted += results + summaries
        for _, known in results_in_order(client, summaries):
            for summary in known:
                walk.add(summary)
        layout = walk.finish()
        compressed = map_results(client, _compress, results, "compress", layout["plans"])
        inner = map_results(client, _inner_sizes, compressed, "inner")
        pieces = map_results(client, _pieces, compressed, "pieces")
        submitted += compressed + inner + pieces
        for future in results + summaries:
            future.release()
        written = [s for s, w in enumerate(layout["written"]) if w]
        paths = [outputs.temporary_path(_STREAMS[s]) if w else None for s, w in enumerate(layout["written"])]
        seams = {}
        for s in written:
            seams[s] = [
                client.submit(
                    _seam, s, block, layout["headers"][s], [pieces[k] for k in owners],
                    key=f"seqfarm-depth-seam-{s}-{block}-{os.urandom(4).hex()}", pure=False,
                )
                for block, owners in layout["seams"][s]
            ]
            submitted += seams[s]
        # Every size the placement needs, fetched together.
        lengths = {s: client.map(len, seams[s], pure=False) for s in written}
        inner_sizes, seam_sizes = client.gather([inner, lengths])
        offsets = [[None] * len(_STREAMS) for _ in compressed]
        writes = []
        for s in written:
            placed, seam_offsets, eof = walk.place(s, [sizes[s] for sizes in inner_sizes], seam_sizes[s])
            for k, part_offsets in enumerate(placed):
                offsets[k][s] = part_offsets
            n = len(seams[s])
            writes += map_results(client, _write_part, seams[s], "write", [paths[s]] * n, seam_offsets, retries=3)
            _native.write_at(paths[s], eof, _native.BGZF_EOF)
        groups = map_results(client, _write, compressed, "write", [paths] * len(compressed), offsets, retries=3)
        submitted += writes + groups
        indexes = [
            client.submit(
                _index, argv, s, outputs.temporary_path(_STREAMS[s] + ".csi"), groups,
                key=f"seqfarm-depth-index-{s}-{os.urandom(4).hex()}", pure=False, retries=3,
            )
            for s in written
        ]
        submitted += indexes
        client.gather(writes + indexes)
        for suffix, text in zip(_TEXTS, layout["texts"]):
            outputs.write(text.encode(), suffix)
    except BaseException:
        client.cancel(submitted)
        raise
