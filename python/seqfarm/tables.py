"""The table commands from Python: ``count``, ``snp_pileup`` and ``search`` return
``pandas.DataFrame`` objects holding exactly the rows the command line prints."""

import csv
import io
import os
import tempfile


from . import _native
from ._native import OptionError
from ._options import option_argv
from .align import sequence_text

__all__ = ["count", "search", "snp_pileup", "blast_columns", "BED_COLUMNS", "BLAST_COLUMNS",
           "BLAST_STD_COLUMNS", "BLAST_COLUMN_TYPES"]

#: The names of a BED file's columns, in order (the first three are always there).
BED_COLUMNS = ["chrom", "start", "end", "name", "score", "strand", "thickStart", "thickEnd",
               "itemRgb", "blockCount", "blockSizes", "blockStarts"]

#: BLAST tabular (``-outfmt 6``) columns, as ``seqfarm search`` prints them.
BLAST_COLUMNS = ["qseqid", "sseqid", "pident", "length", "mismatch", "gapopen", "qstart",
                 "qend", "sstart", "send", "evalue", "bitscore"]

#: BLAST 2.12's ``std`` columns: what ``outfmt="6"`` (or ``"7"``) alone means.
BLAST_STD_COLUMNS = ["qaccver", "saccver", "pident", "length", "mismatch", "gapopen",
                     "qstart", "qend", "sstart", "send", "evalue", "bitscore"]

#: The type of every column ``outfmt=`` may name, in the order of BLAST's ``-help``.
BLAST_COLUMN_TYPES = {
    "qseqid": str, "qacc": str, "qaccver": str, "qlen": "int64",
    "sseqid": str, "sacc": str, "saccver": str, "slen": "int64",
    "qstart": "int64", "qend": "int64", "sstart": "int64", "send": "int64",
    "qseq": str, "sseq": str, "evalue": "float64", "bitscore": "float64", "score": "int64",
    "length": "int64", "pident": "float64", "nident": "int64", "mismatch": "int64",
    "positive": "int64", "gapopen": "int64", "gaps": "int64", "ppos": "float64",
    "sstrand": str, "qcovs": "int64", "qcovhsp": "int64", "btop": str,
}

_BLAST_TYPES = {name: BLAST_COLUMN_TYPES[name] for name in BLAST_COLUMNS}


def path_list(paths):
    """One path or a list of paths, as a list of strings."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    return [os.fspath(p) for p in paths]


def _no_output(opts, *names):
    for name in names:
        if opts.get(name):
            raise OptionError(f"{name}: not available here: the result is returned as a DataFrame")


def _read_table(data, names, dtype, sep="\t", header=None, na_values=None):
    """Parses a command's table with the given column names and types (no guessing)."""
    import pandas as pd  # here, not at the top: workers that never build a frame skip it

    return pd.read_csv(
        io.BytesIO(data), sep=sep, header=header, names=names, dtype=dtype,
        keep_default_na=False, na_values=na_values or {}, quoting=csv.QUOTE_NONE,
    )


def count(bams, bed=None, window=None, threads=None, **opts):
    """Reads per region in one or more indexed BAMs, as ``seqfarm count`` (and
    ``bedtools multicov``) counts them.

    ``bams``: a BAM path or a list of them. Give ``bed`` (a BED file, plain or gzip) or
    ``window`` (a window size over every contig of the BAMs). Other options are those of
    ``seqfarm count`` as keywords: ``min_map_quality`` (or ``q``), ``duplicates``
    (``D``), ``qc_failed`` (``F``), ``proper_pairs`` (``p``).

    Returns one row per region, in input order: ``chrom``, ``start``, ``end`` (0-based,
    half-open, as in the BED), the BED's other columns named as BED names them (``name``,
    ``score``, ``strand``, ... kept as text), then one ``int64`` count column per BAM,
    named by its file name.
    """
    _no_output(opts, "o", "output")
    bams = path_list(bams)
    argv = option_argv({"bed": bed, "window": window, "threads": threads, **opts}, "count")
    return count_columns_frame([_native.count_table(argv + ["--"] + bams)], bams)


def _bed_names(extra):
    """The names of a BED's first three columns and of ``extra`` more."""
    return BED_COLUMNS[: 3 + extra] + [f"column{i + 1}" for i in range(12, 3 + extra)]


