//! One reported alignment (a high-scoring segment pair, in BLAST's words) with every
//! figure the output formats print, already in BLAST's conventions: the search fills
//! it, the writers only print it.

/// A reported alignment of a query and a subject on one strand.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HspRecord {
    /// The query's name (the first word of its header).
    pub query_id: String,
    /// Query residues.
    pub query_len: usize,
    /// The subject's name (the first word of its header).
    pub subject_id: String,
    /// Subject residues (the whole database sequence).
    pub subject_len: u64,
    /// Whether the query aligns to the subject's reverse complement (DNA only).
    pub minus: bool,
    /// Raw local alignment score.
    pub score: i32,
    /// Expect value, when the scoring scheme has Karlin-Altschul parameters.
    pub evalue: Option<f64>,
    /// Bit score, when the scoring scheme has Karlin-Altschul parameters.
    pub bit_score: Option<f64>,
    /// First aligned query residue, 1-based (always `<= query_end`).
    pub query_start: usize,
    /// Last aligned query residue, 1-based.
    pub query_end: usize,
    /// Subject position aligned to `query_start`, 1-based: on the minus strand it is the
    /// larger coordinate (`subject_start > subject_end`), as BLAST writes it.
    pub subject_start: u64,
    /// Subject position aligned to `query_end`, 1-based.
    pub subject_end: u64,
    /// Alignment columns (pairs and gap columns).
    pub length: usize,
    /// Pairs of identical residues.
    pub identities: usize,
    /// Pairs of different residues.
    pub mismatches: usize,
    /// Pairs scoring above 0 in the substitution matrix (identities included).
    pub positives: usize,
    /// Runs of gap columns.
    pub gap_opens: usize,
    /// Gap columns.
    pub gaps: usize,
    /// The query's aligned residues with `-` for gaps, query start to end (plus strand).
    pub query_aligned: Vec<u8>,
    /// The subject's aligned residues with `-` for gaps, in the same columns (on the
    /// minus strand, the reverse complement of the subject's segment).
    pub subject_aligned: Vec<u8>,
    /// Query residues covered by the union of every reported alignment of this query
    /// and subject (both strands), for BLAST's `qcovs`.
    pub query_covered_by_subject: usize,
}
