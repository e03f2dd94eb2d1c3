//! Output formats of `seqfarm search` (placeholder: BLAST's 12 default columns).

use super::hsp::HspRecord;
use super::tabular::{format_bit_score, format_evalue};
use std::fmt::Write as _;

/// What a run's output header needs.
pub struct RunInfo<'a> {
    /// seqfarm's version.
    pub version: &'a str,
    /// The database as named on the command line.
    pub database: &'a str,
    /// Nucleotide scoring.
    pub dna: bool,
    /// The matrix as named.
    pub matrix: &'a str,
    /// Gap open cost.
    pub gap_open: i32,
    /// Gap extension cost.
    pub gap_extend: i32,
}

/// What a query's header needs.
pub struct QueryInfo<'a> {
    /// Query name.
    pub id: &'a str,
    /// The header after the name.
    pub description: &'a str,
    /// Residues.
    pub len: usize,
}

/// The output format.
pub struct OutputFormat;

impl OutputFormat {
    /// Parses `--outfmt` and `--json`.
    pub fn parse(_outfmt: Option<&str>, _json: bool) -> anyhow::Result<Self> {
        Ok(Self)
    }
    /// Before any query.
    pub fn begin(&self, _out: &mut String, _run: &RunInfo) {}
    /// Before a query's alignments.
    pub fn begin_query(&self, _out: &mut String, _query: &QueryInfo, _hsps: usize) {}
    /// One alignment.
    pub fn hsp(&self, out: &mut String, a: &HspRecord, _index_in_query: usize) {
        let pident = if a.length == 0 {
            0.0
        } else {
            100.0 * a.identities as f64 / a.length as f64
        };
        let _ = write!(
            out,
            "{}\t{}\t{:.3}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t",
            a.query_id,
            a.subject_id,
            pident,
            a.length,
            a.mismatches,
            a.gap_opens,
            a.query_start,
            a.query_end,
            a.subject_start,
            a.subject_end,
        );
        match (a.evalue, a.bit_score) {
            (Some(e), Some(b)) => {
                out.push_str(&format_evalue(e));
                out.push('\t');
                out.push_str(&format_bit_score(b));
            }
            _ => out.push_str("NA\tNA"),
        }
        out.push('\n');
    }
    /// After a query's alignments.
    pub fn end_query(&self, _out: &mut String, _query: &QueryInfo) {}
    /// After every query.
    pub fn end(&self, _out: &mut String, _queries: usize) {}
}
