//! bowtie2's options that change no alignment here: its caches, verbosity, debugging
//! and sanity checks, Hadoop and per-read metrics, thread stealing, the fine limits of
//! its seed-and-extend search (seqfarm's is set by the preset, `-D` and `-R`), and the
//! switches that add its internal counters to the records. Each is accepted, with a
//! value where bowtie2 takes one, and checked as bowtie2 checks it; none does anything.
//! Three options bowtie2's parser lists but refuses (`--snpphred`, `--snpfrac`,
//! `--scan-narrowed`: it prints its usage and stops) are refused here too. They are
//! left out of `--help`; docs/ALIGNER.md lists them.

use std::path::PathBuf;

use super::values::{int_at_least, length_function, number, truncated_int};

/// The switches without effect.
#[derive(Debug, Clone, clap::Args)]
pub struct NoEffectArgs {
    /// bowtie2's verbose messages (no effect)
    #[arg(long, hide = true)]
    pub verbose: bool,
    /// bowtie2's start-up messages (no effect)
    #[arg(long, hide = true)]
    pub startverbose: bool,
    /// bowtie2's expensive sanity checks (no effect)
    #[arg(long, hide = true)]
    pub sanity: bool,
    /// bowtie2 waits for a key before aligning (no effect)
    #[arg(long, hide = true)]
    pub pause: bool,
    /// The reference text, for bowtie2's sanity checks (no effect)
    #[arg(long, value_name = "TEXT", hide = true, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub orig: Option<String>,
    /// A metrics line for every read (no effect)
    #[arg(long, alias = "met-read", hide = true)]
    pub metrics_per_read: bool,
    /// One file per thread at a time (no effect)
    #[arg(long, hide = true)]
    pub filepar: bool,
    /// Reference numbers instead of names while loading (no effect on the output)
    #[arg(long, hide = true)]
    pub refidx: bool,
    /// Whole reference names (no effect: bowtie2 2.5 does not read it)
    #[arg(long, hide = true)]
    pub fullref: bool,
    /// A partitioning key (no effect: bowtie2 2.5 does not read it)
    #[arg(long, value_name = "N", hide = true, value_parser = truncated_int::<i32>, allow_negative_numbers = true)]
    pub partition: Option<i32>,
    /// Ranges larger than N are cached (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = int_at_least(1))]
    pub cachelim: Option<i64>,
    /// Cache size in MB (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = int_at_least(1))]
    pub cachesz: Option<i64>,
    /// The index in shared memory (no effect; --mm shares the index's pages)
    #[arg(long, hide = true)]
    pub shmem: bool,
    /// Touch every page of the memory-mapped index at start (no effect)
    #[arg(long, hide = true)]
    pub mmsweep: bool,
    /// Hadoop counters on standard error (no effect)
    #[arg(long, hide = true)]
    pub hadoopout: bool,
    /// bowtie2's summary of seed hits instead of alignments (no effect)
    #[arg(long, alias = "seed-summary", hide = true)]
    pub seed_summ: bool,
    /// No cache of seed hits (bowtie2's default; no effect)
    #[arg(long, overrides_with = "cache", hide = true)]
    pub no_cache: bool,
    /// A cache of seed hits (no effect)
    #[arg(long, overrides_with = "no_cache", hide = true)]
    pub cache: bool,
    /// Ungapped extension first (bowtie2's default; no effect)
    #[arg(long, overrides_with = "no_ungapped", hide = true)]
    pub ungapped: bool,
    /// No ungapped extension first (no effect)
    #[arg(long, overrides_with = "ungapped", hide = true)]
    pub no_ungapped: bool,
    /// 8-bit SIMD where scores allow (bowtie2's default; no effect)
    #[arg(long, overrides_with = "no_sse8", hide = true)]
    pub sse8: bool,
    /// No 8-bit SIMD (no effect)
    #[arg(long, overrides_with = "sse8", hide = true)]
    pub no_sse8: bool,
    /// Triangular mini-fills (no effect)
    #[arg(long, hide = true)]
    pub tri: bool,
    /// No seed extension (no effect)
    #[arg(long, hide = true)]
    pub no_extend: bool,
    /// The shortest read of the one-mismatch search (no effect)
    #[arg(long = "1mm-minlen", value_name = "N", hide = true, value_parser = truncated_int::<u64>)]
    pub one_mm_minlen: Option<u64>,
    /// Offset of the first seed (no effect: bowtie2 2.5 does not read it)
    #[arg(short = 'O', long, value_name = "N", hide = true, value_parser = truncated_int::<u64>)]
    pub seed_off: Option<u64>,
    /// Seed-hit boost threshold (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = truncated_int::<u64>)]
    pub seed_boost: Option<u64>,
    /// Failed dynamic programs in a row before giving up (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = truncated_int::<u64>)]
    pub dp_fail_streak: Option<u64>,
    /// Failed end-to-end searches in a row before giving up (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = truncated_int::<u64>)]
    pub ee_fail_streak: Option<u64>,
    /// Failed ungapped extensions in a row before giving up (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = truncated_int::<u64>)]
    pub ug_fail_streak: Option<u64>,
    /// Dynamic programs before giving up (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = truncated_int::<u64>)]
    pub dp_fails: Option<u64>,
    /// Ungapped extensions before giving up (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = truncated_int::<u64>)]
    pub ug_fails: Option<u64>,
    /// Extend-loop iterations before giving up (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = truncated_int::<u64>)]
    pub extends: Option<u64>,
    /// -M's tightening mode (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = truncated_int::<i32>, allow_negative_numbers = true)]
    pub tighten: Option<i32>,
    /// Reads longer than N use checkpoints (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = truncated_int::<u64>)]
    pub cp_min: Option<u64>,
    /// Checkpoint interval, log2 (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = truncated_int::<u64>)]
    pub cp_ival: Option<u64>,
    /// Per-thread seed cache in MB (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = int_at_least(1))]
    pub local_seed_cache_sz: Option<i64>,
    /// Per-read seed cache in MB (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = int_at_least(1))]
    pub seed_cache_sz: Option<i64>,
    /// bowtie2's experimental 2.5 search loop (no effect)
    #[arg(long = "test-25", hide = true)]
    pub test_25: bool,
    /// Memory of the descent search, a function of read length (no effect)
    #[arg(long, value_name = "FUNC", hide = true, value_parser = length_function, allow_hyphen_values = true)]
    pub desc_kb: Option<String>,
    /// FM-index operations of the descent search, a function of read length (no effect)
    #[arg(long, value_name = "FUNC", hide = true, value_parser = length_function, allow_hyphen_values = true)]
    pub desc_fmops: Option<String>,
    /// No descent root within N of a read end, at least 1 (no effect)
    #[arg(long, value_name = "N", hide = true, value_parser = int_at_least(1))]
    pub desc_landing: Option<i64>,
    /// Exponent of the descent's score minimum, at least 0 (no effect)
    #[arg(long, value_name = "X", hide = true, value_parser = non_negative_number)]
    pub desc_exp: Option<f64>,
    /// Descent roots by score (no effect)
    #[arg(long, hide = true)]
    pub desc_prioritize: bool,
    /// bowtie2 logs its seed-extension dynamic programs to FILE (no effect: none written)
    #[arg(long, value_name = "FILE", hide = true)]
    pub log_dp: Option<PathBuf>,
    /// bowtie2 logs its mate-search dynamic programs to FILE (no effect: none written)
    #[arg(long, value_name = "FILE", hide = true)]
    pub log_dp_opp: Option<PathBuf>,
    /// Most threads when stealing them from other bowtie2 processes (no effect; needs
    /// --thread-piddir, as in bowtie2)
    #[arg(long, value_name = "N", hide = true, value_parser = int_at_least(0), requires = "thread_piddir")]
    pub thread_ceiling: Option<i64>,
    /// Directory of the thread-stealing processes' pid files (no effect)
    #[arg(long, value_name = "DIR", hide = true)]
    pub thread_piddir: Option<PathBuf>,
    /// Which wrapper started bowtie2-align, for its usage text (no effect)
    #[arg(long, value_name = "NAME", hide = true)]
    pub wrapper: Option<String>,
    /// bowtie2's per-read timing and search counters as tags (no effect: not written)
    #[arg(long, hide = true)]
    pub read_times: bool,
    /// bowtie2's per-read random seed as ZS:i (no effect: not written)
    #[arg(long, hide = true)]
    pub show_rand_seed: bool,
    /// bowtie2's MAPQ features as ZT:Z (no effect: not written)
    #[arg(long, hide = true)]
    pub mapq_extra: bool,
    /// bowtie2's MAPQ inputs as YI:Z (no effect: not written)
    #[arg(long, hide = true)]
    pub mapq_print_inputs: bool,
    /// The read as input in XR:Z, for bowtie2's wrapper (no effect: not written)
    #[arg(long, hide = true)]
    pub passthrough: bool,
    /// Print every long option and whether it takes a value, then stop (as bowtie2)
    #[arg(long, hide = true)]
    pub arg_desc: bool,
    /// Print the help, then stop (bowtie2's --usage)
    #[arg(long, hide = true)]
    pub usage: bool,
    /// Refused, as bowtie2 refuses it (it lists the option but prints its usage and stops)
    #[arg(long, value_name = "N", hide = true)]
    pub snpphred: Option<String>,
    /// Refused, as bowtie2 refuses it (it lists the option but prints its usage and stops)
    #[arg(long, value_name = "F", hide = true)]
    pub snpfrac: Option<String>,
    /// Refused, as bowtie2 refuses it (it lists the option but prints its usage and stops)
    #[arg(long, hide = true)]
    pub scan_narrowed: bool,
}

