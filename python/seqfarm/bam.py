"""Indexed BAM files read in parallel, records handed to Python as NumPy arrays.

:class:`BamFile` maps a coordinate-sorted, indexed BAM into memory. :meth:`BamFile.fetch`
returns the records of one region; :meth:`BamFile.map_regions` runs a function over the
records of many regions (or of every window of the genome), the records read and decoded
by native threads with the GIL released.

A batch of records is a dict of NumPy arrays, one element per record, in file order:

``tid`` (int32)
    reference index in the header;
``pos`` (int64)
    0-based leftmost position;
``end`` (int64)
    0-based exclusive end on the reference (htslib's ``bam_endpos``: ``pos + 1`` for an
    unmapped record or one whose CIGAR spans no reference base);
``flag`` (uint16), ``mapq`` (uint8)
    FLAG and mapping quality;
``length`` (int32)
    length of the stored sequence (0 when SEQ is ``*``).

A region holds the records whose alignment overlaps it, as ``samtools view BAM region``
selects them; a record overlapping several regions is in each of their batches.
"""

import os

from . import _native
from ._native import OptionError

__all__ = ["BamFile"]


class BamFile:
    """A coordinate-sorted BAM with its index (``.bai`` or ``.csi`` beside it).

    The file is memory-mapped once and shared by every call; it must not be rewritten
    while open. Raises :class:`seqfarm.InputError` or :class:`seqfarm.FormatError` when
    the BAM or its index cannot be read.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self._reader = _native.BamReader(self.path)
        refs = self._reader.references()
        #: Reference names, in header order.
        self.references = tuple(name for name, _ in refs)
        #: Reference lengths, in header order.
        self.lengths = tuple(length for _, length in refs)
        self._ids = {name: i for i, name in enumerate(self.references)}

    def __repr__(self):
        return f"BamFile({self.path!r})"

    def windows(self, size):
        """Consecutive windows of ``size`` bases over every reference, in header order,
        as ``(contig, start, end)`` (0-based, half-open; the last of a contig is shorter).
        """
        size = int(size)
        if size < 1:
            raise OptionError(f"window size {size}: it must be at least 1")
        return [
            (name, start, min(start + size, length))
            for name, length in zip(self.references, self.lengths)
            for start in range(0, length, size)
        ]

    def region(self, region):
        """``region`` as ``(tid, start, end)``, 0-based and half-open, clamped to the
        contig. ``region`` is a string as samtools takes it (``"chr1"``,
        ``"chr1:1001"``, ``"chr1:1,001-2,000"``: 1-based, inclusive) or a tuple
        ``(contig, start, end)`` (0-based, half-open; ``contig`` a name or an index).
        """
        if isinstance(region, str):
            contig, start, end = self._parse(region)
        else:
            try:
                contig, start, end = region
            except (TypeError, ValueError):
                raise OptionError(
                    f"region {region!r}: expected 'contig:start-end' or (contig, start, end)"
                ) from None
        tid = self._tid(contig, region)
        length = self.lengths[tid]
        start = min(max(int(start), 0), length)
        end = length if end is None else min(max(int(end), start), length)
        return tid, start, end

    def fetch(self, region):
        """The records overlapping ``region`` (see :meth:`region`), as a dict of NumPy
        arrays (see the module's documentation)."""
        return self._reader.fetch(*self.region(region))

    def map_regions(self, func, regions=None, *, window=None, threads=None, in_workers=False):
        """``[func(batch) for each region]``, with the records read in parallel.

        ``regions``: a list of regions (strings or tuples, see :meth:`region`), or
        ``window=SIZE`` for every window of the genome (see :meth:`windows`). Each batch
        is a dict of NumPy arrays (see the module's documentation). ``threads``: native
        threads reading and decoding records with the GIL released (default: one per
        core). ``func`` is called once per region, in region order, on the calling
        thread while the threads read on; ``in_workers=True`` calls it on the reading
        threads instead (each takes the GIL in turn: this may help when ``func``
        releases the GIL, as NumPy does on large arrays). An exception raised by
        ``func`` stops the run and is raised as it is.
        """
        if (regions is None) == (window is None):
            raise OptionError("give either regions or window=SIZE")
        if regions is None:
            regions = self.windows(window)
        spans = [self.region(r) for r in regions]
        return self._reader.map_regions(func, spans, threads, in_workers)

    def _tid(self, contig, region):
        if isinstance(contig, int) and 0 <= contig < len(self.references):
            return contig
        tid = self._ids.get(contig)
        if tid is None:
            raise OptionError(f"region {region!r}: unknown reference {contig!r} in {self.path}")
        return tid

    def _parse(self, text):
        if text in self._ids:
            return text, 0, None
        contig, sep, span = text.rpartition(":")
        if not sep or contig not in self._ids:
            raise OptionError(f"region {text!r}: unknown reference in {self.path}")
        first, _, last = span.replace(",", "").partition("-")
        try:
            start = int(first) - 1 if first else 0
            end = int(last) if last else None
        except ValueError:
            raise OptionError(f"region {text!r}: positions must be numbers") from None
        if start < 0 or end is not None and end <= start:
            raise OptionError(f"region {text!r}: positions are 1-based and start <= end")
        return contig, start, end
