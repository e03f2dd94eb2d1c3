//! BLAST's tabular lines (`-outfmt 6`): one line per alignment, its columns separated by
//! tabs; and the comment lines that `-outfmt 7` adds around them: a header for every
//! query (also one without alignments) and a last line counting the queries.

use std::fmt::Write as _;

use super::cells::cell;
use super::output_format::RunLines;
use super::{Column, HspRecord, QueryInfo};

/// Writes `-outfmt 7`'s comment lines before a query's `hsps` alignments: program,
/// query, database, the `# Fields:` line of `columns` (only when there are
/// alignments) and the number of hits.
pub(super) fn query_comments(
    out: &mut String,
    run: &RunLines,
    query: &QueryInfo<'_>,
    columns: &[Column],
    hsps: usize,
) {
    out.push_str(&run.program);
    out.push_str("\n# Query: ");
    out.push_str(query.id);
    if !query.description.is_empty() {
        out.push(' ');
        out.push_str(query.description);
    }
    out.push('\n');
    out.push_str(&run.database);
    out.push('\n');
    if hsps > 0 {
        out.push_str("# Fields: ");
        for (i, column) in columns.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(column.label());
        }
        out.push('\n');
    }
    let _ = writeln!(out, "# {hsps} hits found");
}

/// Writes one alignment's line of `columns` (`dna`: whether `sstrand` reads
/// `plus`/`minus` rather than `N/A`).
pub(super) fn line(out: &mut String, columns: &[Column], hsp: &HspRecord, dna: bool) {
    for (i, &column) in columns.iter().enumerate() {
        if i > 0 {
            out.push('\t');
        }
        cell(column, hsp, dna).write_text(out);
    }
    out.push('\n');
}

/// Writes `-outfmt 7`'s last line, after the last of `queries` queries.
pub(super) fn run_comment(out: &mut String, queries: usize) {
    let _ = writeln!(out, "# seqfarm processed {queries} queries");
}
