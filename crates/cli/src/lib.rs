//! The `seqfarm` command line: clap's structs for every command, each turned into the
//! library's typed options (`XArgs::into_options`) and run by the library
//! ([`seqfarm::cmd`]). Nothing here reads a file or runs a farm. The argument
//! vocabulary is public so that the Python package and the fuzz targets read keywords
//! and command lines exactly as the binary does ([`count_options`], ...).
#![forbid(unsafe_code)]

#[macro_use]
extern crate seqfarm;

use clap::{Parser, Subcommand};

pub mod align;
pub mod common;
pub mod count;
pub mod depth;
pub mod flagstat;
pub mod index;
pub mod locate;
pub mod markdup;
pub mod search;
pub mod snp_pileup;
mod vocabulary;

pub use vocabulary::{
    align_args, align_options, count_options, depth_options, flag_options, markdup_options,
    parse_command, search_options, snp_pileup_options,
};

/// The command-line parser's error (a bad option).
pub use clap::Error as ClapError;

/// Sequence analysis as fast as the machine allows: every command is a task farm.
#[derive(Parser)]
#[command(name = "seqfarm", version, propagate_version = true)]
pub struct Cli {
    /// The command and its arguments.
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// FLAG statistics of a BAM/SAM, identical to samtools flagstat (parallel through the index)
    Flagstat(flagstat::FlagstatArgs),
    Index(index::IndexArgs),
    Locate(locate::LocateArgs),
    /// Allele counts at VCF sites in tumor/normal BAMs, identical to FACETS snp-pileup
    SnpPileup(snp_pileup::SnpPileupArgs),
    /// Reads per region (BED) or window in BAMs, identical to bedtools multicov
    Count(count::CountArgs),
    /// Mean depth per window or BED region and bases above depth thresholds, identical to mosdepth -n --by
    Depth(depth::DepthArgs),
    /// Flag duplicate reads of a coordinate-sorted BAM, identical to Picard MarkDuplicates
    Markdup(markdup::MarkdupArgs),
    /// Smith-Waterman database search (protein or DNA), scores exactly as parasail's sw_*
    Search(search::SearchArgs),
    Align(Box<align::AlignArgs>),
}

impl Cli {
    /// Parses a command line (the program name first) as the binary does: clap's
    /// parser, after `count`'s arguments in bedtools multicov's spelling are rewritten
    /// into seqfarm's (`count::bedtools_spelling`) and `search --gpu auto` into
    /// `--gpu=auto` (`search::gpu_spelling`).
    pub fn try_parse_args<I, T>(argv: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let mut argv: Vec<std::ffi::OsString> = argv.into_iter().map(Into::into).collect();
        if argv.get(1).is_some_and(|command| command == "count") {
            let rest = argv.split_off(2);
            argv.extend(count::bedtools_spelling(rest));
        }
        if argv.get(1).is_some_and(|command| command == "search") {
            let rest = argv.split_off(2);
            argv.extend(search::gpu_spelling(rest));
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
            Command::SnpPileup(args) => seqfarm::cmd::snp_pileup::run(&args.into_options()),
            Command::Count(args) => seqfarm::cmd::count::run(&args.into_options()),
            Command::Depth(args) => args.run(),
            Command::Markdup(args) => seqfarm::cmd::markdup::run(&args.into_options()).map(drop),
            Command::Search(args) => seqfarm::cmd::search::run(&args.into_options()),
            Command::Align(args) => (*args).run(),
        }
    }
}
