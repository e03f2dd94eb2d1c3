"""FM-indexes from Python: build one as ``seqfarm index`` does, load it once and query
it as ``seqfarm locate`` does."""

import os
from collections import namedtuple


from . import _native

__all__ = ["Contig", "Hit", "Index"]

#: A contig of the index: FASTA name and length in bases.
Contig = namedtuple("Contig", ["name", "length"])

#: An occurrence: contig name, 1-based leftmost position, strand (``"+"`` or ``"-"``).
Hit = namedtuple("Hit", ["contig", "pos", "strand"])


class Index:
    """An index ``PREFIX.sfi``, loaded (memory-mapped) once when created and kept.

    ``Index(prefix)`` loads an index written by ``seqfarm index`` (or
    :meth:`Index.build`). Aligners built on it share the loaded index.
    """

    def __init__(self, prefix):
        self._native = _native.Index(os.fspath(prefix))

    @classmethod
    def build(cls, fasta, prefix, threads=None, memory=None, sa_rate=None, kmer=None,
              stats=None, force=False):
        """Builds the index of ``fasta`` (plain or gzip) into ``PREFIX.sfi`` as
        ``seqfarm index -o PREFIX`` does, and returns it loaded.

        ``threads``: build threads (default: one per core); ``memory``: the memory
        budget (``"2G"``, ``"500M"`` or bytes); ``sa_rate`` and ``kmer`` as the command's
        ``--sa-rate`` and ``--kmer``; ``stats``: a file for the run's statistics. An
        existing ``PREFIX.sfi`` is replaced once the build has succeeded, as ``seqfarm
        index`` (and bowtie2-build) replaces it (``force=True`` is accepted, as
        ``--force`` is, and changes nothing); it is never ``fasta`` itself.
        """
        _native.build_index(os.fspath(fasta), os.fspath(prefix), threads, memory, sa_rate,
                            kmer, None if stats is None else os.fspath(stats), bool(force))
        return cls(prefix)

    @property
    def prefix(self):
        """The prefix the index was loaded from."""
        return self._native.prefix

    @property
    def contigs(self):
        """The contigs, in FASTA order, as :class:`Contig` ``(name, length)``."""
        return [Contig(*c) for c in self._native.contigs()]

    def count(self, patterns):
        """Occurrences of each pattern on both strands (a list of ints, in order), as
        ``seqfarm locate --max-hits 0`` counts them. A single string counts as a list of
        one pattern. A letter that is not a nucleotide raises :class:`seqfarm.Error`."""
        if isinstance(patterns, str):
            patterns = [patterns]
        return self._native.count(list(patterns))

    def locate(self, pattern, max_hits=100, as_frame=False):
        """The first ``max_hits`` occurrences of ``pattern`` in genome order (contig
        order, position, ``+`` before ``-``) as :class:`Hit` ``(contig, pos, strand)``
        with 1-based positions, as ``seqfarm locate`` lists them; a
        ``pandas.DataFrame`` with those columns when ``as_frame``."""
        _, hits = self._native.locate(pattern, max_hits)
        hits = [Hit(*h) for h in hits]
        if as_frame:
            import pandas as pd

            frame = pd.DataFrame(hits, columns=list(Hit._fields))
            return frame.astype({"contig": str, "pos": "int64", "strand": str})
        return hits

    def __repr__(self):
        return f"Index({os.fspath(self.prefix)!r})"
