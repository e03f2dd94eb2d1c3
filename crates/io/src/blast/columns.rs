//! The columns of BLAST's tabular format: the [`Column`] names `-outfmt` takes, their
//! labels in `-outfmt 7`'s `# Fields:` line and their meanings, and the column lists
//! used when none is given ([`STANDARD`], [`DEFAULT`], [`JSON_EXTRA`]).

/// A column of BLAST's tabular format, named as `-outfmt` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// `qseqid`: the query's name (the first word of its header).
    QuerySeqId,
    /// `qacc`: the query's accession.
    QueryAcc,
    /// `qaccver`: the query's accession with its version.
    QueryAccVer,
    /// `qlen`: query length.
    QueryLen,
    /// `sseqid`: the subject's name.
    SubjectSeqId,
    /// `sacc`: the subject's accession.
    SubjectAcc,
    /// `saccver`: the subject's accession with its version.
    SubjectAccVer,
    /// `slen`: subject length.
    SubjectLen,
    /// `qstart`: start of the alignment in the query.
    QueryStart,
    /// `qend`: end of the alignment in the query.
    QueryEnd,
    /// `sstart`: start of the alignment in the subject.
    SubjectStart,
    /// `send`: end of the alignment in the subject.
    SubjectEnd,
    /// `qseq`: aligned part of the query.
    QuerySeq,
    /// `sseq`: aligned part of the subject.
    SubjectSeq,
    /// `evalue`: expect value.
    Evalue,
    /// `bitscore`: bit score.
    BitScore,
    /// `score`: raw score.
    Score,
    /// `length`: alignment length.
    Length,
    /// `pident`: percentage of identical pairs.
    PercentIdentity,
    /// `nident`: identical pairs.
    Identities,
    /// `mismatch`: mismatched pairs.
    Mismatches,
    /// `positive`: pairs with a positive score.
    Positives,
    /// `gapopen`: gap openings.
    GapOpens,
    /// `gaps`: gap columns.
    Gaps,
    /// `ppos`: percentage of positive-scoring pairs.
    PercentPositives,
    /// `sstrand`: subject strand.
    SubjectStrand,
    /// `qcovs`: query coverage per subject.
    QueryCoverSubject,
    /// `qcovhsp`: query coverage per alignment.
    QueryCoverHsp,
    /// `btop`: blast traceback operations.
    Btop,
}

/// Every column: its `-outfmt` name, its label in `-outfmt 7`'s `# Fields:` line, and its
/// meaning (BLAST's), in BLAST's order of `-help`.
#[rustfmt::skip]
const COLUMNS: [(Column, &str, &str, &str); 29] = [
    (Column::QuerySeqId, "qseqid", "query id", "query name: the first word of its FASTA header"),
    (Column::QueryAcc, "qacc", "query acc.", "query accession, as a BLAST database built with `-parse_seqids` holds it (`P12345` for `sp|P12345|NAME_HUMAN`, `NC_045512` for `NC_045512.2`; a name that is no accession, like `chr1`, as it is)"),
    (Column::QueryAccVer, "qaccver", "query acc.ver", "query accession with its version (`NC_045512.2`)"),
    (Column::QueryLen, "qlen", "query length", "query length"),
    (Column::SubjectSeqId, "sseqid", "subject id", "subject name: the first word of its FASTA header"),
    (Column::SubjectAcc, "sacc", "subject acc.", "subject accession, as `qacc`"),
    (Column::SubjectAccVer, "saccver", "subject acc.ver", "subject accession with its version, as `qaccver`"),
    (Column::SubjectLen, "slen", "subject length", "subject length"),
    (Column::QueryStart, "qstart", "q. start", "first aligned query position (1-based)"),
    (Column::QueryEnd, "qend", "q. end", "last aligned query position"),
    (Column::SubjectStart, "sstart", "s. start", "subject position aligned to `qstart` (the larger one on the minus strand)"),
    (Column::SubjectEnd, "send", "s. end", "subject position aligned to `qend`"),
    (Column::QuerySeq, "qseq", "query seq", "aligned query residues, `-` for gaps"),
    (Column::SubjectSeq, "sseq", "subject seq", "aligned subject residues, `-` for gaps (reverse complement on the minus strand)"),
    (Column::Evalue, "evalue", "evalue", "expect value: alignments scoring as well expected by chance in a database of this size"),
    (Column::BitScore, "bitscore", "bit score", "bit score: the raw score normalized by the Karlin-Altschul lambda and K"),
    (Column::Score, "score", "score", "raw score"),
    (Column::Length, "length", "alignment length", "alignment columns: pairs and gaps"),
    (Column::PercentIdentity, "pident", "% identity", "100 x nident / length, 3 decimals"),
    (Column::Identities, "nident", "identical", "identical pairs"),
    (Column::Mismatches, "mismatch", "mismatches", "pairs of different residues"),
    (Column::Positives, "positive", "positives", "pairs scoring above 0 (identities included)"),
    (Column::GapOpens, "gapopen", "gap opens", "runs of gap columns"),
    (Column::Gaps, "gaps", "gaps", "gap columns"),
    (Column::PercentPositives, "ppos", "% positives", "100 x positive / length, 2 decimals"),
    (Column::SubjectStrand, "sstrand", "subject strand", "`plus` or `minus` (DNA), `N/A` (protein)"),
    (Column::QueryCoverSubject, "qcovs", "% query coverage per subject", "percentage of the query covered by all the reported alignments to this subject together (an integer: rounded half up below 99, truncated from 99 on)"),
    (Column::QueryCoverHsp, "qcovhsp", "% query coverage per hsp", "percentage of the query covered by this alignment, qend - qstart + 1 residues (an integer, rounded as `qcovs`)"),
    (Column::Btop, "btop", "BTOP", "blast traceback operations: runs of identities as numbers, other columns as query then subject letter"),
];