impl NoEffectArgs {
    /// The error of an option bowtie2 lists but refuses, if one is given.
    pub fn check(&self) -> anyhow::Result<()> {
        let refused = [
            ("--snpphred", self.snpphred.is_some()),
            ("--snpfrac", self.snpfrac.is_some()),
            ("--scan-narrowed", self.scan_narrowed),
        ];
        if let Some((option, _)) = refused.iter().find(|(_, given)| *given) {
            option_error!(
                "{option}: bowtie2's parser lists it but refuses it (it prints its usage and \
                 stops), and so does seqfarm"
            );
        }
        Ok(())
    }
}

/// A number of at least 0 (`--desc-exp`).
fn non_negative_number(text: &str) -> Result<f64, String> {
    let x = number(text)?;
    if x < 0.0 {
        return Err(format!("{x} is less than 0, the least bowtie2 accepts"));
    }
    Ok(x)
}

/// Prints what `--arg-desc` or `--usage` ask for to standard output: every long option
/// of `seqfarm align` (aliases included) and then every short one, each with 1 when it
/// takes a value and 0 when not, as bowtie2's `--arg-desc` lists its own; or the help.
pub fn print_usage(descriptions: bool) -> anyhow::Result<()> {
    use clap::CommandFactory;
    use std::io::Write;
    let mut cli = crate::Cli::command();
    cli.build();
    let align = cli
        .find_subcommand_mut("align")
        .ok_or_else(|| anyhow::anyhow!("the align command is missing"))?;
    let mut out = std::io::stdout().lock();
    if !descriptions {
        writeln!(out, "{}", align.render_help())?;
        return Ok(());
    }
    let mut longs = Vec::new();
    let mut shorts = Vec::new();
    for arg in align.get_arguments() {
        let takes = u8::from(arg.get_action().takes_values());
        let names = arg
            .get_long()
            .into_iter()
            .chain(arg.get_all_aliases().into_iter().flatten());
        longs.extend(names.map(|name| format!("{name}\t{takes}")));
        let short = arg
            .get_short()
            .into_iter()
            .chain(arg.get_all_short_aliases().into_iter().flatten());
        shorts.extend(short.map(|c| format!("{c}\t{takes}")));
    }
    for line in longs.iter().chain(&shorts) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
