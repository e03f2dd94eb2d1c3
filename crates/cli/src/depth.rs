//! `seqfarm depth`'s arguments.

use std::path::PathBuf;

use seqfarm::cmd::depth::DepthOptions;

use crate::common::{FarmArgs, ForceArg};

/// Per-window or per-region depth, identical to `mosdepth -n --by` (0.3).
#[derive(Debug, clap::Args)]
pub struct DepthArgs {
    /// Consecutive windows of SIZE bases over every contig (the last one shorter)
    #[arg(long = "window", value_name = "SIZE", required_unless_present = "bed",
          conflicts_with = "bed", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    window: Option<u32>,
    /// Regions (BED, plain or gzip; a 4th column names the region)
    #[arg(long = "bed", value_name = "REGIONS.bed")]
    bed: Option<PathBuf>,
    /// For each region, the bases with at least each of these depths (PREFIX.thresholds.bed.gz)
    #[arg(
        short = 'T',
        long = "thresholds",
        value_name = "D,D,...",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    thresholds: Vec<u32>,
    /// Leave out reads with a lower mapping quality
    #[arg(
        short = 'Q',
        long = "mapq",
        value_name = "MAPQ",
        default_value_t = DepthOptions::default().mapq,
        allow_negative_numbers = true
    )]
    mapq: u8,
    /// Leave out reads with any of these FLAG bits
    #[arg(short = 'F', long = "flag", value_name = "FLAGS", default_value_t = DepthOptions::default().exclude_flags, allow_negative_numbers = true)]
    flag: u16,
    /// Also write the depth of every base, as runs (PREFIX.per-base.bed.gz)
    #[arg(long = "per-base")]
    per_base: bool,
    /// Draw the mean depth of each window or region along the genome as SVG to FILE.svg
    #[arg(long = "plot", value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Output prefix: PREFIX.regions.bed.gz, PREFIX.mosdepth.summary.txt, ...
    #[arg(short = 'o', long = "output", value_name = "PREFIX")]
    prefix: PathBuf,
    #[command(flatten)]
    force: ForceArg,
    #[command(flatten)]
    farm: FarmArgs,
    /// Compressed BAM bytes per task (for tests of task boundaries)
    #[arg(long = "task-bytes", hide = true)]
    task_bytes: Option<u64>,
    /// Reference FASTA of a CRAM input (else its @SQ UR: file or embedded reference)
    #[arg(short = 'f', long = "reference", visible_aliases = ["fasta", "ref"], value_name = "FASTA")]
    reference: Option<PathBuf>,
    /// Coordinate-sorted, indexed BAM, or coordinate-sorted CRAM
    #[arg(value_name = "BAM")]
    bam: PathBuf,
}

impl DepthArgs {
    /// Runs the command.
    pub fn run(self) -> anyhow::Result<()> {
        let (bam, prefix, options) = self.into_options();
        seqfarm::cmd::depth::run(&bam, &prefix, &options)
    }

    /// The BAM, the output prefix and the options these arguments ask for.
    pub fn into_options(self) -> (PathBuf, PathBuf, DepthOptions) {
        let options = DepthOptions {
            window: self.window,
            bed: self.bed,
            thresholds: self.thresholds,
            mapq: self.mapq,
            exclude_flags: self.flag,
            per_base: self.per_base,
            plot: self.plot,
            force: self.force.force,
            farm: self.farm.options(),
            task_bytes: self.task_bytes,
            reference: self.reference,
        };
        (self.bam, self.prefix, options)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn defaults_are_the_options_defaults() {
        let argv = ["depth", "--window", "500", "-o", "out", "in.bam"];
        let crate::Command::Depth(args) = crate::parse_command(argv).unwrap() else {
            unreachable!("not depth");
        };
        let (bam, prefix, options) = args.into_options();
        assert_eq!(
            (bam, prefix),
            (PathBuf::from("in.bam"), PathBuf::from("out"))
        );
        let expected = DepthOptions {
            window: Some(500),
            ..DepthOptions::default()
        };
        assert_eq!(options, expected);
        options.check().unwrap();
    }
}
