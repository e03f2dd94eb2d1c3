"""Read alignment from Python: bowtie2's options, parsed by ``seqfarm align`` itself,
reads aligned in memory (records back as Python objects) or whole files aligned into
SAM/BAM exactly as the command writes them."""

import os
from collections import namedtuple

from . import _native
from ._options import option_argv
from .index import Index

__all__ = ["Aligner", "SamRecord"]

#: A SAM record: ``pos`` and ``pnext`` are 1-based (0 when unplaced), as in SAM;
#: ``tags`` maps each tag (``"AS"``, ``"NM"``, ...) to its value (``int`` for ``i``,
#: ``float`` for ``f``, text otherwise).
SamRecord = namedtuple(
    "SamRecord",
    ["name", "flag", "contig", "pos", "mapq", "cigar", "rnext", "pnext", "tlen", "seq",
     "qual", "tags"],
)

_TAG_TYPES = {"i": int, "f": float}

#: Fragments sent to the native aligner at once by :meth:`Aligner.align`.
BATCH_FRAGMENTS = 1024


def parse_sam_record(line):
    """A :class:`SamRecord` from one SAM line (without its line break)."""
    fields = line.split("\t")
    tags = {}
    for tag in fields[11:]:
        name, kind, value = tag.split(":", 2)
        tags[name] = _TAG_TYPES.get(kind, str)(value)
    return SamRecord(
        fields[0], int(fields[1]), fields[2], int(fields[3]), int(fields[4]), fields[5],
        fields[6], int(fields[7]), int(fields[8]), fields[9], fields[10], tags,
    )


def sequence_text(value, what):
    """A read's or query's field as text: a ``str`` as it is, ``bytes`` or ``bytearray``
    decoded as ASCII. Anything else raises ``TypeError`` naming ``what`` (``str()`` of
    ``b"ACGT"`` would be the sequence ``b'ACGT'``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        try:
            return value.decode("ascii")
        except UnicodeDecodeError as e:
            raise TypeError(f"{what}: byte {e.start} is not ASCII") from None
    raise TypeError(f"{what}: a str or bytes, not {type(value).__name__}")


def _read(read):
    """A ``(name, seq[, qual])`` tuple as the native aligner takes it (each field a
    ``str`` or ASCII ``bytes``). A field holding a tab or a line break is refused: it
    would split the read into other fields (a single read taken for a pair) or other
    records."""
    if len(read) not in (2, 3):
        raise TypeError(f"a read is (name, seq) or (name, seq, qual), not {len(read)} fields")
    name = sequence_text(read[0], "read name")
    seq = sequence_text(read[1], f"read {name!r}: its sequence")
    qual = read[2] if len(read) == 3 else None
    if qual is not None:
        qual = sequence_text(qual, f"read {name!r}: its qualities")
    fields = (name, seq, qual)
    for what, text in zip(("name", "sequence", "qualities"), fields):
        if text is not None and any(c in text for c in "\t\n\r"):
            raise _native.InputError(
                f"read {fields[0]!r}: its {what} holds a tab or a line break"
            )
    return fields


def _fragment(item):
    """An unpaired read (a tuple of fields) or a pair of them."""
    if not isinstance(item[0], (tuple, list)):
        return [_read(item)]
    if len(item) != 2:
        raise ValueError(f"a pair has two mates, not {len(item)}")
    return [_read(item[0]), _read(item[1])]


def align_arguments(index, r1, r2, out, option_arguments):
    """The ``seqfarm align`` arguments (without the program name) of a job, in the one
    order that the in-process and the Dask alignments both write into ``@PG CL:``:
    options, ``-x INDEX``, reads, output."""
    return ["align", *option_arguments, "-x", os.fspath(index), *_inputs(r1, r2, out)]


def _inputs(r1, r2, out):
    """The reads and output arguments of ``seqfarm align``."""
    if out is None:
        raise TypeError("align_files() needs out= (a .sam or .bam path)")

    def files(paths):
        if isinstance(paths, (str, os.PathLike)):
            return os.fspath(paths)
        return ",".join(os.fspath(p) for p in paths)

    inputs = ["-U", files(r1)] if r2 is None else ["-1", files(r1), "-2", files(r2)]
    out = os.fspath(out)
    return inputs + ["-o" if out.endswith(".bam") else "-S", out]


class Aligner:
    """bowtie2-compatible read aligner on an index loaded once.

    ``index``: an :class:`Index` or an index prefix. Options are bowtie2's (and
    ``seqfarm align``'s) as keywords (``X=1000``, ``very_sensitive=True``,
    ``score_min="L,0,-0.2"``, ``p=2`` for threads; see :mod:`seqfarm._options`), parsed
    by the command's own parser: a bad option raises :class:`seqfarm.OptionError` with
    the command's message.
    """

    def __init__(self, index, **options):
        self.index = index if isinstance(index, Index) else Index(index)
        self._options = option_argv(options, "align")
        self._native = _native.Aligner(self.index._native, self._options)

    @property
    def header(self):
        """The SAM header (text) of the records :meth:`align` yields."""
        return self._native.header()

    def align(self, reads):
        """Aligns ``reads`` and yields their :class:`SamRecord` objects, in input order:
        the records ``seqfarm align`` writes for the same reads with the same options.

        ``reads``: an iterable of ``(name, seq, qual)`` or ``(name, seq)`` tuples
        (unpaired reads; each field a ``str`` or ASCII ``bytes``, ``qual`` Phred+33), or
        of pairs of such tuples (mates 1 and 2). Reads with and without qualities cannot
        be mixed in one batch of :data:`BATCH_FRAGMENTS` fragments.
        """
        batch = []
        for item in reads:
            batch.append(_fragment(item))
            if len(batch) == BATCH_FRAGMENTS:
                yield from self._records(batch)
                batch = []
        if batch:
            yield from self._records(batch)

    def _records(self, batch):
        text = self._native.align(batch).decode()
        for line in text.splitlines():
            yield parse_sam_record(line)

    def align_files(self, r1, r2=None, out=None, **more_options):
        """Aligns read files as ``seqfarm align OPTIONS MORE -x PREFIX -U R1 -S OUT``
        (or ``-1 R1 -2 R2``) does, on the loaded index, and writes ``out``: SAM, or BAM
        when it ends in ``.bam``, byte for byte what that command line writes (its
        ``@PG`` line names it). ``r1``, ``r2``: a path or a list of paths. Every file the
        run writes (``out``, and ``un=``, ``met_file=``... files) replaces an existing
        one once the run has succeeded, as ``seqfarm align`` and bowtie2 replace their
        outputs (``force=True`` is accepted and changes nothing); an output that is one
        of the reads or the index, or two outputs that are one file, are refused before
        any work.

        Returns the summary as a dict of bowtie2's counts (``reads``, ``paired``,
        ``concordant_0``, ``concordant_1``, ``concordant_more``, ``discordant``,
        ``mates_aligned_0`` ..., ``unpaired_aligned_0`` ..., ``overall_alignment_rate``)
        with the summary text under ``"text"``.
        """
        inputs = _inputs(r1, r2, out)
        counts, text = self._native.align_files(option_argv(more_options, "align"), inputs)
        counts["text"] = text
        return counts

    def command_line(self, r1, r2=None, out=None, **more_options):
        """The ``seqfarm align`` arguments :meth:`align_files` runs with the same
        arguments (after the program name)."""
        options = [*self._options, *option_argv(more_options, "align")]
        return align_arguments(self.index.prefix, r1, r2, out, options)
