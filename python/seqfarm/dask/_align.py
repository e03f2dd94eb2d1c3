"""``seqfarm.dask.align``: reads cut at the command's task boundaries, parts aligned by
the workers, the output written in input order."""

import collections
import operator
import os
import shutil
import sys
import tempfile

from .. import _native
from .._options import option_argv
from ..align import align_arguments
from ._cluster import (
    even_runs,
    map_results,
    results_in_order,
    submit_in_order,
    task_threads,
    total_threads,
    whole_output,
    write_parts,
)


def align_argv(index, r1, r2, out, options):
    """The ``seqfarm align`` arguments (without the program name) of a job: those
    ``Aligner(index, **options).align_files(r1, r2, out)`` runs."""
    return align_arguments(index, r1, r2, out, option_argv(options, "align"))


#: Bytes of a read file's stream each worker counts the records of.
RANGE_BYTES = 16 << 20
#: Inflated bytes between the access points of a gzip read file's index.
GZIP_SPAN = 4 << 20


def plan_by_ranges(client, argv, parts, tasks_per_part=None):
    """The job's parts found without the client reading the reads, or None when the
    workers cannot read them at an offset (standard input, bzip2): the workers index
    each gzip file (once: the index is kept beside it, with the file's records when the
    pass that made it inflated the file), count the records of each range of every
    other file, and the counts place the parts: ``parts`` of them, of as equal numbers
    of tasks as can be (more where a part would span read sources), or parts of
    ``tasks_per_part`` tasks."""
    files = _native.align_read_files(argv)
    if files is None or any(kind == "other" for _, kind, _ in files):
        return None
    packed = [path for path, kind, _ in files if kind == "gzip"]
    indexing = submit_in_order(client, _native.gzip_access, [(argv, p, GZIP_SPAN) for p in packed], "gzip-index")
    try:
        indexed = {path: future.result() for path, future in zip(packed, indexing)}
    except _native.Error:
        # No index could be kept for a gzip file (nowhere writable), or it cannot be
        # inflated: the client reads it (and reports its errors as the command does);
        # its reads travel with the parts.
        return None
    access = [indexed[path][0] if kind == "gzip" else ("plain", length, None) for path, kind, length in files]
    known = [counted for _, counted in indexed.values() if counted is not None]
    whole = {range_[0] for range_, _ in known}
    ranges = [r for r in _native.align_ranges(argv, access, RANGE_BYTES) if r[0] not in whole]
    counted = _count_ranges(client, argv, access, ranges, known)
    return _native.align_parts_by_range(argv, access, counted, parts, tasks_per_part)


def _count_ranges(client, argv, access, ranges, known):
    """The records of as many ranges as place the job's parts, ``(range, count)``:
    ``known`` (files counted whole already) then those of ``ranges`` in their order.
    The files are counted from their starts together (the first range of each, then
    the second...), and the counting stops, the ranges not yet counted cancelled, once
    the counts suffice (every file counted, or ``-u``'s last read passed)."""
    # Each range's place in its file; the ranges are in file order.
    seen = collections.Counter()
    place = []
    for path, *_ in ranges:
        place.append(seen[path])
        seen[path] += 1
    order = sorted(range(len(ranges)), key=lambda i: (place[i], i))
    futures = submit_in_order(client, _native.align_count_range, [(argv, ranges[i]) for i in order], "count-range")
    counts = {}

    def counted():
        """The ranges counted so far with their counts: ``known``, then those of
        ``ranges`` in their order."""
        return known + [(ranges[i], counts[i]) for i in sorted(counts)]

    # Asked whenever the counts have doubled: a job counting every range asks a few
    # times, not once per range.
    ask_at = 1
    try:
        for start, results in results_in_order(client, futures):
            counts.update(zip(order[start:], results))
            if ask_at <= len(counts) < len(order):
                ask_at = 2 * len(counts)
                if _native.align_counts_suffice(argv, access, counted()):
                    break
        return counted()
    finally:
        client.cancel(futures[len(counts) :])


def plan_parts(argv, parts):
    """The job's parts read by the client (reads the workers cannot read at an offset):
    the command's tasks, planned natively, grouped into about ``parts`` runs of
    consecutive tasks of the same read source."""
    planner = _native.AlignPlanner(argv, 1)
    tasks = []
    while (task := planner.next_part()) is not None:
        tasks.append(task)
    grouped = []
    for first, last in even_runs(len(tasks), parts):
        run = [tasks[first]]
        for task in tasks[first + 1 : last]:
            if task[0] != run[-1][0]:
                grouped.append(run)
                run = []
            run.append(task)
        grouped.append(run)
    return [_join(run) for run in grouped]


