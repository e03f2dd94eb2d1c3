"""seqfarm jobs spread over a ``dask.distributed`` cluster, with outputs byte-identical to
the ``seqfarm`` command line's.

The client plans the job (cuts the reads at the command's own task boundaries, or the
BAM through its index), each part runs on a worker's native farm with the worker's
threads, and the client puts the parts' results together in input order. Parts are
Dask futures: the dashboard and ``distributed.progress`` show them, and a worker that
dies has its parts recomputed by Dask.

What travels over the network, per part: the command line and the part's description
(a path, a byte range; or, for gzip-compressed reads, the part's reads themselves) to the
worker; the part's finished output (BGZF blocks or SAM text) or counts back (for
``snp_pileup``, the sites' findings, about 16 bytes a site with two BAMs, which the
client walks into the rows as the command's collector does). The index,
the reads (uncompressed) and the BAMs are read by the workers from a shared filesystem.
"""

from ._align import align
from ._count import count
from ._flagstat import flagstat
from ._search import search
from ._snp_pileup import snp_pileup

__all__ = ["align", "count", "flagstat", "search", "snp_pileup"]
