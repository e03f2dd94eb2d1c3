//! `seqfarm count`'s command line: seqfarm's own spelling ([`CountArgs`]) and bedtools
//! multicov's ([`bedtools_spelling`]).

use std::path::PathBuf;

use seqfarm::cmd::count::CountOptions;

use crate::common::{CramReference, FarmArgs, ForceArg};

/// Reads per region in one or more BAMs, identical to bedtools multicov.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "bedtools multicov's command line is taken too, with the same meanings: \
                  seqfarm count [OPTIONS] -bams A.bam B.bam ... -bed REGIONS.bed \
                  (-split for --split)"
)]
pub struct CountArgs {
    /// Regions to count in: BED (plain or gzip; its columns are echoed before the counts)
    #[arg(
        long = "bed",
        value_name = "REGIONS.bed",
        required_unless_present = "window",
        conflicts_with = "window"
    )]
    pub(super) bed: Option<PathBuf>,
    /// Count in consecutive windows of SIZE bases over every contig of the BAMs (the last
    /// window of a contig is shorter)
    #[arg(long = "window", value_name = "SIZE", value_parser = clap::value_parser!(u64).range(1..), allow_negative_numbers = true)]
    pub(super) window: Option<u64>,
    /// Count only reads with at least this mapping quality
    #[arg(
        short = 'q',
        long = "min-map-quality",
        value_name = "MAPQ",
        default_value_t = CountOptions::default().min_map_quality,
        allow_negative_numbers = true
    )]
    pub(super) min_map_quality: u8,
    /// Count duplicates (FLAG 0x400) too
    #[arg(short = 'D', long = "duplicates")]
    pub(super) duplicates: bool,
    /// Count reads that failed quality checks (FLAG 0x200) too
    #[arg(short = 'F', long = "qc-failed")]
    pub(super) qc_failed: bool,
    /// Count only properly paired reads
    #[arg(short = 'p', long = "proper-pairs")]
    pub(super) proper_pairs: bool,
    /// Count only reads on the region's strand (the BED's sixth column, + or -)
    #[arg(short = 's', long = "same-strand")]
    pub(super) same_strand: bool,
    /// Count only reads on the other strand than the region's (every read where the
    /// region's strand is neither + nor -)
    #[arg(short = 'S', long = "opposite-strand")]
    pub(super) opposite_strand: bool,
    /// Minimum overlap as a fraction of the region (with --split: of the read's aligned
    /// bases) [default: 1E-9, one base]
    #[arg(
        short = 'f',
        long = "min-overlap",
        value_name = "FRACTION",
        value_parser = parse_fraction,
        allow_negative_numbers = true
    )]
    pub(super) min_overlap: Option<f32>,
    /// Ask the --min-overlap fraction of the read too
    #[arg(short = 'r', long = "reciprocal")]
    pub(super) reciprocal: bool,
    /// Count overlaps of the read's aligned blocks (split at N in the CIGAR) with the
    /// region's blocks (BED12) rather than of their spans (bedtools' -split)
    #[arg(long = "split")]
    pub(super) split: bool,
    /// Write the counts to FILE instead of standard output (appears only when complete)
    #[arg(short = 'o', long = "output", value_name = "FILE", default_value = "-")]
    pub(super) output: PathBuf,
    /// Draw the reads of each window or region along the genome as SVG to FILE.svg (with
    /// two BAMs also the log2 ratio of the second to the first)
    #[arg(long = "plot", value_name = "FILE.svg")]
    pub(super) plot: Option<PathBuf>,
    #[command(flatten)]
    pub(super) force: ForceArg,
    #[command(flatten)]
    pub(super) farm: FarmArgs,
    /// Compressed BAM bytes per task (for tests of task boundaries)
    #[arg(long = "task-bytes", hide = true)]
    pub(super) task_bytes: Option<u64>,
    #[command(flatten)]
    pub(super) cram: CramReference,
    /// Coordinate-sorted, indexed BAMs or coordinate-sorted CRAMs (one count column each)
    #[arg(value_name = "BAM", required = true)]
    pub(super) bams: Vec<PathBuf>,
}

