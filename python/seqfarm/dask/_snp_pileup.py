"""``seqfarm.dask.snp_pileup``: the command's tasks (consecutive VCF sites) replayed by
the workers, their findings walked in VCF order as the command's collector walks them:
for a file, by the workers, part after part, each writing its rows; for a DataFrame, by
the client."""

import operator
import os
import sys

from .. import _native
from .._options import option_argv
from ..tables import snp_pileup_frame
from ._cluster import even_runs, submit_in_order, task_threads, total_threads, whole_output, write_parts


def snp_pileup(client, vcf, bams, out=None, *, parts_per_worker=2, force=False, progress=False,
               **facets_opts):
    """Allele counts at the SNPs of ``vcf`` in the indexed BAMs ``bams`` (tumour/normal)
    on the cluster of ``client``, as ``seqfarm snp-pileup`` (FACETS) counts them;
    ``facets_opts`` are the command's options as keywords (``pseudo_snps=100`` or
    ``P=100``, ``min_map_quality``, ``min_base_quality``, ``min_read_counts=[10, 0]``,
    ``count_orphans``, ``max_depth``, ``ignore_overlaps``, ``gzip``).

    Writes the file ``out`` (byte for byte the command's output; with ``gzip=True``
    BGZF-compressed, ``.gz`` appended when missing) and returns its path, or, without
    ``out``, returns a ``pandas.DataFrame`` as :func:`seqfarm.snp_pileup` does. As
    ``seqfarm snp-pileup`` (and FACETS' snp-pileup) refuses an existing output, an
    existing ``out`` raises :class:`seqfarm.InputError` naming it before any part runs,
    the file left as it was, unless ``force=True``: then it is replaced once the job has
    succeeded. ``out`` is never one of the BAMs, their indexes or the VCF, ``force`` or
    not. The warnings the command prints about the VCF sites it skips (contigs absent
    from the BAMs, sites out of order, lowercase REF letters) are printed the same, on
    standard error, once the job has run.

    The workers read the VCF and the BAMs from a shared filesystem (a CRAM among them:
    each part, and each walk, decodes only the containers its replays reach). The client
    reads the VCF once to plan the parts; a part reads only its own lines of it, from
    where the plan found them (in a bgzipped VCF, from the block that holds its first
    line; in a VCF compressed as one gzip stream, from the last access point before it
    of the index the client keeps beside the VCF, ``NAME.sfzi``), and finds its sites'
    counts and next covered positions; the walk of its findings into
    rows runs on the worker holding them, once the walk of the part before has ended,
    from what that walk carries (where it stands, the VCF lines so far, and for a BGZF
    output the bytes after the last whole block: less than 64 KiB). The client learns
    each part's size, and the workers write the parts' bytes into ``out`` on the shared
    filesystem; no row or site passes through the client. For a DataFrame the client
    receives the parts' findings (about ``6 + 5 * len(bams)`` bytes per site, compressed
    to about a third) and walks them itself.
    """
    bams = [os.fspath(b) for b in ([bams] if isinstance(bams, (str, os.PathLike)) else bams)]
    gzip = bool(facets_opts.get("gzip") or facets_opts.get("g"))
    if out is None and gzip:
        raise _native.OptionError("gzip: give out= (the result is otherwise a DataFrame)")
    output = "-" if out is None else os.fspath(out)
    argv = ["snp-pileup"] + option_argv({"force": force, **facets_opts}, "snp-pileup")
    argv += ["--", os.fspath(vcf), output] + bams
    if out is None:
        return snp_pileup_frame(_walk_on_client(client, argv, parts_per_worker, progress))
    with whole_output(argv) as written:
        _walk_on_workers(client, argv, written, parts_per_worker, progress)
    return output if not gzip or output.endswith(".gz") else output + ".gz"


def _parts(client, argv, parts_per_worker, progress):
    """The futures of the parts' findings, in VCF order."""
    task_bytes, parts = _native.snp_pileup_plan(argv, total_threads(client) * parts_per_worker)
    arguments = [(argv, task_bytes, first, last, start) for first, last, start in parts]
    return submit_in_order(client, _find, arguments, "snp-pileup", progress)


def _find(argv, task_bytes, first, last, start):
    """Runs on a worker: the findings of tasks ``first..last`` of the plan, the VCF read
    from the part's ``start``, on one thread of the worker."""
    return _native.snp_pileup_tasks(argv, task_bytes, first, last, start, task_threads())


def _walk_on_client(client, argv, parts_per_worker, progress):
    """The rows as columns: the parts' findings walked by the client (the rows are the
    result the client returns)."""
    walk = _native.SnpPileupWalk(argv)
    for future in _parts(client, argv, parts_per_worker, progress):
        walk.add(future.result())
        future.release()
    columns, warnings = walk.finish()
    _warn(warnings)
    return columns


def _warn(warnings):
    """Prints the warnings about the VCF sites skipped as ``seqfarm snp-pileup`` does."""
    for warning in warnings:
        sys.stderr.write(f"seqfarm: warning: snp-pileup: {warning}\n")


#: At most this many walks, one after the other: each walks a run of consecutive parts
#: (their findings brought to its worker), so that the walks' own costs (opening the BAMs,
#: a task's scheduling) stay a small share of the job however many parts it has.
WALKS = 64


def _walk(argv, carry, *findings):
    """Runs on a worker: walks consecutive parts' findings from the carry of the walk of
    the parts before: ``(piece of the output stream, carry of the next walk)``."""
    return _native.snp_pileup_walk(argv, list(findings), carry)


def _blocks(walked, argv):
    """Runs on the worker holding a walk: the bytes it writes into the output."""
    return _native.snp_pileup_blocks(argv, walked[0])


def _walk_on_workers(client, argv, written, parts_per_worker, progress):
    """The parts' findings walked on the workers in runs of consecutive parts, one run
    after the other, the walk's carry (where it stands, the lines so far, and the bytes
    of a BGZF output after its last whole block) passed from each walk to the next; the
    workers write the walks' bytes, placed by the client from their sizes."""
    header, carry = _native.snp_pileup_walk_start(argv)
    found = _parts(client, argv, parts_per_worker, progress)
    blocks = []
    for first, last in even_runs(len(found), WALKS):
        key = found[first].key
        walked = client.submit(_walk, argv, carry, *found[first:last], key=f"{key}-walk", pure=False)
        carry = client.submit(operator.itemgetter(1), walked, key=f"{key}-carry", pure=False)
        blocks.append(client.submit(_blocks, walked, argv, key=f"{key}-blocks", pure=False))

    last = []

    def trailer():
        # The last walk's carry, or the first one when no part had a task.
        last.append(carry if isinstance(carry, bytes) else carry.result())
        return _native.snp_pileup_trailer(argv, last[0])

    write_parts(client, blocks, written, header, trailer)
    _warn(_native.snp_pileup_warnings(argv, last[0]))
