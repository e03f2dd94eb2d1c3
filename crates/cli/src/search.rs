//! `seqfarm search`'s arguments, the checks of their values, and their conversion into
//! the search's options.

use std::path::PathBuf;

use crate::common::{FarmArgs, ForceArg};

use seqfarm::cmd::search::{GpuChoice, SearchOptions, StrandChoice};

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
    #[arg(long, value_name = "K", default_value_t = SearchOptions::default().top, value_parser = at_least_one, allow_negative_numbers = true)]
    pub top: usize,
    /// Exactly --top hits: of those tied with the K-th, the first in the database
    #[arg(long)]
    pub top_strict: bool,
    /// Report alignments with an E-value of at most X (BLAST's -evalue; not applied
    /// when the scoring has no statistics)
    #[arg(
        long,
        value_name = "X",
        default_value_t = SearchOptions::default().evalue,
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
    pub strand: Option<StrandArg>,
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
    #[arg(short = 'o', long, value_name = "FILE", default_value_os_t = SearchOptions::default().output)]
    pub output: PathBuf,
    /// Substitution matrix: BLOSUM45/50/62/80/90, PAM30/70/250, or an NCBI-format file
    #[arg(long, value_name = "NAME|FILE", default_value_t = SearchOptions::default().matrix)]
    pub matrix: String,
    /// Nucleotide scoring with --match/--mismatch instead of a matrix
    #[arg(long, conflicts_with = "matrix")]
    pub dna: bool,
    /// Score of a nucleotide match (with --dna)
    #[arg(
        long = "match",
        value_name = "SCORE",
        default_value_t = SearchOptions::default().match_score,
        requires = "dna",
        allow_negative_numbers = true
    )]
    pub match_score: i32,
    /// Score of a nucleotide mismatch, usually negative (with --dna)
    #[arg(long, value_name = "SCORE", default_value_t = SearchOptions::default().mismatch, allow_negative_numbers = true, requires = "dna")]
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
    pub gpu: Option<GpuArg>,
    /// Database bytes per farm task (whole records) [default: 1 MiB, 16 MiB with --gpu]
    #[arg(long, value_name = "BYTES", hide = true)]
    pub chunk_size: Option<usize>,
    #[command(flatten)]
    pub farm: FarmArgs,
    #[command(flatten)]
    pub force: ForceArg,
}

impl SearchArgs {
    /// The search these arguments ask for.
    pub fn into_options(self) -> SearchOptions {
        SearchOptions {
            query: self.query,
            database: self.database,
            output: self.output,
            top: self.top,
            top_strict: self.top_strict,
            evalue: self.evalue,
            min_score: self.min_score,
            max_hsps: self.max_hsps,
            strand: self.strand.map(StrandChoice::from),
            outfmt: self.outfmt,
            json: self.json,
            scores_only: self.scores_only,
            matrix: self.matrix,
            dna: self.dna,
            match_score: self.match_score,
            mismatch: self.mismatch,
            gap_open: self.gap_open,
            gap_extend: self.gap_extend,
            gpu: self.gpu.map_or(GpuChoice::Off, GpuChoice::from),
            chunk_size: self.chunk_size,
            farm: self.farm.options(),
            force: self.force.force,
        }
    }
}

/// `--gpu`'s values: when `search` uses a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GpuArg {
    /// Always: an error if no GPU can be used.
    On,
    /// When one can be used; the CPU otherwise (saying why on standard error).
    Auto,
    /// Never.
    Off,
}

impl From<GpuArg> for GpuChoice {
    fn from(value: GpuArg) -> Self {
        match value {
            GpuArg::On => GpuChoice::On,
            GpuArg::Auto => GpuChoice::Auto,
            GpuArg::Off => GpuChoice::Off,
        }
    }
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

/// `--strand`'s values: the strands of a DNA database a search looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StrandArg {
    /// Both strands.
    Both,
    /// The sequences as written.
    Plus,
    /// Their reverse complements.
    Minus,
}