def _join(tasks):
    """One part made of consecutive tasks of one source."""
    first = tasks[0]
    files = []
    for i, (path, offset, point, skip, data) in enumerate(first[5]):
        if data is not None:
            data = b"".join(t[5][i][4] for t in tasks)
        files.append((path, offset, point, skip, data))
    fragments = sum(t[4] for t in tasks)
    return (first[0], first[1], first[2], first[3], fragments, files)


def _align_part(argv, part):
    """Runs on a worker: the part's output bytes and summary counts."""
    return _native.align_part(argv, part, task_threads())


def _align_part_sorted(argv, part, spill_dir):
    """Runs on a worker: the part's records sorted, with the table of where its cells
    lie, into the worker process's spill file in ``spill_dir``; returns where the part's
    spill lies, the bytes of each cell (compressed), the segments of its unplaced records
    and the part's summary counts."""
    return _native.align_part_sorted(argv, part, spill_dir, task_threads())


#: Sorted parts whose cell sizes one task adds up: the client receives a sum per this
#: many parts, not each part's (every part of a large cluster's job holds reads in
#: nearly every cell of the genome).
SIZES_SUMMED = 32


def _sorted_summary(spill_dir, group, results):
    """Runs on a worker: writes where the spills of sorted parts' ``results`` lie as
    group ``group`` of ``spill_dir`` (the merges read it); returns their cell sizes added
    up, and each part's spill file, unplaced segments and counts, all the client learns
    of the parts."""
    _native.align_write_spill_group(spill_dir, group, [r[0] for r in results])
    sizes = _native.align_add_cell_sizes([r[1] for r in results])
    # Each spill file named once: the group's parts share a few of them.
    files = list(dict.fromkeys(r[0][0] for r in results))
    return sizes, files, [(files.index(r[0][0]), *r[2:]) for r in results]


#: Unplaced records each task writes (whole runs of ``UNPLACED_RUN``, where the command
#: starts a block): about 40 MB of 2x150 reads.
UNPLACED_PIECE = 16 * _native.UNPLACED_RUN


def _merge_cells(argv, spill_dir, groups, range_id, lo, hi):
    """Runs on a worker: the BGZF bytes and index entries of cells ``lo..hi`` of range
    ``range_id``, merged from every part's spill in ``spill_dir`` (the parts found in its
    ``groups`` groups, each part's records of the cells in its table), so that a merge is
    sent the range and its cells, not a segment of every part."""
    return _native.align_merge_cells(argv, spill_dir, groups, range_id, lo, hi, task_threads())


def _merge_unplaced(argv, segments, unplaced):
    """Runs on a worker: a piece of the unplaced range (see :func:`_unplaced_pieces`),
    ``unplaced=(skip, records)``, from the parts' ``segments`` (``(spill file, offset,
    length)``): its BGZF bytes and index entries."""
    return _native.align_merge_range(argv, segments, task_threads(), unplaced)


def _unplaced_pieces(segments):
    """The tasks that write the unplaced range, ``(segments, (skip, records))`` each:
    ``segments`` (``(spill file, offset, length, records)`` in the command's order) cut into
    pieces of ``UNPLACED_PIECE`` records, each given the segments that hold its records
    and the records to skip in the first."""
    pieces = []
    total = 0
    starts = []  # the range's record number of each segment's first record
    for *_, records in segments:
        starts.append(total)
        total += records
    i = 0
    for lo in range(0, total, UNPLACED_PIECE):
        hi = min(lo + UNPLACED_PIECE, total)
        while starts[i] + segments[i][3] <= lo:
            i += 1
        j = i
        while j < len(segments) and starts[j] < hi:
            j += 1
        pieces.append(([s[:3] for s in segments[i:j]], (lo - starts[i], hi - lo)))
    return pieces


