//! One column's value of one alignment ([`Cell`]), and how BLAST prints each kind of
//! value: E-values and bit scores with BLAST's rounding, percentages to a fixed number of
//! decimals, query coverage as BLAST rounds it, BLAST traceback operations.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::accession::accession;
use super::json::{json_number, json_string};
use super::{Column, HspRecord};

/// One column's value of one alignment, before it is written as text or JSON.
#[derive(Debug)]
pub(super) enum Cell<'a> {
    /// Text (a string in JSON).
    Text(Cow<'a, str>),
    /// A count or a position.
    Int(i64),
    /// A percentage: full precision in JSON, `decimals` in text.
    Percent(f64, usize),
    /// An E-value, `None` without statistics (`NA` in text, null in JSON).
    Evalue(Option<f64>),
    /// A bit score, `None` without statistics (`NA` in text, null in JSON).
    BitScore(Option<f64>),
    /// `plus`/`minus`, or `None` for protein (`N/A` in text, null in JSON).
    Strand(Option<&'static str>),
}

impl Cell<'_> {
    /// Writes the value as a tabular cell.
    pub(super) fn write_text(&self, out: &mut String) {
        match self {
            Cell::Text(text) => out.push_str(text),
            Cell::Int(value) => {
                let _ = write!(out, "{value}");
            }
            Cell::Percent(value, decimals) => {
                let _ = write!(out, "{value:.decimals$}");
            }
            Cell::Evalue(Some(value)) => out.push_str(&format_evalue(*value)),
            Cell::BitScore(Some(value)) => out.push_str(&format_bit_score(*value)),
            Cell::Evalue(None) | Cell::BitScore(None) => out.push_str("NA"),
            Cell::Strand(strand) => out.push_str(strand.unwrap_or("N/A")),
        }
    }

    /// Writes the value as a JSON value.
    pub(super) fn write_json(&self, out: &mut String) {
        match self {
            Cell::Text(text) => out.push_str(&json_string(text)),
            Cell::Int(value) => {
                let _ = write!(out, "{value}");
            }
            Cell::Percent(value, _) | Cell::Evalue(Some(value)) | Cell::BitScore(Some(value)) => {
                out.push_str(&json_number(*value))
            }
            Cell::Evalue(None) | Cell::BitScore(None) | Cell::Strand(None) => out.push_str("null"),
            Cell::Strand(Some(strand)) => out.push_str(&json_string(strand)),
        }
    }
}

/// The value of `column` for `hsp` (`dna`: whether `sstrand` reads `plus`/`minus`).
pub(super) fn cell(column: Column, hsp: &HspRecord, dna: bool) -> Cell<'_> {
    let int = |value: usize| Cell::Int(value as i64);
    let long = |value: u64| Cell::Int(value as i64);
    match column {
        Column::QuerySeqId => Cell::Text(Cow::Borrowed(&hsp.query_id)),
        Column::QueryAcc => Cell::Text(accession(&hsp.query_id).0),
        Column::QueryAccVer => Cell::Text(accession(&hsp.query_id).1),
        Column::QueryLen => int(hsp.query_len),
        Column::SubjectSeqId => Cell::Text(Cow::Borrowed(&hsp.subject_id)),
        Column::SubjectAcc => Cell::Text(accession(&hsp.subject_id).0),
        Column::SubjectAccVer => Cell::Text(accession(&hsp.subject_id).1),
        Column::SubjectLen => long(hsp.subject_len),
        Column::QueryStart => int(hsp.query_start),
        Column::QueryEnd => int(hsp.query_end),
        Column::SubjectStart => long(hsp.subject_start),
        Column::SubjectEnd => long(hsp.subject_end),
        Column::QuerySeq => Cell::Text(String::from_utf8_lossy(&hsp.query_aligned)),
        Column::SubjectSeq => Cell::Text(String::from_utf8_lossy(&hsp.subject_aligned)),
        Column::Evalue => Cell::Evalue(hsp.evalue),
        Column::BitScore => Cell::BitScore(hsp.bit_score),
        Column::Score => Cell::Int(i64::from(hsp.score)),
        Column::Length => int(hsp.length),
        Column::PercentIdentity => Cell::Percent(percent(hsp.identities, hsp.length), 3),
        Column::Identities => int(hsp.identities),
        Column::Mismatches => int(hsp.mismatches),
        Column::Positives => int(hsp.positives),
        Column::GapOpens => int(hsp.gap_opens),
        Column::Gaps => int(hsp.gaps),
        Column::PercentPositives => Cell::Percent(percent(hsp.positives, hsp.length), 2),
        Column::SubjectStrand => Cell::Strand(match (dna, hsp.minus) {
            (false, _) => None,
            (true, false) => Some("plus"),
            (true, true) => Some("minus"),
        }),
        Column::QueryCoverSubject => {
            Cell::Int(coverage(hsp.query_covered_by_subject, hsp.query_len))
        }
        Column::QueryCoverHsp => {
            let span = (hsp.query_end + 1).saturating_sub(hsp.query_start);
            Cell::Int(coverage(span, hsp.query_len))
        }
        Column::Btop => Cell::Text(Cow::Owned(btop(&hsp.query_aligned, &hsp.subject_aligned))),
    }
}

