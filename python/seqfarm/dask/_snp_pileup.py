"""``seqfarm.dask.snp_pileup``: the command's tasks (consecutive VCF sites) replayed by
the workers, their findings walked in VCF order by the client, as the command's
collector walks them."""

import os

from .. import _native
from .._options import option_argv
from ..tables import snp_pileup_frame
from ._cluster import even_runs, region_tasks, submit_in_order, total_threads


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
    not.

    The workers read the VCF and the BAMs from a shared filesystem (a CRAM among them:
    each part, and the client's walk, decodes only the containers its replays reach).
    A part sends a task range out and its sites' findings back (the counts and the next
    covered positions, about ``6 + 5 * len(bams)`` bytes per site, compressed to about a
    third); the client walks them into the rows.
    """
    bams = [os.fspath(b) for b in ([bams] if isinstance(bams, (str, os.PathLike)) else bams)]
    if out is None and (facets_opts.get("gzip") or facets_opts.get("g")):
        raise _native.OptionError("gzip: give out= (the result is otherwise a DataFrame)")
    output = "-" if out is None else os.fspath(out)
    argv = ["snp-pileup"] + option_argv({"force": force, **facets_opts}, "snp-pileup")
    argv += ["--", os.fspath(vcf), output] + bams
    walk = _native.SnpPileupWalk(argv, out is None)
    parts = total_threads(client) * parts_per_worker
    task_bytes, tasks = _native.region_plan(argv, parts)
    arguments = [(argv, task_bytes, a, b) for a, b in even_runs(tasks, parts)]
    futures = submit_in_order(client, region_tasks, arguments, "snp-pileup", progress)
    for future in futures:
        walk.add(future.result())
        future.release()
    columns = walk.finish()
    if out is None:
        return snp_pileup_frame(columns)
    if facets_opts.get("gzip") or facets_opts.get("g"):
        text = output if output.endswith(".gz") else output + ".gz"
        return text
    return output
