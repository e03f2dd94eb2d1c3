//! `seqfarm search`'s arguments and the checks of their values.

use std::path::PathBuf;

use crate::common::{FarmArgs, ForceArg};

use super::hits::Strand;

/// Smith-Waterman database search: every query against every database sequence, with
/// SIMD across database sequences (exact scores, like parasail's `sw_*`).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Output (default): for each query, its --top best database sequences \
(hits) with an E-value of at most --evalue, best first, one line per alignment in BLAST's \
tabular format (-outfmt 6): qseqid sseqid pident length mismatch gapopen qstart qend sstart \
send evalue bitscore; other columns with --outfmt, JSON with --json. A search finds the best \
alignment of each query and subject on each strand searched, so a DNA hit has up to two \
(minus-strand ones with sstart > send, as in BLAST). With --scores-only: `qseqid sseqid \
score` for every pair (the better strand for DNA), database order, queries in file order \
for each database sequence, no cut-off. Set SEQFARM_SIMD=scalar|avx2|avx512 to force a \
kernel. --gpu scores on an NVIDIA GPU (--gpu auto: where there is one; the CUDA driver and NVRTC 13, libnvrtc.so.13, loaded \
at run time; SEQFARM_GPU=N picks GPU N): the same scores, every worker thread feeding the GPU."
)]
pub struct SearchArgs {
    /// Query sequences (FASTA; gzip recognised; - for standard input)
    pub query: PathBuf,
    /// Database sequences (FASTA; gzip recognised; streamed, any size; - for standard input)
    pub database: PathBuf,
    /// Hits (database sequences) reported per query, and every hit tied with the K-th
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = at_least_one, allow_negative_numbers = true)]
    pub top: usize,
    /// Exactly --top hits: of those tied with the K-th, the first in the database
    #[arg(long)]
    pub top_strict: bool,
    /// Report alignments with an E-value of at most X (BLAST's -evalue; not applied
    /// when the scoring has no statistics)
    #[arg(
        long,
        value_name = "X",
        default_value_t = 10.0,
        value_parser = positive_evalue,
        allow_negative_numbers = true
    )]
    pub evalue: f64,
    /// Report alignments with a raw score of at least S
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub min_score: Option<i32>,
    /// Alignments reported per query and subject (the best of each strand searched)
    #[arg(long, value_name = "N", value_parser = at_least_one, allow_negative_numbers = true)]
    pub max_hsps: Option<usize>,
    /// Strands of the database searched with --dna: both (as blastn), plus or minus
    #[arg(long, value_enum, requires = "dna")]
    pub strand: Option<StrandChoice>,
    /// Output columns, as BLAST's -outfmt: "6" (tabular), "7" (tabular with comment
    /// lines), "6 qseqid sseqid evalue ...", "7 std qlen slen"
    #[arg(long, value_name = "FORMAT", conflicts_with = "scores_only")]
    pub outfmt: Option<String>,
    /// Write one JSON document (the --outfmt columns, typed) instead of tabular lines
    #[arg(long, conflicts_with = "scores_only")]
    pub json: bool,
    /// Write `qseqid sseqid score` for every pair instead of the top hits
    #[arg(long)]
    pub scores_only: bool,
    /// Output file (- for standard output)
    #[arg(short = 'o', long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
    /// Substitution matrix: BLOSUM45/50/62/80/90, PAM30/70/250, or an NCBI-format file
    #[arg(long, value_name = "NAME|FILE", default_value = "BLOSUM62")]
    pub matrix: String,
    /// Nucleotide scoring with --match/--mismatch instead of a matrix
    #[arg(long, conflicts_with = "matrix")]
    pub dna: bool,
    /// Score of a nucleotide match (with --dna)
    #[arg(
        long = "match",
        value_name = "SCORE",
        default_value_t = 2,
        requires = "dna",
        allow_negative_numbers = true
    )]
    pub match_score: i32,
    /// Score of a nucleotide mismatch, usually negative (with --dna)
    #[arg(long, value_name = "SCORE", default_value_t = -3, allow_negative_numbers = true, requires = "dna")]
    pub mismatch: i32,
    /// Gap open cost: a gap of length k costs open + k * extend [default: BLAST's for the
    /// matrix (11 for BLOSUM62, 9 for PAM30...), 5 with --dna]
    #[arg(long, value_name = "COST", allow_negative_numbers = true)]
    pub gap_open: Option<i32>,
    /// Gap extension cost [default: BLAST's for the matrix (1 for BLOSUM62), 2 with --dna]
    #[arg(long, value_name = "COST", allow_negative_numbers = true)]
    pub gap_extend: Option<i32>,
    /// Score on an NVIDIA GPU: --gpu needs one, --gpu auto (or --gpu=auto) uses one if
    /// there is one and the CPU otherwise
    #[arg(long, value_name = "WHEN", value_enum, num_args = 0..=1, require_equals = true,
          default_missing_value = "on")]
    pub gpu: Option<GpuChoice>,
    /// Database bytes per farm task (whole records) [default: 1 MiB, 16 MiB with --gpu]
    #[arg(long, value_name = "BYTES", hide = true)]
    pub chunk_size: Option<usize>,
    #[command(flatten)]
    pub farm: FarmArgs,
    #[command(flatten)]
    pub force: ForceArg,
}

/// When `search` uses a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GpuChoice {
    /// Always: an error if no GPU can be used.
    On,
    /// When one can be used; the CPU otherwise (saying why on standard error).
    Auto,
    /// Never.
    Off,
}

/// Rewrites the arguments of `seqfarm search` (after the command's name) so that
/// `--gpu auto` (and `on`, `off`) reads as `--gpu=auto`: `--gpu` alone takes no value, so
/// that `--gpu QUERY DATABASE` keeps its positional arguments. Every other argument is
/// kept.
pub fn gpu_spelling(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut out: Vec<std::ffi::OsString> = Vec::new();
    for arg in args {
        let joins = out.last().is_some_and(|last| last == "--gpu")
            && ["on", "auto", "off"].iter().any(|value| arg == *value);
        match out.last_mut() {
            Some(last) if joins => *last = format!("--gpu={}", arg.to_string_lossy()).into(),
            _ => out.push(arg),
        }
    }
    out
}

/// The strands of a DNA database a search looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
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

/// A count that must be at least 1.
pub(super) fn at_least_one(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{text:?} is not a number of at least 1")),
    }
}

/// `--evalue`'s value: a number above 0, which a double can hold (`1e-400` is below the
/// smallest, and would be read as 0).
pub(super) fn positive_evalue(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|e| format!("{e}"))?;
    if value.is_nan() || value < 0.0 {
        return Err("must be above 0".into());
    }
    if value == 0.0 {
        let zero = text.trim().trim_start_matches(['+', '-']);
        let written_as_zero = zero
            .split(['e', 'E'])
            .next()
            .is_some_and(|m| m.chars().all(|c| c == '0' || c == '.'));
        return Err(if written_as_zero {
            "must be above 0".into()
        } else {
            format!(
                "below the smallest E-value that can be held ({:e}); give that or more",
                f64::MIN_POSITIVE
            )
        });
    }
    Ok(value)
}
