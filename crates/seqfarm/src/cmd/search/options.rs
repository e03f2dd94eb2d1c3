//! What a search takes, as plain values: the inputs, the output and every setting of
//! `seqfarm search`, with the command's defaults.

use std::path::{Path, PathBuf};

use crate::options::FarmOptions;

use super::hits::Strand;

/// A search of `database` with the queries of `query`, its report written to `output`;
/// the defaults are those of `seqfarm search` (the inputs have none: set both).
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOptions {
    /// Query sequences (FASTA, plain or gzip; `-`: standard input).
    pub query: PathBuf,
    /// Database sequences (FASTA, plain or gzip, streamed; `-`: standard input, which
    /// the query cannot read too).
    pub database: PathBuf,
    /// Where the report goes (`-`: standard output); replaced if it exists.
    pub output: PathBuf,
    /// Hits (database sequences) reported per query, at least 1; every hit tied with the
    /// last is reported too unless `top_strict`.
    pub top: usize,
    /// Exactly `top` hits: of those tied with the last, the first in the database.
    pub top_strict: bool,
    /// Alignments with an E-value above this are not reported (above 0; not applied
    /// when the scoring has no statistics).
    pub evalue: f64,
    /// Alignments with a raw score below this are not reported (`None`: any score above
    /// 0).
    pub min_score: Option<i32>,
    /// Alignments reported per query and subject, at least 1 (`None`: the best of each
    /// strand searched).
    pub max_hsps: Option<usize>,
    /// Strands of the database searched, with `dna` only (`None`: both).
    pub strand: Option<StrandChoice>,
    /// Output columns, as BLAST's `-outfmt` (`None`: `6`, tabular); not with
    /// `scores_only`.
    pub outfmt: Option<String>,
    /// One JSON document instead of tabular lines; not with `scores_only`.
    pub json: bool,
    /// `qseqid sseqid score` for every pair instead of the top hits.
    pub scores_only: bool,
    /// Substitution matrix: a built-in name (BLOSUM62, PAM30...) or an NCBI-format
    /// file; not used with `dna`.
    pub matrix: String,
    /// Nucleotide scoring with `match_score` and `mismatch` instead of a matrix.
    pub dna: bool,
    /// Score of a nucleotide match (with `dna`).
    pub match_score: i32,
    /// Score of a nucleotide mismatch, usually negative (with `dna`).
    pub mismatch: i32,
    /// Gap open cost: a gap of length k costs open + k * extend (`None`: BLAST's for
    /// the matrix, 5 with `dna`).
    pub gap_open: Option<i32>,
    /// Gap extension cost (`None`: BLAST's for the matrix, 2 with `dna`).
    pub gap_extend: Option<i32>,
    /// Whether the scores are computed on an NVIDIA GPU.
    pub gpu: GpuChoice,
    /// Database bytes per farm task, whole records (`None`: 1 MiB, 16 MiB when `gpu`
    /// asks for a GPU).
    pub chunk_size: Option<usize>,
    /// The farm's workers and its statistics file.
    pub farm: FarmOptions,
    /// `--force`: accepted; an existing output is replaced either way.
    pub force: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            query: PathBuf::new(),
            database: PathBuf::new(),
            output: PathBuf::from("-"),
            top: 10,
            top_strict: false,
            evalue: 10.0,
            min_score: None,
            max_hsps: None,
            strand: None,
            outfmt: None,
            json: false,
            scores_only: false,
            matrix: "BLOSUM62".to_string(),
            dna: false,
            match_score: 2,
            mismatch: -3,
            gap_open: None,
            gap_extend: None,
            gpu: GpuChoice::Off,
            chunk_size: None,
            farm: FarmOptions::default(),
            force: false,
        }
    }
}

