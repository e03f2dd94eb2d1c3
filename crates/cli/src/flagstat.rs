//! `seqfarm flagstat`'s arguments, in samtools flagstat's spelling.

use std::path::PathBuf;

use seqfarm::cmd::flagstat::FlagstatFormat;

use seqfarm::cmd::flagstat::FlagstatOptions;

use crate::common::{CramReference, FarmArgs, ForceArg};

/// Input format options of htslib that do not change what flagstat counts (samtools
/// flagstat `--input-fmt-option`); others (such as `filter`) are refused.
const NEUTRAL_INPUT_OPTIONS: [&str; 5] = [
    "nthreads",
    "block_size",
    "cache_size",
    "decode_md",
    "required_fields",
];

/// Counts reads by FLAG category, as `samtools flagstat` does (same output, byte for byte).
#[derive(Debug, clap::Args)]
pub struct FlagstatArgs {
    #[command(flatten)]
    farm: FarmArgs,
    /// samtools' thread option: N worker threads beside the main thread, as -t N (samtools
    /// counts N threads in addition to its main one); -@ 0 is one worker
    #[arg(short = '@', value_name = "N", conflicts_with = "threads")]
    additional_threads: Option<usize>,
    /// Accepted as samtools flagstat takes it; seqfarm prints only warnings and errors
    #[arg(long = "verbosity", value_name = "INT")]
    verbosity: Option<i32>,
    /// Accepted as samtools flagstat takes it, for htslib options that do not change the
    /// counts (nthreads, block_size, cache_size, decode_md, required_fields)
    #[arg(long = "input-fmt-option", value_name = "OPT[=VAL]", value_parser = parse_input_option)]
    input_options: Vec<String>,
    /// Output format: default, json or tsv (as samtools flagstat -O)
    #[arg(short = 'O', long = "output-fmt", value_name = "FORMAT", default_value = "default", value_parser = parse_format)]
    format: FlagstatFormat,
    /// Write the report to FILE instead of standard output (appears only when complete)
    #[arg(short = 'o', long = "output", value_name = "FILE", default_value = "-")]
    output: PathBuf,
    #[command(flatten)]
    force: ForceArg,
    #[command(flatten)]
    cram: CramReference,
    /// Input: BAM (indexed or not), CRAM, SAM or gzip-compressed SAM; `-` for standard
    /// input (not CRAM)
    #[arg(value_name = "IN")]
    input: PathBuf,
}

/// The output format, named in any case as samtools takes it.
fn parse_format(s: &str) -> Result<FlagstatFormat, String> {
    match s.to_ascii_lowercase().as_str() {
        "default" => Ok(FlagstatFormat::Default),
        "json" => Ok(FlagstatFormat::Json),
        "tsv" => Ok(FlagstatFormat::Tsv),
        _ => Err(format!("unknown format {s:?} (default, json or tsv)")),
    }
}

/// An htslib input option that does not change the counts ([`NEUTRAL_INPUT_OPTIONS`]).
fn parse_input_option(s: &str) -> Result<String, String> {
    let name = s.split('=').next().unwrap_or_default();
    if NEUTRAL_INPUT_OPTIONS.contains(&name) {
        Ok(s.to_string())
    } else {
        Err(format!(
            "{name:?} is not taken: seqfarm flagstat accepts only the input options that do \
             not change the counts ({})",
            NEUTRAL_INPUT_OPTIONS.join(", ")
        ))
    }
}

impl FlagstatArgs {
    /// Runs the command.
    pub fn run(self) -> anyhow::Result<()> {
        let (input, options) = self.into_options();
        seqfarm::cmd::flagstat::run(&input, &options)
    }

    /// The input and the options these arguments ask for: `-@ N` is `N` workers (at
    /// least one); `--verbosity` and `--input-fmt-option` change nothing.
    pub fn into_options(self) -> (PathBuf, FlagstatOptions) {
        let mut farm = self.farm.options();
        if let Some(n) = self.additional_threads {
            farm.threads = Some(n.max(1));
        }
        let options = FlagstatOptions {
            format: self.format,
            output: self.output,
            force: self.force.force,
            reference: self.cram.reference,
            farm,
        };
        (self.input, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(argv: &[&str]) -> (PathBuf, FlagstatOptions) {
        match crate::parse_command(argv).unwrap() {
            crate::Command::Flagstat(args) => args.into_options(),
            _ => unreachable!("not flagstat"),
        }
    }

    #[test]
    fn defaults_are_the_options_defaults() {
        let (input, options) = parse(&["flagstat", "in.bam"]);
        assert_eq!(input, PathBuf::from("in.bam"));
        assert_eq!(options, FlagstatOptions::default());
    }

    #[test]
    fn additional_threads_are_workers() {
        let (_, options) = parse(&["flagstat", "-@", "0", "-O", "JSON", "in.bam"]);
        assert_eq!(options.farm.threads, Some(1));
        assert_eq!(options.format, FlagstatFormat::Json);
        let (_, options) = parse(&["flagstat", "-@", "3", "in.bam"]);
        assert_eq!(options.farm.threads, Some(3));
    }
}