impl From<StrandArg> for StrandChoice {
    fn from(value: StrandArg) -> Self {
        match value {
            StrandArg::Both => StrandChoice::Both,
            StrandArg::Plus => StrandChoice::Plus,
            StrandArg::Minus => StrandChoice::Minus,
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

#[cfg(test)]
mod tests {
    use super::*;
    use seqfarm::options::FarmOptions;

    fn spelled(args: &[&str]) -> Vec<String> {
        gpu_spelling(args.iter().map(std::ffi::OsString::from))
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    /// The options of `seqfarm search ARGS`.
    fn parsed(args: &[&str]) -> SearchOptions {
        let argv = std::iter::once("search").chain(args.iter().copied());
        match crate::parse_command(argv).unwrap() {
            crate::Command::Search(args) => args.into_options(),
            _ => unreachable!("the search command parses as search"),
        }
    }

    #[test]
    fn the_command_line_defaults_are_the_options_defaults() {
        let options = SearchOptions {
            query: "q.fa".into(),
            database: "db.fa".into(),
            ..SearchOptions::default()
        };
        assert_eq!(parsed(&["q.fa", "db.fa"]), options);
    }

    #[test]
    fn every_argument_reaches_its_option() {
        let options = parsed(&[
            "--top=3",
            "--top-strict",
            "--evalue=0.5",
            "--min-score=20",
            "--max-hsps=1",
            "--dna",
            "--strand=minus",
            "--outfmt=7",
            "--json",
            "-o",
            "out.tsv",
            "--match=1",
            "--mismatch=-2",
            "--gap-open=4",
            "--gap-extend=3",
            "--gpu",
            "auto",
            "--chunk-size=4096",
            "-t",
            "3",
            "--pin",
            "--stats",
            "s.json",
            "--force",
            "q.fa",
            "db.fa",
        ]);
        let expected = SearchOptions {
            query: "q.fa".into(),
            database: "db.fa".into(),
            output: "out.tsv".into(),
            top: 3,
            top_strict: true,
            evalue: 0.5,
            min_score: Some(20),
            max_hsps: Some(1),
            strand: Some(StrandChoice::Minus),
            outfmt: Some("7".into()),
            json: true,
            scores_only: false,
            matrix: "BLOSUM62".into(),
            dna: true,
            match_score: 1,
            mismatch: -2,
            gap_open: Some(4),
            gap_extend: Some(3),
            gpu: GpuChoice::Auto,
            chunk_size: Some(4096),
            farm: FarmOptions {
                threads: Some(3),
                pin: true,
                stats: Some("s.json".into()),
            },
            force: true,
        };
        assert_eq!(options, expected);
        let scores = parsed(&[
            "--scores-only",
            "--matrix",
            "PAM30",
            "--gpu",
            "q.fa",
            "db.fa",
        ]);
        assert!(scores.scores_only);
        assert_eq!(
            (scores.matrix.as_str(), scores.gpu),
            ("PAM30", GpuChoice::On)
        );
        assert_eq!(parsed(&["--gpu=off", "q.fa", "db.fa"]).gpu, GpuChoice::Off);
    }

    #[test]
    fn gpu_takes_a_value_after_a_space_and_leaves_files_alone() {
        assert_eq!(
            spelled(&["--gpu", "auto", "q.fa", "db.fa"]),
            ["--gpu=auto", "q.fa", "db.fa"]
        );
        assert_eq!(
            spelled(&["--gpu", "q.fa", "db.fa"]),
            ["--gpu", "q.fa", "db.fa"]
        );
        assert_eq!(
            spelled(&["q.fa", "--gpu", "off", "db.fa"]),
            ["q.fa", "--gpu=off", "db.fa"]
        );
        assert_eq!(spelled(&["--top", "auto"]), ["--top", "auto"]);
    }

    #[test]
    fn an_evalue_too_small_to_hold_is_not_called_0() {
        assert_eq!(positive_evalue("1e-5"), Ok(1e-5));
        assert_eq!(positive_evalue("0").unwrap_err(), "must be above 0");
        assert_eq!(positive_evalue("0.0e3").unwrap_err(), "must be above 0");
        assert_eq!(positive_evalue("-1").unwrap_err(), "must be above 0");
        let small = positive_evalue("1e-400").unwrap_err();
        assert!(small.contains("smallest"), "{small}");
    }
}
