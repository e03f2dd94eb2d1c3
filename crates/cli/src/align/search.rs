//! The search options: presets and mode, bowtie2's seed options and their older
//! spellings (`--policy`, `--multiseed`), effort, strands, reporting and the mapping
//! quality. How they become [`seqfarm_align::AlignParams`] is in `params.rs`.

// The options' doc comments are their `--help` text, bowtie2's defaults in brackets
// (`[1]`, `[6,2]`), not links.
#![allow(rustdoc::broken_intra_doc_links)]

use super::values::truncated_int;

/// The mapping quality reported (`--mapq`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MapqChoice {
    /// bowtie2's values (0-42 end to end, 0-44 local), by the model --mapq-v picks.
    Bowtie2,
    /// seqfarm's own, calibrated on simulated reads (0-60).
    Calibrated,
}

/// Presets, mode and bowtie2's seed search.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Presets and mode")]
pub struct SearchArgs {
    /// Preset: fewest seeds and candidates
    #[arg(long)]
    pub very_fast: bool,
    /// Preset: fewer candidates
    #[arg(long)]
    pub fast: bool,
    /// Preset: the default search effort
    #[arg(long)]
    pub sensitive: bool,
    /// Preset: shorter seeds, more candidates
    #[arg(long)]
    pub very_sensitive: bool,
    /// --very-fast with --local
    #[arg(long)]
    pub very_fast_local: bool,
    /// --fast with --local
    #[arg(long)]
    pub fast_local: bool,
    /// --sensitive with --local
    #[arg(long)]
    pub sensitive_local: bool,
    /// --very-sensitive with --local
    #[arg(long)]
    pub very_sensitive_local: bool,
    /// A preset by name, as bowtie2's -P: very-fast, fast, sensitive, very-sensitive, or
    /// one of them ending in -local for the local preset's seeds (it does not set
    /// --local)
    #[arg(short = 'P', long = "preset", value_name = "NAME")]
    pub preset_name: Option<String>,
    /// Align every read base (the default)
    #[arg(long, conflicts_with = "local")]
    pub end_to_end: bool,
    /// Local alignment: soft-clip ends, match bonus 2
    #[arg(long)]
    pub local: bool,
    /// BWA-SW's scoring, as bowtie2 mimics it: --local, match 1, mismatch 3, gaps 5+2k,
    /// minimum score max(30, 5.5 ln L) times the match bonus
    #[arg(long)]
    pub bwa_sw_like: bool,
    /// Gap penalties for homopolymer-noisy reads (454, Ion Torrent): 3+1k unless
    /// --rdg/--rfg say otherwise
    #[arg(long = "454", visible_alias = "ion-torrent")]
    pub noisy_homopolymers: bool,