/// `100 x part / whole`, 0 when `whole` is 0.
fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// BLAST's integer query coverage: rounded half up below 99 %, truncated from 99 % on
/// (so 99.6 % reads 99, and only a whole query reads 100).
pub(super) fn coverage(covered: usize, query_len: usize) -> i64 {
    let value = percent(covered, query_len);
    if value < 99.0 {
        (value + 0.5) as i64
    } else {
        value as i64
    }
}

/// BLAST's traceback operations: the length of each run of identical pairs, and for
/// every other column the query letter then the subject letter (`-` for a gap).
fn btop(query: &[u8], subject: &[u8]) -> String {
    let mut text = String::new();
    let mut run = 0usize;
    for (&q, &s) in query.iter().zip(subject) {
        if q != b'-' && q.eq_ignore_ascii_case(&s) {
            run += 1;
            continue;
        }
        if run > 0 {
            let _ = write!(text, "{run}");
            run = 0;
        }
        text.push(q as char);
        text.push(s as char);
    }
    if run > 0 {
        let _ = write!(text, "{run}");
    }
    text
}

/// E-values as BLAST's tabular output prints them.
pub fn format_evalue(evalue: f64) -> String {
    if evalue < 1.0e-180 {
        "0.0".to_string()
    } else if evalue < 0.0009 {
        scientific(evalue, 2)
    } else if evalue < 0.1 {
        format!("{evalue:.3}")
    } else if evalue < 1.0 {
        format!("{evalue:.2}")
    } else if evalue < 10.0 {
        format!("{evalue:.1}")
    } else {
        format!("{evalue:.0}")
    }
}

/// Bit scores as BLAST's tabular output prints them.
pub fn format_bit_score(bits: f64) -> String {
    if bits > 9999.0 {
        scientific(bits, 3)
    } else if bits > 99.9 {
        format!("{}", bits as i64)
    } else {
        format!("{bits:.1}")
    }
}

/// C's `%.{precision}e`: a two-digit (at least) exponent with its sign.
fn scientific(value: f64, precision: usize) -> String {
    let text = format!("{value:.precision$e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) => {
            let (sign, digits) = match exponent.strip_prefix('-') {
                Some(digits) => ('-', digits),
                None => ('+', exponent),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_blast_prints_them() {
        assert_eq!(format_evalue(2.3112e-174), "2.31e-174");
        assert_eq!(format_evalue(3.0e-5), "3.00e-05");
        assert_eq!(format_evalue(1.0e-200), "0.0");
        assert_eq!(format_evalue(0.0123), "0.012");
        assert_eq!(format_evalue(0.5), "0.50");
        assert_eq!(format_evalue(3.24), "3.2");
        assert_eq!(format_evalue(123.4), "123");
        assert_eq!(format_bit_score(679.9), "679");
        assert_eq!(format_bit_score(43.128), "43.1");
        assert_eq!(format_bit_score(12345.0), "1.234e+04");
    }
}