impl CountArgs {
    /// The count these arguments ask for.
    pub fn into_options(self) -> CountOptions {
        let args = self;
        CountOptions {
            farm: args.farm.options(),
            bams: args.bams,
            bed: args.bed,
            window: args.window,
            min_map_quality: args.min_map_quality,
            duplicates: args.duplicates,
            qc_failed: args.qc_failed,
            proper_pairs: args.proper_pairs,
            same_strand: args.same_strand,
            opposite_strand: args.opposite_strand,
            min_overlap: args.min_overlap,
            reciprocal: args.reciprocal,
            split: args.split,
            output: args.output,
            plot: args.plot,
            force: args.force.force,
            task_bytes: args.task_bytes,
            reference: args.cram.reference,
        }
    }
}

/// A fraction as bedtools reads `-f`: a number, kept in single precision.
fn parse_fraction(text: &str) -> Result<f32, String> {
    text.parse::<f32>()
        .ok()
        .filter(|f| f.is_finite())
        .ok_or_else(|| format!("{text:?} is not a number (a fraction such as 0.5)"))
}

/// Rewrites the arguments of `seqfarm count` (after the command's name) as bedtools
/// multicov spells them into seqfarm's spelling: `-bams` (its BAMs are the positional
/// arguments), `-bed FILE` and `-split` become `--bed FILE` and `--split`; every other
/// argument is kept.
pub fn bedtools_spelling(
    args: impl IntoIterator<Item = std::ffi::OsString>,
) -> Vec<std::ffi::OsString> {
    args.into_iter()
        .filter(|a| a != "-bams")
        .map(|a| match a.to_str() {
            Some("-bed") => "--bed".into(),
            Some("-split") => "--split".into(),
            _ => a,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(words: &[&str]) -> Vec<String> {
        bedtools_spelling(words.iter().map(Into::into))
            .into_iter()
            .map(|w| w.into_string().unwrap())
            .collect()
    }

    #[test]
    fn multicov_spelling_becomes_seqfarms() {
        assert_eq!(
            rewritten(&["-s", "-bams", "a.bam", "b.bam", "-bed", "x.bed", "-split", "-f", "0.5"]),
            ["-s", "a.bam", "b.bam", "--bed", "x.bed", "--split", "-f", "0.5"]
        );
        let own = ["--bed", "x.bed", "-q", "20", "a.bam"];
        assert_eq!(rewritten(&own), own);
    }

    #[test]
    fn the_command_lines_defaults_are_the_options_defaults() {
        let argv = ["seqfarm", "count", "--window", "5000", "a.bam"];
        let crate::Command::Count(args) = crate::Cli::try_parse_args(argv).unwrap().command else {
            unreachable!("a count command line");
        };
        let expected = CountOptions {
            bams: vec!["a.bam".into()],
            window: Some(5000),
            ..CountOptions::default()
        };
        assert_eq!(args.into_options(), expected);
    }

    #[test]
    fn the_binary_parses_both_spellings_alike() {
        let parse = |words: &[&str]| {
            crate::Cli::try_parse_args(std::iter::once("seqfarm").chain(words.iter().copied()))
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        parse(&[
            "count", "-bams", "a.bam", "b.bam", "-bed", "x.bed", "-split", "-S",
        ])
        .unwrap();
        parse(&["count", "--bed", "x.bed", "--split", "-S", "a.bam", "b.bam"]).unwrap();
        // Only count's arguments are rewritten.
        assert!(parse(&["flagstat", "-bed", "x.bam"]).is_err());
        assert!(parse(&["count", "-f", "half", "--bed", "x.bed", "a.bam"])
            .unwrap_err()
            .contains("not a number"));
    }
}