    // ---- bowtie2's seed search (see docs/ALIGNER.md for seqfarm's)
    /// Mismatches in a seed, 0 or 1 (seqfarm's seeds are exact; 1 searches as --very-sensitive)
    #[arg(short = 'N', long = "seedmms", value_name = "0|1", value_parser = clap::value_parser!(u8).range(0..=1), allow_negative_numbers = true, help_heading = "Seeds and search")]
    pub seed_mismatches: Option<u8>,
    /// Seed length, 1 to 32 (bowtie2's seeds; also seqfarm's shortest SMEM seed, at least 12)
    #[arg(short = 'L', long = "seedlen", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=32), allow_negative_numbers = true, help_heading = "Seeds and search")]
    pub seed_len: Option<u32>,
    /// Interval between bowtie2's seeds as a function of read length
    #[arg(
        short = 'i',
        long = "seedival",
        value_name = "FUNC",
        allow_hyphen_values = true,
        value_parser = super::values::length_function,
        help_heading = "Seeds and search"
    )]
    pub seed_interval: Option<String>,
    /// bowtie2's older spelling of -N, -L and -i together: MMS,LEN,TYPE,CONSTANT,COEFFICIENT
    /// (the first term or more)
    #[arg(
        long,
        value_name = "SPEC",
        allow_hyphen_values = true,
        help_heading = "Seeds and search"
    )]
    pub multiseed: Vec<String>,
    /// bowtie2's alignment policy: LABEL=VALUE settings separated by `;` (MA, MMP, NP,
    /// RDG, RFG, MIN, NCEIL, SEED, SEEDLEN, DPS, ROUNDS, IVAL), read with the other
    /// scoring and seed options in command-line order
    #[arg(
        long,
        value_name = "SETTINGS",
        allow_hyphen_values = true,
        help_heading = "Seeds and search"
    )]
    pub policy: Vec<String>,
    /// Consecutive failed extensions before giving up (maps to candidates per read)
    #[arg(
        short = 'D',
        long = "fail-streak",
        value_name = "N",
        help_heading = "Seeds and search"
    )]
    pub extend_tries: Option<u32>,
    /// Re-seeding rounds for repetitive reads (maps to re-seeding of repeats)
    #[arg(
        short = 'R',
        long = "seed-rounds",
        value_name = "N",
        help_heading = "Seeds and search"
    )]
    pub reseeds: Option<u32>,
    /// Extra reference bases on each side of the DP table (validated; no effect)
    #[arg(long, value_name = "N", help_heading = "Seeds and search")]
    pub dpad: Option<u32>,
    /// Do not align the read as given (for pairs: the fragment's forward strand)
    #[arg(long, help_heading = "Seeds and search")]
    pub nofw: bool,
    /// Do not align the reverse complement (for pairs: the fragment's reverse strand)
    #[arg(long, help_heading = "Seeds and search")]
    pub norc: bool,
    /// No one-mismatch end-to-end search before seeding (no effect: seqfarm has none)
    #[arg(
        long,
        overrides_with = "one_mm_upfront",
        help_heading = "Seeds and search"
    )]
    pub no_1mm_upfront: bool,
    /// One-mismatch end-to-end search before seeding (bowtie2's default; no effect)
    #[arg(
        long = "1mm-upfront",
        overrides_with = "no_1mm_upfront",
        help_heading = "Seeds and search"
    )]
    pub one_mm_upfront: bool,
    /// Exact end-to-end search before seeding (bowtie2's default; no effect)
    #[arg(
        long,
        overrides_with = "no_exact_upfront",
        help_heading = "Seeds and search"
    )]
    pub exact_upfront: bool,
    /// No exact end-to-end search before seeding (no effect: seqfarm has none)
    #[arg(
        long,
        overrides_with = "exact_upfront",
        help_heading = "Seeds and search"
    )]
    pub no_exact_upfront: bool,
    /// Report alignments hanging off a reference end, soft-clipped (accepted; seqfarm
    /// aligns within the references, so there is none to report)
    #[arg(long, help_heading = "Seeds and search")]
    pub overhang: bool,

    // ---- Reporting
    /// Report up to N alignments per read or pair (the best is primary, others flag 256)
    #[arg(short = 'k', long = "khits", value_name = "N", value_parser = truncated_int::<u32>, conflicts_with = "all", allow_negative_numbers = true, help_heading = "Reporting")]
    pub report: Option<u32>,
    /// Report all alignments found (as -k with seqfarm's candidate limit)
    #[arg(short = 'a', long = "all", help_heading = "Reporting")]
    pub all: bool,
    /// bowtie2's deprecated -M (not in its help): accepted with bowtie2's warning, no effect
    #[arg(short = 'M', value_name = "N", value_parser = truncated_int::<u32>, help_heading = "Reporting")]
    pub max_hits: Option<u32>,
    /// The mapping quality: bowtie2's values, or seqfarm's calibrated ones
    #[arg(
        long,
        value_name = "MODEL",
        value_enum,
        default_value_t = MapqChoice::Bowtie2,
        help_heading = "Reporting"
    )]
    pub mapq: MapqChoice,
    /// bowtie2's MAPQ model: 2 (its default), 3, or any other number for its first
    #[arg(long, value_name = "N", value_parser = truncated_int::<i64>, allow_negative_numbers = true, help_heading = "Reporting")]
    pub mapq_v: Option<i64>,
    /// Seed of the choice among equally good alignments [0]
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = truncated_int::<u64>, help_heading = "Reporting")]
    pub seed: u64,
    /// Accepted: the choice among ties still depends on the read and --seed alone
    #[arg(long, alias = "nondeterministic", help_heading = "Reporting")]
    pub non_deterministic: bool,
}
