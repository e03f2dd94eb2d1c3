"""seqfarm from Python: the same farms as the ``seqfarm`` command line, in process.

Every function runs native code with the GIL released and returns Python values
(``dict``, ``pandas.DataFrame``, record objects). Failures raise :class:`Error` or one of
its subclasses, with the message the command line prints.
"""

import json
import os

from . import _native
from ._native import Error, FormatError, InputError, OptionError
from .align import Aligner, SamRecord
from .bam import BamFile
from ._options import depth_argv, option_argv
from .index import Contig, Hit, Index
from .tables import count, search, snp_pileup

__version__ = _native.__version__

__all__ = [
    "Aligner",
    "BamFile",
    "Contig",
    "Error",
    "FormatError",
    "Hit",
    "Index",
    "InputError",
    "OptionError",
    "SamRecord",
    "count",
    "depth",
    "flagstat",
    "markdup",
    "search",
    "snp_pileup",
]


def flagstat(path, threads=None):
    """FLAG statistics of a BAM or SAM file, as ``samtools flagstat -O json`` reports them.

    Returns a dict with the keys ``"QC-passed reads"`` and ``"QC-failed reads"``, each a
    dict of samtools' JSON keys (``"total"``, ``"mapped"``, ``"mapped %"``, ...).
    ``threads``: worker threads (default: one per core).
    """
    return json.loads(_native.flagstat_json(os.fspath(path), threads))


def depth(bam, prefix, window=None, bed=None, threads=None, **opts):
    """Depth of a coordinate-sorted, indexed BAM (or CRAM), as ``seqfarm depth`` and
    ``mosdepth -n --by`` compute it: the mean depth per window of ``window`` bases or per
    region of ``bed``. Other options are those of ``seqfarm depth`` as keywords:
    ``thresholds=[1, 10, 20]`` (``T``), ``mapq`` (``Q``), ``flag`` (``F``),
    ``per_base=True``, ``plot``, ``reference`` (a CRAM's FASTA).

    Writes the command's files ``PREFIX.regions.bed.gz`` (with its ``.csi``),
    ``PREFIX.mosdepth.summary.txt``, ``PREFIX.mosdepth.global.dist.txt`` and
    ``PREFIX.mosdepth.region.dist.txt``, and when asked for ``PREFIX.thresholds.bed.gz``
    and ``PREFIX.per-base.bed.gz`` (each with its ``.csi``); existing files are replaced,
    as the command and mosdepth replace them. Returns ``prefix``.
    """
    argv = depth_argv(bam, prefix, window, bed, {"threads": threads, **opts})
    _native.depth_files(argv)
    return prefix


def markdup(bam, output, metrics=None, threads=None, **opts):
    """Marks duplicate reads (FLAG 0x400) of a coordinate-sorted BAM (or CRAM) into
    ``output`` (a BAM, with its index beside it), as ``seqfarm markdup`` and Picard
    MarkDuplicates mark them.

    ``metrics``: also write Picard's metrics file there. Other options are those of
    ``seqfarm markdup`` as keywords: ``remove_duplicates=True``, ``optical_distance``,
    ``memory="2G"`` (read ends kept in memory), ``reference`` (a CRAM's FASTA).

    Returns Picard's ``DuplicationMetrics`` as a dict of library names (``"Unknown
    Library"`` for reads without one) to dicts of its columns (``READ_PAIRS_EXAMINED``,
    ``READ_PAIR_DUPLICATES``, ``PERCENT_DUPLICATION``, ``ESTIMATED_LIBRARY_SIZE`` (``None``
    without duplicates), ...).
    """
    options = {"output": output, "metrics": metrics, "threads": threads, **opts}
    argv = option_argv(options, "markdup")
    return _native.markdup_metrics(argv + ["--", os.fspath(bam)])