def _merge_piece_bytes(placed, parts):
    """The bytes of spilled records a merge task is given, ``placed`` bytes of placed
    records from ``parts`` parts: a part's worth, so that there are about as many merges
    as parts (as many as the cluster's threads keep busy), a range holding more than two
    parts' worth cut into pieces of whole cells."""
    return max(placed // max(parts, 1), 1)


def _range_pieces(cell_bytes, piece_bytes):
    """The merges of one genomic range, ``(lo, hi)`` bounds of its cells: the whole
    range, or, when it holds more than twice ``piece_bytes`` (``cell_bytes``: the bytes
    of each of its cells, every part's added up), runs of whole cells of about
    ``piece_bytes`` each (the command starts a block at each cell of a range too), runs
    without records left out."""
    cells = len(cell_bytes)
    if sum(cell_bytes) <= 2 * piece_bytes:
        return [(0, cells)]
    cuts, size = [0], 0
    for j in range(cells):
        size += cell_bytes[j]
        if size >= piece_bytes and j + 1 < cells:
            cuts.append(j + 1)
            size = 0
    cuts.append(cells)
    return [(lo, hi) for lo, hi in zip(cuts, cuts[1:]) if sum(cell_bytes[lo:hi])]


def _sorted_parts(client, futures, spill_dir):
    """What the client learns of the sorted parts (``futures``): the bytes of each cell
    of every range, added up over the parts (``{range: [bytes per cell]}``), each part's
    spill file, unplaced segments and counts, in order, and the number of groups of
    parts whose spills' places are written in ``spill_dir``. The sizes are added up, and
    the places written, by a task per ``SIZES_SUMMED`` parts, on the workers."""
    groups = [futures[first : first + SIZES_SUMMED] for first in range(0, len(futures), SIZES_SUMMED)]
    summaries = []
    try:
        # One submission for them all (some 2,000 on a cluster of 1,000 nodes).
        summaries = submit_in_order(client, _sorted_summary, [(spill_dir, n, group) for n, group in enumerate(groups)], "sort-summary")
        sizes, parts = [], []
        for _, results in results_in_order(client, summaries):
            for summed, files, summary in results:
                sizes.append(summed)
                parts += [(files[k], *rest) for k, *rest in summary]
    except BaseException:
        client.cancel(summaries)
        raise
    cells = {}
    for range_id, cell, size in _native.align_cell_sizes(_native.align_add_cell_sizes(sizes)):
        cells.setdefault(range_id, [0] * _native.RANGE_CELLS)[cell] = size
    return cells, parts, len(summaries)


def _sorted_index(argv, offsets, path, *entries):
    """Runs on a worker: the index from every range's entries and file offset, written
    into the index's temporary file ``path`` on the shared filesystem; its size."""
    index = _native.align_sorted_index(argv, list(zip(offsets, entries)))
    return _native.write_at(path, 0, index)


def _write_sorted(client, argv, parts, output, header, progress):
    """Writes the parts' records sorted by coordinate as ``seqfarm align --sort``
    writes them, with their index; returns the summary counts added up.

    Each part's worker sorts its records into its process's spill file in a directory
    beside the output (on the shared filesystem), grouped by genomic range, followed by
    a table of where each 1 Mbp cell lies; the client learns the bytes of each cell added
    up over the parts (:func:`_sorted_parts`), and a merge opens each worker's spill file
    once, not a file per part. One task per range merges the parts' records of that range
    into its BGZF blocks (the command starts a block at each range), each part's found
    in its table, a range holding more than two parts' worth of records cut into pieces
    of whole cells (where the command starts blocks too); the unplaced reads, which
    need no merging, are written in pieces of ``UNPLACED_PIECE`` records by as many
    tasks. The blocks are placed and written as ``align``'s parts are, and the index is
    built and written by a worker from the ranges' index entries. The spill files are
    removed whatever happens."""
    # A sorted BAM is a file (never standard output), written through a temporary file.
    spill_dir = tempfile.mkdtemp(prefix=".seqfarm-sort-", dir=os.path.dirname(output.temporary_path()))
    futures = []
    try:
        futures = submit_in_order(client, _align_part_sorted, [(argv, part, spill_dir) for part in parts], "align-sort", progress)
        cells, summaries, groups = _sorted_parts(client, futures, spill_dir)
        for future in futures:
            future.release()
        counts = [0] * 10
        for _, _, part_counts in summaries:
            counts = [a + b for a, b in zip(counts, part_counts)]
        # The unplaced range's segments of each strand apart, as the command writes
        # them: forward, then reverse.
        unplaced = ([], [])
        for spill, segments, _ in summaries:
            for reverse, offset, length, records in segments:
                unplaced[reverse].append((spill, offset, length, records))
        placed = sum(sum(sizes) for sizes in cells.values())
        piece_bytes = _merge_piece_bytes(placed, len(parts))
        merges = [(argv, spill_dir, groups, r, lo, hi) for r in sorted(cells) for lo, hi in _range_pieces(cells[r], piece_bytes)]
        pieces = [(argv, *piece) for piece in _unplaced_pieces(unplaced[0] + unplaced[1])]
        merged = submit_in_order(client, _merge_cells, merges, "sort-range", progress)
        merged += submit_in_order(client, _merge_unplaced, pieces, "sort-unplaced", progress)
        # The index entries taken apart where each merge ran: its blocks, written where
        # they are, are freed once written, the entries kept for the index.
        entries = map_results(client, operator.itemgetter(1), merged, "entries")
        futures = merged + entries
        _, offsets = write_parts(client, merged, output, header, _native.align_trailer(argv), counted=False)
        index_path = output.temporary_path("index")
        [index] = submit_in_order(client, _sorted_index, [(argv, offsets, index_path, *entries)], "sorted-index")
        futures = entries + [index]
        index.result()
        return counts
    except BaseException:
        client.cancel(futures)
        raise
    finally:
        shutil.rmtree(spill_dir, ignore_errors=True)


def align(
    client,
    index,
    r1,
    r2=None,
    out="out.bam",
    *,
    parts_per_worker=4,
    tasks_per_part=None,
    force=False,
    quiet=False,
    progress=False,
    **bowtie2_options,
):
    """Aligns ``r1`` (unpaired reads, or first mates with ``r2``) against the index at
    prefix ``index`` on the cluster of ``client``, into ``out`` (BAM when it ends with
    ``.bam``, SAM otherwise); returns the bowtie2 summary (also printed on standard error
    unless ``quiet``).

    The file is byte for byte what ``seqfarm align <options> -x index -1 r1 -2 r2 -o
    out`` writes (and ``Aligner(index, **options).align_files(r1, r2, out)``) (``-U r1`` without ``r2``, ``-S out`` for SAM), ``@PG CL:``
    included: the header's command line is that one, with ``seqfarm`` as the program.
    ``bowtie2_options`` are keyword options (``X=1000``, ``very_sensitive=True``, see
    ``seqfarm._options``); ``--un``/``--al``/``--met*`` are not available here.

    Parts: ``parts_per_worker`` per worker thread, of equal size (each runs on one
    thread of its worker and costs the client, the scheduler and the worker some tens
    of milliseconds: a few per thread keep the workers busy to the end), or
    ``tasks_per_part`` tasks of 1024 reads or pairs each. The index and the read files are read by the workers from
    a shared filesystem: the workers count the records of each range of the files, and
    each part's worker finds its first record from those counts; a gzip file (one
    member or BGZF) is entered at access points kept beside it (``NAME.sfzi``, made by
    one worker in one pass the first time, which also counts a gzip member's records so
    that no job counts its ranges, and reused while the file is unchanged; in
    ``$XDG_CACHE_HOME/seqfarm/gzip-index`` (``~/.cache/...``) when its directory cannot
    be written, which must then be shared by the workers). Reads on standard input or bzip2-compressed are read
    by the client and travel with their parts.
    The workers write the output: each part's bytes go from the worker that made them to
    their place in ``out``'s temporary file (beside ``out``, on the shared filesystem);
    the client writes the header and the last block and learns only the parts' sizes.
    ``progress`` shows Dask's progress bar. With ``sort=True`` the output is what
    ``seqfarm align --sort`` writes, BAM and index byte for byte (see
    :func:`_write_sorted`).

    An existing ``out`` is replaced once the job has succeeded, as ``seqfarm align`` and
    bowtie2 replace their output (``force`` is accepted, as ``--force`` is, and changes
    nothing: it is left out of ``@PG CL:``); ``out`` must not be one of the reads or the
    index, which is refused before any part runs.
    """
    argv = align_argv(index, r1, r2, out, bowtie2_options)
    with whole_output(argv) as output:
        header = _native.align_header(argv)
        wanted = total_threads(client) * parts_per_worker
        parts = plan_by_ranges(client, argv, wanted, tasks_per_part)
        if parts is None and tasks_per_part is None:
            parts = plan_parts(argv, wanted)
        elif parts is None:
            planner = _native.AlignPlanner(argv, tasks_per_part)
            parts = []
            while (part := planner.next_part()) is not None:
                parts.append(part)
        if "--sort" in argv:
            counts = _write_sorted(client, argv, parts, output, header, progress)
        else:
            futures = submit_in_order(
                client, _align_part, [(argv, part) for part in parts], "align", progress
            )
            counts = [0] * 10
            for part_counts in write_parts(client, futures, output, header, _native.align_trailer(argv))[0]:
                counts = [a + b for a, b in zip(counts, part_counts)]
    summary = _native.align_summary(argv, counts)
    if not quiet:
        sys.stderr.write(summary)
    return summary
