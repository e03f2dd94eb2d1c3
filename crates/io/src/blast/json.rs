//! `--json`: one JSON document holding the run's parameters and, per query in input
//! order, its alignments as objects keyed by column name (numbers as numbers, `null`
//! where BLAST's text has `N/A` or `NA`).
//!
//! The document is written in pieces that concatenate: [`document_head`], then per
//! query [`query_head`], [`hsp_object`] per alignment and [`query_tail`], then
//! [`document_tail`].

use std::fmt::Write as _;

use super::cells::cell;
use super::{Column, HspRecord, QueryInfo, RunInfo};

/// Writes the document up to its list of queries: program, version, database and the
/// scoring parameters.
pub(super) fn document_head(out: &mut String, run: &RunInfo<'_>) {
    let _ = write!(
        out,
        "{{\"program\":\"seqfarm search\",\"version\":{},\"database\":{},\
         \"parameters\":{{\"dna\":{},\"matrix\":{},\"gap_open\":{},\"gap_extend\":{}}},\
         \"queries\":[",
        json_string(run.version),
        json_string(run.database),
        run.dna,
        json_string(run.matrix),
        run.gap_open,
        run.gap_extend,
    );
}

/// Opens a query's object up to its list of hits (a comma before every query but the
/// first).
pub(super) fn query_head(out: &mut String, query: &QueryInfo<'_>) {
    if query.index > 0 {
        out.push(',');
    }
    let _ = write!(
        out,
        "\n{{\"id\":{},\"description\":{},\"length\":{},\"hits\":[",
        json_string(query.id),
        json_string(query.description),
        query.len
    );
}

/// Writes one alignment as an object of its `columns` (a repeated column appears once,
/// where it first appears); `index_in_query` is its 0-based position among the
/// query's alignments.
pub(super) fn hsp_object(
    out: &mut String,
    columns: &[Column],
    hsp: &HspRecord,
    dna: bool,
    index_in_query: usize,
) {
    if index_in_query > 0 {
        out.push(',');
    }
    out.push_str("\n{");
    for (i, &column) in columns.iter().enumerate() {
        if columns[..i].contains(&column) {
            continue;
        }
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "\"{}\":", column.name());
        cell(column, hsp, dna).write_json(out);
    }
    out.push('}');
}

/// Closes a query's list of hits and its object.
pub(super) fn query_tail(out: &mut String) {
    out.push_str("]}");
}

/// Closes the list of queries and the document.
pub(super) fn document_tail(out: &mut String) {
    out.push_str("\n]}\n");
}

/// `text` as a JSON string, quoted and escaped.
pub(super) fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// A JSON number (shortest text that reads back as the same `f64`), `null` if not
/// finite.
pub(super) fn json_number(value: f64) -> String {
    if value.is_finite() {
        serde_json::to_string(&value).expect("a finite number serializes")
    } else {
        "null".to_string()
    }
}