def _frame(columns, names):
    """A data frame of ``columns`` (arrays or series) named ``names`` by position, so
    that a name given twice (a BAM given twice) names two columns."""
    import pandas as pd

    # The columns are the call's own arrays: no copy is needed (a copy of text columns
    # held as Series costs about as much as the search for a large table).
    frame = pd.DataFrame(dict(enumerate(columns)), copy=False)
    frame.columns = names
    return frame


def count_columns_frame(parts, bams):
    """The columns of a count over ``bams`` (``_native.count_table``'s dicts, one per
    part of the count, in region order) as the frame :func:`count` returns."""
    import pandas as pd

    frames = []
    for columns in parts:
        data = {"chrom": pd.Series(columns["chrom"], dtype=str),
                "start": columns["start"], "end": columns["end"]}
        for k, column in enumerate(columns["bed_columns"]):
            data[("bed", k)] = pd.Series(column, dtype=str)
        for k, column in enumerate(columns["counts"]):
            data[("count", k)] = column
        frames.append(pd.DataFrame(data, copy=False))
    frame = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    extra = max(len(columns["bed_columns"]) for columns in parts)
    order = ["chrom", "start", "end"] + [("bed", k) for k in range(extra)]
    order += [("count", k) for k in range(len(bams))]
    frame = frame[order]
    frame.columns = _bed_names(extra) + [os.path.basename(b) for b in bams]
    return frame


def snp_pileup(vcf, bams, threads=None, **facets_opts):
    """Allele counts at the VCF's SNPs in tumour/normal BAMs, as FACETS ``snp-pileup``
    (and ``seqfarm snp-pileup``) writes them.

    Options take FACETS' names as keywords: ``min_map_quality`` (``q``),
    ``min_base_quality`` (``Q``), ``min_read_counts`` (``r``, a list of one count per
    BAM), ``pseudo_snps`` (``P``), ``max_depth`` (``d``), ``count_orphans`` (``A``),
    ``ignore_overlaps`` (``x``).

    Returns FACETS' columns: ``Chromosome`` (text), ``Position`` and, per BAM ``N``,
    ``FileNR``, ``FileNA``, ``FileNE``, ``FileND`` (``int64``), with ``Ref`` and ``Alt``
    (text). ``frame.to_csv(path, index=False)`` writes the command's CSV.
    """
    _no_output(facets_opts, "g", "gzip")
    bams = path_list(bams)
    argv = option_argv({"threads": threads, **facets_opts}, "snp-pileup")
    columns = _native.snp_pileup_table(argv + ["--", os.fspath(vcf), "-"] + bams)
    return snp_pileup_frame(columns)


def _letters(codes):
    """One-letter text column of an array of ASCII codes."""
    import numpy as np
    import pandas as pd

    return pd.Series(np.array([chr(c) for c in range(128)], dtype=object)[codes], dtype=str)


def snp_pileup_frame(columns):
    """The rows of ``snp-pileup`` (``_native.snp_pileup_table``'s dict of columns) as
    FACETS' columns and types."""
    import numpy as np
    import pandas as pd

    names = np.array(columns["contig_names"] or [""], dtype=object)
    data = [pd.Series(names[columns["contig"]], dtype=str), columns["position"],
            _letters(columns["reference"]), _letters(columns["alternate"])]
    header = ["Chromosome", "Position", "Ref", "Alt"]
    for i, file in enumerate(columns["counts"], start=1):
        data += file
        header += [f"File{i}{x}" for x in "RAED"]
    return _frame(data, header)


