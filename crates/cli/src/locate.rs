//! `seqfarm locate`'s arguments.

use std::path::PathBuf;

use seqfarm::cmd::locate::LocateOptions;

use crate::common::{ForceArg, StatsArg};

/// Count and list the occurrences of patterns, on both strands
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Prints PATTERN<TAB>COUNT<TAB>HITS per pattern. COUNT counts every \
    (position, strand) where the pattern (+) or its reverse complement (-) occurs; a pattern \
    equal to its reverse complement counts once per position, as +. HITS lists the first \
    hits in genome order (contig order of the FASTA, then position, + before -) as \
    contig:1-based-leftmost-position:strand. A pattern with N or another IUPAC ambiguity \
    letter occurs nowhere (ambiguous bases are never matched): COUNT 0. Letters that are not \
    nucleotides are an error. Listing locates every occurrence: about a microsecond each."
)]
pub struct LocateArgs {
    /// Index prefix (PREFIX.sfi, as written by `seqfarm index`)
    #[arg(short = 'x', long = "index", value_name = "PREFIX")]
    index: PathBuf,
    /// How many hits to list per pattern (0: count only, nothing is located)
    #[arg(
        long,
        value_name = "N",
        default_value_t = LocateOptions::default().max_hits,
        allow_negative_numbers = true
    )]
    max_hits: usize,
    /// Patterns (A/C/G/T, either case); `-` reads them from standard input, one per line
    #[arg(value_name = "PATTERN", required = true)]
    patterns: Vec<String>,
    #[command(flatten)]
    numa: crate::common::NumaArg,
    #[command(flatten)]
    stats: StatsArg,
    #[command(flatten)]
    force: ForceArg,
}

impl LocateArgs {
    /// Runs the command.
    pub fn run(self) -> anyhow::Result<()> {
        let (index, patterns, options) = self.into_options();
        seqfarm::cmd::locate::run(&index, &patterns, &options)
    }

    /// The index prefix, the patterns and the options these arguments ask for.
    pub fn into_options(self) -> (PathBuf, Vec<String>, LocateOptions) {
        let options = LocateOptions {
            max_hits: self.max_hits,
            numa: self.numa.numa,
            stats: self.stats.stats,
            force: self.force.force,
        };
        (self.index, self.patterns, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_options_defaults() {
        let argv = ["locate", "-x", "ref", "ACGT", "GATTACA"];
        let crate::Command::Locate(args) = crate::parse_command(argv).unwrap() else {
            unreachable!("not locate");
        };
        let (index, patterns, options) = args.into_options();
        assert_eq!(index, PathBuf::from("ref"));
        assert_eq!(patterns, ["ACGT", "GATTACA"]);
        assert_eq!(options, LocateOptions::default());
    }
}
