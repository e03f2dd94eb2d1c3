//! `seqfarm`: one binary, one subcommand per job, each a task farm; and the library of
//! those jobs.
//!
//! Each `cmd/<name>.rs` is a job: it opens its inputs through the IO layer's door,
//! builds an emitter, a worker from a kernel crate and a collector, and runs them on
//! the farm. A job takes a typed options struct with the command's defaults
//! ([`options::FarmOptions`] for the farm; `IndexOptions`, `CountOptions`, ...); the
//! command's clap arguments live in `cmd/<name>/args.rs` and convert into it, so that
//! the binary's parser is the only place that reads command-line words. [`api`] holds
//! the entry points other programs call in process (the Python package), with typed
//! results (tables as columns). The library also exposes the command line itself
//! ([`Cli`]) so that harnesses (the fuzz targets) run a command exactly as the binary
//! does.
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};

// First, so that `stderr_line!` is in scope in the modules below.
#[macro_use]
pub mod stderr;
#[macro_use]
mod option_value;

pub mod api;
mod cmd;
mod common;
mod farm_stats;
mod numa;
pub mod options;
mod plot_file;
mod progress;

/// The command-line parser's error (a bad option), as the in-process entry points ([`api`]) return it.
pub use clap::Error as ClapError;
pub use common::is_broken_pipe;
pub use option_value::OptionValueError;
/// An index file that cannot be loaded (missing, foreign, damaged), as the commands and
/// [`api`] return it.
pub use seqfarm_fmindex::LoadError as IndexLoadError;

/// Sequence analysis as fast as the machine allows: every command is a task farm.
#[derive(Parser)]
#[command(name = "seqfarm", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// FLAG statistics of a BAM/SAM, identical to samtools flagstat (parallel through the index)
    Flagstat(cmd::flagstat::FlagstatArgs),
    Index(cmd::index::IndexArgs),
    Locate(cmd::locate::LocateArgs),
    /// Allele counts at VCF sites in tumor/normal BAMs, identical to FACETS snp-pileup
    SnpPileup(cmd::snp_pileup::SnpPileupArgs),
    /// Reads per region (BED) or window in BAMs, identical to bedtools multicov
    Count(cmd::count::CountArgs),
    /// Mean depth per window or BED region and bases above depth thresholds, identical to mosdepth -n --by
    Depth(cmd::depth::DepthArgs),
    /// Flag duplicate reads of a coordinate-sorted BAM, identical to Picard MarkDuplicates
    Markdup(cmd::markdup::MarkdupArgs),
    /// Smith-Waterman database search (protein or DNA), scores exactly as parasail's sw_*
    Search(cmd::search::SearchArgs),
    Align(Box<cmd::align::AlignArgs>),
}

impl Cli {
    /// Parses a command line (the program name first) as the binary does: clap's
    /// parser, after `count`'s arguments in bedtools multicov's spelling are rewritten
    /// into seqfarm's (`cmd::count::bedtools_spelling`) and `search --gpu auto` into
    /// `--gpu=auto` (`cmd::search::gpu_spelling`).
    pub fn try_parse_args<I, T>(argv: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let mut argv: Vec<std::ffi::OsString> = argv.into_iter().map(Into::into).collect();
        if argv.get(1).is_some_and(|command| command == "count") {
            let rest = argv.split_off(2);
            argv.extend(cmd::count::bedtools_spelling(rest));
        }
        if argv.get(1).is_some_and(|command| command == "search") {
            let rest = argv.split_off(2);
            argv.extend(cmd::search::gpu_spelling(rest));
        }
        Self::try_parse_from(argv)
    }

    /// [`Self::try_parse_args`] of this process's arguments; a bad command line prints
    /// clap's message and exits.
    pub fn parse_args() -> Self {
        Self::try_parse_args(std::env::args_os()).unwrap_or_else(|e| e.exit())
    }

    /// Runs the parsed command to its end.
    pub fn run(self) -> anyhow::Result<()> {
        match self.command {
            Command::Flagstat(args) => args.run(),
            Command::Index(args) => args.run(),
            Command::Locate(args) => args.run(),
            Command::SnpPileup(args) => cmd::snp_pileup::run(&args.into_options()),
            Command::Count(args) => cmd::count::run(&args.into_options()),
            Command::Depth(args) => args.run(),
            Command::Markdup(args) => cmd::markdup::run(&args.into_options()).map(drop),
            Command::Search(args) => cmd::search::run(&args.into_options()),
            Command::Align(args) => (*args).run(),
        }
    }
}
