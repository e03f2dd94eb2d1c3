//! `seqfarm markdup`'s command line.

use std::path::PathBuf;

use seqfarm::cmd::markdup::MarkdupOptions;

use crate::common::{CramReference, FarmArgs, ForceArg};

/// Marks duplicate reads (FLAG 0x400) of a coordinate-sorted BAM, identical to Picard
/// MarkDuplicates.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Replaces: PicardCommandLine MarkDuplicates I=IN.bam O=OUT.bam \
                  M=METRICS.txt (its defaults: duplicates by 5' positions, orientation and \
                  library; the best pair by the sum of base qualities >= 15; optical \
                  duplicates within 100 pixels counted in the metrics). The output keeps \
                  the input's records and order; only FLAG 0x400 changes."
)]
pub struct MarkdupArgs {
    /// Coordinate-sorted BAM (or CRAM) to mark
    #[arg(value_name = "IN.bam")]
    pub(super) input: PathBuf,
    /// The marked BAM (`-`: standard output); a file gets its index beside it
    /// (OUT.bam.bai), and appears only when complete
    #[arg(
        short = 'o',
        long = "output",
        value_name = "OUT.bam",
        default_value = "-"
    )]
    pub(super) output: PathBuf,
    /// Write Picard's duplication metrics (DuplicationMetrics per library, histograms) to
    /// FILE
    #[arg(short = 'M', long = "metrics", value_name = "FILE")]
    pub(super) metrics: Option<PathBuf>,
    /// Leave duplicates out of the output instead of flagging them (Picard's
    /// REMOVE_DUPLICATES=true)
    #[arg(long = "remove-duplicates")]
    pub(super) remove_duplicates: bool,
    /// Pixel distance within which duplicates on one tile count as optical (Picard's
    /// OPTICAL_DUPLICATE_PIXEL_DISTANCE)
    #[arg(
        long = "optical-distance",
        value_name = "PIXELS",
        default_value_t = MarkdupOptions::default().optical_distance,
        allow_negative_numbers = true
    )]
    pub(super) optical_distance: i32,
    /// Memory for read ends (e.g. 768M, 2G); beyond it they are sorted into hidden
    /// files beside the output and merged back (Picard's MAX_RECORDS_IN_RAM)
    #[arg(
        short = 'm',
        long = "memory",
        value_name = "SIZE",
        default_value = "768M",
        value_parser = crate::common::memory_size
    )]
    pub(super) memory: u64,
    #[command(flatten)]
    pub(super) force: ForceArg,
    #[command(flatten)]
    pub(super) farm: FarmArgs,
    #[command(flatten)]
    pub(super) cram: CramReference,
}

impl MarkdupArgs {
    /// The duplicate marking these arguments ask for.
    pub fn into_options(self) -> MarkdupOptions {
        MarkdupOptions {
            input: self.input,
            output: self.output,
            metrics: self.metrics,
            remove_duplicates: self.remove_duplicates,
            optical_distance: self.optical_distance,
            force: self.force.force,
            farm: self.farm.options(),
            reference: self.cram.reference,
            memory: self.memory as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_lines_defaults_are_the_options_defaults() {
        let argv = ["seqfarm", "markdup", "in.bam"];
        let crate::Command::Markdup(args) = crate::Cli::try_parse_args(argv).unwrap().command
        else {
            unreachable!("a markdup command line");
        };
        let expected = MarkdupOptions {
            input: "in.bam".into(),
            ..MarkdupOptions::default()
        };
        assert_eq!(args.into_options(), expected);
    }
}