def search(queries, database, threads=None, **opts):
    """Smith-Waterman search of every query against a protein (or DNA) database, as
    ``seqfarm search`` runs it.

    ``queries``: a FASTA path, or a list of sequences (named ``query1``, ``query2``, ...)
    or of ``(name, sequence)`` pairs (``str``, or ASCII ``bytes``). ``database``: a FASTA path (plain or gzip). Other
    options are the command's as keywords: ``top`` (hits per query), ``top_strict``,
    ``evalue``, ``min_score``, ``max_hsps``, ``matrix``, ``dna``, ``strand`` (``"both"``,
    ``"plus"``, ``"minus"``), ``match``, ``mismatch``, ``gap_open``, ``gap_extend``,
    ``scores_only``, ``outfmt``, ``gpu`` (``True``: on an NVIDIA GPU; ``"auto"``: on one if
    there is one, else on the CPU; the same scores either way).

    Returns the BLAST tabular columns (``qseqid sseqid pident length mismatch gapopen
    qstart qend sstart send evalue bitscore``; ``evalue``/``bitscore`` NaN where the
    command prints NA), the best hits of each query in query order; with ``outfmt`` (the
    command's ``--outfmt``: ``"6 qseqid sseqid evalue qcovs"``, ``"6 std qlen"``) its
    columns, each typed as :data:`BLAST_COLUMN_TYPES` says; with ``scores_only=True``,
    ``qseqid sseqid score`` for every pair.
    """
    _no_output(opts, "o", "output", "json")
    argv = option_argv({"threads": threads, **opts}, "search")
    with tempfile.TemporaryDirectory(prefix="seqfarm-") as scratch:
        if isinstance(queries, (str, os.PathLike)):
            query_path = os.fspath(queries)
        else:
            query_path = os.path.join(scratch, "queries.fa")
            with open(query_path, "w") as fasta:
                for i, query in enumerate(queries):
                    if isinstance(query, (str, bytes, bytearray)):
                        name, seq = f"query{i + 1}", query
                    else:
                        name, seq = query
                    name = sequence_text(name, f"query {i + 1}: its name")
                    seq = sequence_text(seq, f"query {name!r}: its sequence")
                    fasta.write(f">{name}\n{seq}\n")
        results = _native.search_table(argv + ["--", query_path, os.fspath(database)])
    return search_results_frame(results)


def search_results_frame(results):
    """The results of a search (``_native.search_table``'s or ``_native.search_finish``'s:
    a list of ``(column, values)``, or with ``scores_only`` a dict of columns) as the
    frame :func:`search` returns."""
    if isinstance(results, dict):
        import numpy as np
        import pandas as pd

        names = np.array(results["query_names"] or [""], dtype=object)
        return _frame([pd.Series(names[results["query"]], dtype=str),
                       pd.Series(results["subject"], dtype=str), results["score"]],
                      ["qseqid", "sseqid", "score"])
    return _frame([_typed_column(values, BLAST_COLUMN_TYPES[name]) for name, values in results],
                  [name for name, _ in results])


def _typed_column(values, kind):
    """A column of values as the frame holds it: text as ``str``, numbers as they come
    (NumPy arrays of the column's type)."""
    import pandas as pd

    return pd.Series(values, dtype=str) if kind is str else values


def blast_columns(outfmt):
    """The column names an ``outfmt`` option (``"6 qseqid sseqid evalue"``, ``"7 std
    qlen"``, ``"6"``) prints, as the command reads it: ``std`` stands for
    :data:`BLAST_STD_COLUMNS`, and so does a format number alone."""
    words = str(outfmt).split()
    if not words or words[0] not in ("6", "7"):
        raise OptionError(f"outfmt={outfmt!r}: give 6 or 7, then columns if wanted")
    names = []
    for word in words[1:]:
        if word == "std":
            names += BLAST_STD_COLUMNS
        elif word in BLAST_COLUMN_TYPES:
            names.append(word)
        else:
            raise OptionError(f"outfmt: unknown column {word!r}; known columns: std "
                              + " ".join(BLAST_COLUMN_TYPES))
    return names or list(BLAST_STD_COLUMNS)


def search_frame(data, scores_only=False, outfmt=None):
    """The tabular output of ``seqfarm search`` (bytes: a file it wrote) as the columns
    and types :func:`search` returns: those of ``outfmt`` when given (the comment lines
    of ``7`` skipped; a column named twice gives two columns of that name)."""
    if scores_only:
        return _read_table(data, ["qseqid", "sseqid", "score"],
                           {"qseqid": str, "sseqid": str, "score": "int64"})
    if outfmt is None:
        return _read_table(data, BLAST_COLUMNS, _BLAST_TYPES,
                           na_values={"evalue": ["NA"], "bitscore": ["NA"]})
    names = blast_columns(outfmt)
    if str(outfmt).split()[0] == "7":
        data = b"".join(line for line in data.splitlines(keepends=True)
                        if not line.startswith(b"#"))
    types = {i: BLAST_COLUMN_TYPES[name] for i, name in enumerate(names)}
    missing = {i: ["NA"] for i, name in enumerate(names) if name in ("evalue", "bitscore")}
    # By position: a column named twice gives two columns of one name.
    frame = _read_table(data, list(range(len(names))), types, na_values=missing)
    frame.columns = names
    return frame