/// BLAST's `std`: what `-outfmt 6` and `-outfmt 7` print without a column list.
pub const STANDARD: [Column; 12] = [
    Column::QueryAccVer,
    Column::SubjectAccVer,
    Column::PercentIdentity,
    Column::Length,
    Column::Mismatches,
    Column::GapOpens,
    Column::QueryStart,
    Column::QueryEnd,
    Column::SubjectStart,
    Column::SubjectEnd,
    Column::Evalue,
    Column::BitScore,
];

/// What `seqfarm search` prints without `--outfmt`: `std` with the full names
/// (`qseqid sseqid`) in place of the accessions.
pub const DEFAULT: [Column; 12] = {
    let mut columns = STANDARD;
    columns[0] = Column::QuerySeqId;
    columns[1] = Column::SubjectSeqId;
    columns
};

/// What `--json` adds to [`DEFAULT`] without `--outfmt`.
pub const JSON_EXTRA: [Column; 3] = [Column::QueryLen, Column::SubjectLen, Column::Score];

impl Column {
    /// Every column, in the order of BLAST's `-help`.
    pub fn all() -> impl Iterator<Item = Column> {
        COLUMNS.iter().map(|c| c.0)
    }

    fn entry(self) -> &'static (Column, &'static str, &'static str, &'static str) {
        COLUMNS
            .iter()
            .find(|c| c.0 == self)
            .expect("every column is in the table")
    }

    /// The `-outfmt` name (`qseqid`).
    pub fn name(self) -> &'static str {
        self.entry().1
    }

    /// The label in `-outfmt 7`'s `# Fields:` line (`query id`).
    pub fn label(self) -> &'static str {
        self.entry().2
    }

    /// BLAST's meaning of the column, one line (the README's table of columns repeats
    /// it, which a test checks).
    pub fn meaning(self) -> &'static str {
        self.entry().3
    }

    /// The column of this `-outfmt` name.
    pub fn from_name(name: &str) -> Option<Column> {
        COLUMNS.iter().find(|c| c.1 == name).map(|c| c.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_is_blast_2_12_std() {
        let names: Vec<&str> = STANDARD.iter().map(|c| c.name()).collect();
        assert_eq!(
            names.join(" "),
            "qaccver saccver pident length mismatch gapopen qstart qend sstart send evalue bitscore"
        );
    }

    #[test]
    fn column_names_are_unique_and_every_column_is_listed() {
        let names: Vec<&str> = Column::all().map(Column::name).collect();
        for (i, name) in names.iter().enumerate() {
            assert!(!names[..i].contains(name), "{name}");
            assert_eq!(Column::from_name(name).map(Column::name), Some(*name));
        }
        assert_eq!(names.len(), COLUMNS.len());
    }

    #[test]
    fn readme_lists_every_column_with_its_meaning() {
        let readme = include_str!("../../../../README.md");
        for column in Column::all() {
            let (name, label) = (column.name(), column.label());
            let meaning = column.meaning().replace('|', "\\|");
            let row = format!("| `{name}` | {label} | {meaning} |");
            assert!(readme.contains(&row), "README lacks the row\n{row}");
        }
    }
}
