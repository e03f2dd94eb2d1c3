//! `seqfarm snp-pileup`'s command line ([`SnpPileupArgs`]) and its conversion into the
//! command's options.

use std::path::PathBuf;

use seqfarm::cmd::snp_pileup::SnpPileupOptions;

use crate::common::{CramReference, FarmArgs, ForceArg};

/// Allele counts at VCF sites in one or more BAMs, identical to FACETS snp-pileup.
#[derive(Debug, clap::Args)]
#[command(mut_arg("force", |arg| arg.help(
    "Replace an existing OUTPUT (and --plot and --stats files); without it they are \
     refused, as FACETS snp-pileup refuses an existing output (never an input)"
)))]
pub struct SnpPileupArgs {
    /// Do not discard anomalous read pairs
    #[arg(short = 'A', long = "count-orphans")]
    count_orphans: bool,
    /// Sets the maximum depth (htslib's per-file pileup limit)
    #[arg(
        short = 'd',
        long = "max-depth",
        value_name = "DEPTH",
        default_value_t = SnpPileupOptions::default().max_depth,
        allow_negative_numbers = true
    )]
    max_depth: i64,
    /// Compresses the output file with BGZF (`.gz` is appended to OUTPUT when missing)
    #[arg(short = 'g', long = "gzip")]
    gzip: bool,
    /// Show a progress bar (on standard error, when it is a terminal)
    #[arg(short = 'p', long = "progress")]
    progress: bool,
    /// Every MULTIPLE positions, if there is no SNP, insert a blank record with the total
    /// count at the position
    #[arg(
        short = 'P',
        long = "pseudo-snps",
        value_name = "MULTIPLE",
        default_value_t = SnpPileupOptions::default().pseudo_snps,
        allow_negative_numbers = true
    )]
    pseudo_snps: i64,
    /// Sets the minimum threshold for mapping quality
    #[arg(
        short = 'q',
        long = "min-map-quality",
        value_name = "QUALITY",
        default_value_t = SnpPileupOptions::default().min_map_quality,
        allow_negative_numbers = true
    )]
    min_map_quality: i32,
    /// Sets the minimum threshold for base quality
    #[arg(
        short = 'Q',
        long = "min-base-quality",
        value_name = "QUALITY",
        default_value_t = SnpPileupOptions::default().min_base_quality,
        allow_negative_numbers = true
    )]
    min_base_quality: i32,
    /// Comma separated list of minimum read counts for a position to be output, one per
    /// BAM [default: 0]
    #[arg(
        short = 'r',
        long = "min-read-counts",
        value_name = "READS",
        value_delimiter = ',',
        allow_negative_numbers = true
    )]
    min_read_counts: Vec<i64>,
    /// Show detailed messages (on standard error)
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    /// Disable read-pair overlap detection
    #[arg(short = 'x', long = "ignore-overlaps")]
    ignore_overlaps: bool,
    /// Draw the B-allele fractions of the normal (file 1) and the tumour (file 2) and their
    /// log2 depth ratio along the genome as SVG to FILE.svg (sites with 10 or more reads in
    /// the normal)
    #[arg(long = "plot", value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    farm: FarmArgs,
    #[command(flatten)]
    force: ForceArg,
    /// Compressed BAM bytes per task (for tests of task boundaries)
    #[arg(long = "task-bytes", hide = true)]
    task_bytes: Option<u64>,
    /// Bases per task, at most (for tests of task boundaries)
    #[arg(
        long = "task-span",
        hide = true,
        default_value_t = SnpPileupOptions::default().task_span
    )]
    task_span: i64,
    /// VCF of the sites (plain or bgzipped); only biallelic SNVs are used
    #[arg(value_name = "VCF")]
    vcf: PathBuf,
    /// Output CSV (`-` for standard output); must not exist yet unless --force, as in
    /// FACETS snp-pileup
    #[arg(value_name = "OUTPUT")]
    output: PathBuf,
    #[command(flatten)]
    cram: CramReference,
    /// Coordinate-sorted, indexed BAMs or coordinate-sorted CRAMs (File1, File2, ... in
    /// the output)
    #[arg(value_name = "BAM", required = true)]
    bams: Vec<PathBuf>,
}

impl SnpPileupArgs {
    /// These arguments as the command's options.
    pub fn into_options(self) -> SnpPileupOptions {
        SnpPileupOptions {
            vcf: self.vcf,
            output: self.output,
            bams: self.bams,
            reference: self.cram.reference,
            min_map_quality: self.min_map_quality,
            min_base_quality: self.min_base_quality,
            min_read_counts: self.min_read_counts,
            pseudo_snps: self.pseudo_snps,
            max_depth: self.max_depth,
            count_orphans: self.count_orphans,
            ignore_overlaps: self.ignore_overlaps,
            gzip: self.gzip,
            progress: self.progress,
            verbose: self.verbose,
            plot: self.plot,
            farm: self.farm.options(),
            force: self.force.force,
            task_bytes: self.task_bytes,
            task_span: self.task_span,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Command;

    fn parse(argv: &[&str]) -> SnpPileupArgs {
        let argv = ["seqfarm", "snp-pileup"].iter().chain(argv);
        match crate::Cli::try_parse_args(argv).unwrap().command {
            Command::SnpPileup(args) => args,
            _ => unreachable!("the snp-pileup command parses as snp-pileup"),
        }
    }

    #[test]
    fn the_command_line_defaults_are_the_options_defaults() {
        let options = parse(&["sites.vcf", "out.csv", "a.bam"]).into_options();
        let expected = SnpPileupOptions {
            vcf: "sites.vcf".into(),
            output: "out.csv".into(),
            bams: vec!["a.bam".into()],
            ..SnpPileupOptions::default()
        };
        assert_eq!(options, expected);
    }

    #[test]
    fn every_argument_reaches_its_option() {
        let argv = [
            "-A",
            "-d",
            "50",
            "-g",
            "-p",
            "-P",
            "100",
            "-q",
            "15",
            "-Q",
            "20",
            "-r",
            "10,0",
            "-v",
            "-x",
            "--plot",
            "p.svg",
            "-t",
            "3",
            "--pin",
            "--stats",
            "s.json",
            "--force",
            "--task-bytes",
            "7",
            "--task-span",
            "9",
            "-T",
            "ref.fa",
            "sites.vcf",
            "out.csv",
            "n.bam",
            "t.bam",
        ];
        let options = parse(&argv).into_options();
        let expected = SnpPileupOptions {
            vcf: "sites.vcf".into(),
            output: "out.csv".into(),
            bams: vec!["n.bam".into(), "t.bam".into()],
            reference: Some("ref.fa".into()),
            min_map_quality: 15,
            min_base_quality: 20,
            min_read_counts: vec![10, 0],
            pseudo_snps: 100,
            max_depth: 50,
            count_orphans: true,
            ignore_overlaps: true,
            gzip: true,
            progress: true,
            verbose: true,
            plot: Some("p.svg".into()),
            farm: seqfarm::options::FarmOptions {
                threads: Some(3),
                pin: true,
                stats: Some("s.json".into()),
            },
            force: true,
            task_bytes: Some(7),
            task_span: 9,
        };
        assert_eq!(options, expected);
    }
}
