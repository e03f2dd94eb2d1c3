//! `seqfarm index`'s command line.

use std::path::PathBuf;

use anyhow::Context;
use seqfarm::cmd::index::{build_index, check, parse_size, sa_rate, IndexOptions};
use seqfarm_fmindex::{BuildOptions, MAX_KMER_LEN};

use crate::common::{ForceArg, StatsArg};

/// Build an FM-index (FMD-index of both strands) of a reference genome
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The index is written to PREFIX.sfi (default PREFIX: REF without .gz and its \
                  FASTA extension). Contig names and lengths, N runs and IUPAC letters are kept; \
                  ambiguous letters are never matched."
)]
pub struct IndexArgs {
    /// Reference FASTA (plain or gzip; `-` for standard input)
    #[arg(value_name = "REF.fa[.gz]", required_unless_present = "check")]
    reference: Option<PathBuf>,
    /// Output prefix: the index is written to PREFIX.sfi
    #[arg(short = 'o', long = "output", value_name = "PREFIX")]
    prefix: Option<PathBuf>,
    /// Threads for every pass of the build, at most 4 per core [default: all cores]
    #[arg(
        short = 't',
        long = "threads",
        value_name = "N",
        allow_negative_numbers = true
    )]
    threads: Option<usize>,
    /// Memory budget for the build, e.g. 2G, 1500M (K, M, G, T: powers of 1024): the
    /// suffix sort is split into as many buckets as it takes to stay within it
    /// [default: 256M plus 6 bytes per base, at most 3/4 of the available memory, a
    /// cgroup limit counted]
    #[arg(short = 'm', long = "memory", value_name = "SIZE", value_parser = parse_size, allow_negative_numbers = true)]
    memory: Option<u64>,
    /// Keep every R-th suffix-array row (a power of two): smaller is faster to locate,
    /// larger is smaller on disk
    #[arg(long, value_name = "R", default_value_t = BuildOptions::default().sa_rate, value_parser = sa_rate, allow_negative_numbers = true)]
    sa_rate: u32,
    /// Length of the k-mer lookup table's strings [default: from the genome size, 8-12]
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_KMER_LEN)), allow_negative_numbers = true)]
    kmer: Option<u32>,
    /// Verify an existing index (checksums and every invariant) instead of building
    #[arg(long, value_name = "PREFIX", conflicts_with_all = ["reference", "prefix"])]
    check: Option<PathBuf>,
    #[command(flatten)]
    force: ForceArg,
    // The build runs its own parallel passes, not a farm: the statistics file holds the
    // wall time and the threads only.
    #[command(flatten)]
    stats: StatsArg,
}

impl IndexArgs {
    /// Runs the command.
    pub fn run(self) -> anyhow::Result<()> {
        if let Some(prefix) = &self.check {
            return check(prefix);
        }
        let reference = self
            .reference
            .clone()
            .context("a reference FASTA is required")?;
        let options = IndexOptions {
            threads: self.threads,
            memory: self.memory,
            sa_rate: self.sa_rate,
            kmer: self.kmer,
            stats: self.stats.stats,
            force: self.force.force,
        };
        build_index(&reference, self.prefix.as_deref(), &options)?;
        Ok(())
    }
}
