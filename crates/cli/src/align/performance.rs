//! How the run uses the machine: threads, pinning, NUMA, the index in memory, and the
//! farm's statistics. None changes the output.

use super::values::truncated_int;

/// The machine options.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Performance")]
pub struct PerformanceArgs {
    /// Worker threads, at most 4 per core [default: all cores]
    #[arg(short = 'p', long = "threads", value_name = "N", value_parser = truncated_int::<usize>, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Pin worker threads to cores
    #[arg(long)]
    pub pin: bool,
    #[command(flatten)]
    pub stats: crate::common::StatsArg,
    #[command(flatten)]
    pub numa: crate::common::NumaArg,
    /// Output in input order (always so; accepted)
    #[arg(long)]
    pub reorder: bool,
    /// Memory-map the index (its pages shared with other processes) instead of reading
    /// it into memory
    #[arg(long)]
    pub mm: bool,
    /// Reads per batch handed to a thread (accepted; seqfarm sizes its own batches)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub reads_per_batch: Option<u64>,
}
