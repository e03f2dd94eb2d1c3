//! The scoring options (`--ma --mp --np --rdg --rfg --score-min --n-ceil --gbar
//! --ignore-quals`), bowtie2's meaning each.

// The options' doc comments are their `--help` text, bowtie2's defaults in brackets
// (`[1]`, `[6,2]`), not links.
#![allow(rustdoc::broken_intra_doc_links)]

use super::values::truncated_int;

/// bowtie2's scoring options.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Scoring")]
pub struct ScoringArgs {
    /// Match bonus [0 end-to-end, where bowtie2 ignores it; 2 --local]
    #[arg(long, value_name = "N", value_parser = truncated_int::<i32>, allow_negative_numbers = true)]
    pub ma: Option<i32>,
    /// Mismatch penalties MX[,MN]: MX at high quality, MN at Q0 [6,2]
    #[arg(long, value_name = "MX[,MN]", allow_hyphen_values = true)]
    pub mp: Option<String>,
    /// Penalty of an N in the read or the reference [1]
    #[arg(long, value_name = "N", value_parser = truncated_int::<i32>, allow_negative_numbers = true)]
    pub np: Option<i32>,
    /// Read gap open, extend penalties [5,3]
    #[arg(long, value_name = "OPEN[,EXTEND]", allow_hyphen_values = true)]
    pub rdg: Option<String>,
    /// Reference gap open, extend penalties [5,3]
    #[arg(long, value_name = "OPEN[,EXTEND]", allow_hyphen_values = true)]
    pub rfg: Option<String>,
    /// Minimum score as a function of read length [L,-0.6,-0.6; --local G,20,8]
    #[arg(
        long,
        alias = "min-score",
        value_name = "FUNC",
        allow_hyphen_values = true
    )]
    pub score_min: Option<String>,
    /// Most N positions in an alignment, a function of read length [L,0,0.15]
    #[arg(long, value_name = "FUNC", allow_hyphen_values = true)]
    pub n_ceil: Option<String>,
    /// No gap within N positions of either read end [4]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000), allow_negative_numbers = true)]
    pub gbar: Option<u32>,
    /// Score every mismatch as at high quality (the maximum penalty, as bowtie2 does)
    #[arg(long)]
    pub ignore_quals: bool,
}