impl SearchOptions {
    /// Refuses inputs the search cannot read and values the command line's parser
    /// would refuse (those it refuses after parsing with the same messages).
    pub fn check(&self) -> anyhow::Result<()> {
        if self.query == Path::new("-") && self.database == Path::new("-") {
            option_error!("the query and the database cannot both be standard input");
        }
        if self.evalue.is_nan() || self.evalue <= 0.0 {
            option_error!("--evalue {}: must be above 0", self.evalue);
        }
        for (path, what) in [(&self.query, "query"), (&self.database, "database")] {
            if path.as_os_str().is_empty() {
                option_error!("no {what} file given");
            }
        }
        for (option, count) in [("--top", Some(self.top)), ("--max-hsps", self.max_hsps)] {
            if count == Some(0) {
                option_error!("{option} 0: must be at least 1");
            }
        }
        if self.strand.is_some() && !self.dna {
            option_error!("--strand: only with --dna");
        }
        if self.scores_only {
            for (option, given) in [("--outfmt", self.outfmt.is_some()), ("--json", self.json)] {
                if given {
                    option_error!("{option} cannot be used with --scores-only");
                }
            }
        }
        Ok(())
    }

    /// Whether `matrix` names a file rather than a built-in matrix (never with `dna`).
    pub(super) fn custom_matrix(&self) -> bool {
        !self.dna && seqfarm_sw::ScoreMatrix::builtin(&self.matrix).is_none()
    }
}

/// When a search uses a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuChoice {
    /// Always: an error if no GPU can be used.
    On,
    /// When one can be used; the CPU otherwise (saying why on standard error).
    Auto,
    /// Never.
    Off,
}

impl GpuChoice {
    /// Whether a GPU is asked for (`On` or `Auto`), found or not.
    pub fn asks_for_gpu(self) -> bool {
        matches!(self, GpuChoice::On | GpuChoice::Auto)
    }
}

/// The strands of a DNA database a search looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrandChoice {
    /// Both strands.
    Both,
    /// The sequences as written.
    Plus,
    /// Their reverse complements.
    Minus,
}

impl StrandChoice {
    /// The strands, plus first.
    pub(super) fn strands(self) -> &'static [Strand] {
        match self {
            StrandChoice::Both => &Strand::BOTH,
            StrandChoice::Plus => &Strand::BOTH[..1],
            StrandChoice::Minus => &Strand::BOTH[1..],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::option_value::OptionValueError;

    fn searching(query: &str, database: &str) -> SearchOptions {
        SearchOptions {
            query: query.into(),
            database: database.into(),
            ..SearchOptions::default()
        }
    }

    fn refusal(options: &SearchOptions) -> String {
        let error = options.check().unwrap_err();
        assert!(error.downcast_ref::<OptionValueError>().is_some());
        error.to_string()
    }

    #[test]
    fn defaults_with_both_inputs_pass_the_checks() {
        searching("q.fa", "db.fa").check().unwrap();
        searching("-", "db.fa").check().unwrap();
    }

    #[test]
    fn values_the_parser_refuses_are_refused() {
        assert_eq!(
            refusal(&searching("-", "-")),
            "the query and the database cannot both be standard input"
        );
        assert_eq!(refusal(&searching("q.fa", "")), "no database file given");
        let with = |change: fn(&mut SearchOptions)| {
            let mut options = searching("q.fa", "db.fa");
            change(&mut options);
            refusal(&options)
        };
        assert_eq!(with(|o| o.evalue = 0.0), "--evalue 0: must be above 0");
        assert_eq!(
            with(|o| o.evalue = f64::NAN),
            "--evalue NaN: must be above 0"
        );
        assert_eq!(with(|o| o.top = 0), "--top 0: must be at least 1");
        assert_eq!(
            with(|o| o.max_hsps = Some(0)),
            "--max-hsps 0: must be at least 1"
        );
        assert_eq!(
            with(|o| o.strand = Some(StrandChoice::Plus)),
            "--strand: only with --dna"
        );
        assert_eq!(
            with(|o| {
                o.scores_only = true;
                o.json = true;
            }),
            "--json cannot be used with --scores-only"
        );
    }
}
