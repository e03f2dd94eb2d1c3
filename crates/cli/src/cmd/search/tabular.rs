//! The search's results: per-query top hits kept across database chunks, and their lines
//! in BLAST's tabular format (`-outfmt 6`).

use std::fmt::Write as _;

use seqfarm_sw::stats::KarlinParams;
use seqfarm_sw::Alignment;

use super::format::{format_bit_score, format_evalue};

/// A database sequence that may be reported: its score and position in the database
/// (the tie-breaker), its name and encoded residues (kept for the traceback).
#[derive(Debug, Clone, Default)]
pub struct Hit {
    /// Local alignment score.
    pub score: i32,
    /// 0-based position of the sequence in the database.
    pub ordinal: u64,
    /// FASTA name.
    pub name: String,
    /// Residues, encoded for the matrix.
    pub codes: Vec<u8>,
}

impl Hit {
    /// Hits sort best first: higher score, then earlier in the database. A total order
    /// on data that does not depend on threads, so output is identical at any count.
    pub fn better_than(&self, score: i32, ordinal: u64) -> bool {
        (self.score, std::cmp::Reverse(self.ordinal)) > (score, std::cmp::Reverse(ordinal))
    }
}

/// The best `capacity` hits seen so far for one query, best first.
#[derive(Debug, Clone, Default)]
pub struct TopHits {
    capacity: usize,
    hits: Vec<Hit>,
}

impl TopHits {
    /// An empty list keeping at most `capacity` hits.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity,
            hits: Vec::new(),
        }
    }

    /// Whether a hit with this score and ordinal would be kept.
    pub fn wants(&self, score: i32, ordinal: u64) -> bool {
        score > 0
            && self.capacity > 0
            && (self.hits.len() < self.capacity
                || self
                    .hits
                    .last()
                    .is_some_and(|worst| !worst.better_than(score, ordinal)))
    }

    /// Offers a hit; `make` builds it (copying name and residues) only if it is kept.
    pub fn offer(&mut self, score: i32, ordinal: u64, make: impl FnOnce() -> Hit) {
        if !self.wants(score, ordinal) {
            return;
        }
        let position = self
            .hits
            .iter()
            .position(|h| !h.better_than(score, ordinal))
            .unwrap_or(self.hits.len());
        self.hits.insert(position, make());
        self.hits.truncate(self.capacity);
    }

    /// The hits, best first.
    pub fn into_hits(self) -> Vec<Hit> {
        self.hits
    }
}

/// What a tabular line needs besides the alignment.
pub struct LineContext<'a> {
    /// Query name.
    pub query: &'a str,
    /// Subject name.
    pub subject: &'a str,
    /// Statistics, when the scoring scheme has them.
    pub params: Option<&'a KarlinParams>,
    /// Effective search space of this query against the database.
    pub search_space: f64,
}

/// Appends one `-outfmt 6` line: qseqid sseqid pident length mismatch gapopen qstart
/// qend sstart send evalue bitscore (coordinates 1-based; `NA` for evalue and bitscore
/// when the scoring scheme has no Karlin-Altschul parameters).
pub fn write_line(out: &mut String, context: &LineContext<'_>, a: &Alignment) {
    let _ = write!(
        out,
        "{}\t{}\t{:.3}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t",
        context.query,
        context.subject,
        a.percent_identity(),
        a.length,
        a.mismatches,
        a.gap_opens,
        a.query_start + 1,
        a.query_end,
        a.subject_start + 1,
        a.subject_end,
    );
    match context.params {
        Some(params) => {
            out.push_str(&format_evalue(params.evalue(a.score, context.search_space)));
            out.push('\t');
            out.push_str(&format_bit_score(params.bit_score(a.score)));
        }
        None => out.push_str("NA\tNA"),
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_hits_keep_the_best_with_earlier_first_on_ties() {
        let mut top = TopHits::new(2);
        let hit = |score, ordinal| Hit {
            score,
            ordinal,
            ..Hit::default()
        };
        top.offer(10, 5, || hit(10, 5));
        top.offer(0, 1, || hit(0, 1));
        top.offer(10, 2, || hit(10, 2));
        top.offer(10, 9, || hit(10, 9));
        top.offer(3, 0, || hit(3, 0));
        let kept: Vec<(i32, u64)> = top
            .into_hits()
            .iter()
            .map(|h| (h.score, h.ordinal))
            .collect();
        assert_eq!(kept, [(10, 2), (10, 5)]);
    }
}
