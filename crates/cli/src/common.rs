//! Arguments shared by every command, and their conversion into the library's options.

use std::path::PathBuf;

use seqfarm::options::FarmOptions;
use seqfarm_farm::numa::NumaMode;

/// How many workers to run and where.
#[derive(Debug, Clone, clap::Args)]
pub struct FarmArgs {
    /// Worker threads, at most 4 per core [default: all cores]
    #[arg(
        short = 't',
        long = "threads",
        value_name = "N",
        allow_negative_numbers = true
    )]
    pub threads: Option<usize>,
    /// Pin worker threads to cores
    #[arg(long)]
    pub pin: bool,
    #[command(flatten)]
    pub stats: StatsArg,
}

/// `--stats FILE`: where the farm's time went.
#[derive(Debug, Clone, clap::Args)]
pub struct StatsArg {
    /// Write the farm's statistics to FILE (JSON): tasks, time of the master and of each
    /// worker, and the scaling ceiling (docs/FARM.md)
    #[arg(long = "stats", value_name = "FILE")]
    pub stats: Option<PathBuf>,
}

impl FarmArgs {
    /// These arguments as a job's options.
    pub fn options(&self) -> FarmOptions {
        FarmOptions {
            threads: self.threads,
            pin: self.pin,
            stats: self.stats.stats.clone(),
        }
    }
}

/// The reference FASTA of CRAM inputs, spelled as samtools spells it (`depth` spells it
/// as mosdepth does).
#[derive(Debug, Clone, clap::Args)]
pub struct CramReference {
    /// Reference FASTA of CRAM inputs (else their @SQ UR: file or embedded reference)
    #[arg(
        short = 'T',
        long = "reference",
        visible_alias = "ref",
        value_name = "FASTA"
    )]
    pub reference: Option<PathBuf>,
}

/// `--force`, accepted by every command. Whether it matters is the command's
/// [`seqfarm_io::output::ExistingOutput`] rule: where the tool a command replaces refuses an existing output
/// (FACETS snp-pileup), `--force` lets the run replace it; everywhere else an existing
/// output is replaced anyway, as the peer tool replaces it.
#[derive(Debug, Clone, clap::Args)]
pub struct ForceArg {
    /// Replace existing outputs (the default: they are replaced anyway, as the tool this
    /// command stands in for replaces them; never an input)
    #[arg(long)]
    pub force: bool,
}

/// `--numa MODE`.
#[derive(Debug, Clone, clap::Args)]
pub struct NumaArg {
    /// NUMA placement of the index and the workers: off, interleave (pages spread over
    /// the nodes in use), replicate (one copy per node), auto (chosen from the topology,
    /// the index size and the free memory; off on one node). Linux only; elsewhere off
    #[arg(long = "numa", value_name = "MODE", default_value_t = NumaMode::Auto,
          value_parser = parse_mode)]
    pub numa: NumaMode,
}

fn parse_mode(text: &str) -> Result<NumaMode, String> {
    text.parse()
}

/// Parses a memory budget (`--sort-memory`, markdup's `--memory`): a size
/// ([`seqfarm::cmd::index::parse_size`]) of at least
/// [`seqfarm_io::bam_sort::MIN_SORT_MEMORY`], as samtools sort refuses `-m` below 1M.
pub(crate) fn memory_size(text: &str) -> Result<u64, String> {
    let bytes = seqfarm::cmd::index::parse_size(text)?;
    if bytes < seqfarm_io::bam_sort::MIN_SORT_MEMORY as u64 {
        return Err(format!(
            "{text:?} is less than the minimum, 1M: less would write a temporary file \
             every few records"
        ));
    }
    Ok(bytes)
}
