"""seqfarm jobs spread over a ``dask.distributed`` cluster, with outputs byte-identical to
the ``seqfarm`` command line's.

The client plans the job without reading the data (the workers count the records of
each range of the read files, gzip entered at access points kept beside it; a BAM is
cut through its index), each part runs on one thread of a worker (a worker of N threads
runs N parts at once, sharing its copy of the index), and the parts' results are put
together in input order: ``align``'s and ``count``'s outputs, and ``depth``'s BGZF BEDs
and their indexes, are written by the workers, at offsets the client places from the
parts' sizes. Parts are Dask futures: the dashboard and
``distributed.progress`` show them, and a worker that dies has its parts recomputed by
Dask.

What travels over the client's connection, per part: the command line and the part's
description (paths, offsets, counts) to the worker; the part's size and counts back
(for ``flagstat`` the counts, for ``depth`` each contig's statistics and distributions
and the per-base runs at the part's edges, for ``search`` each query's top hits, for
``snp_pileup``
the sites' findings, about 16 bytes a site with two BAMs, which the client walks into
the rows as the command's collector does). The index, the reads and the BAMs are read,
and the outputs written, by the workers on a shared filesystem.
"""

from ._align import align
from ._count import count
from ._depth import depth
from ._flagstat import flagstat
from ._search import search
from ._snp_pileup import snp_pileup

__all__ = ["align", "count", "flagstat", "search", "snp_pileup"]
