//! The SAM/BAM output and what goes beside it: the file, the header, the records'
//! optional fields, the summary and metrics on standard error.

// The options' doc comments are their `--help` text, bowtie2's defaults in brackets
// (`[1]`, `[6,2]`), not links.
#![allow(rustdoc::broken_intra_doc_links)]

use std::path::PathBuf;

use super::values::check_header_text;

/// The output options.
#[derive(Debug, Clone, clap::Args)]
#[command(next_help_heading = "Output")]
pub struct OutputArgs {
    /// SAM output [default: standard output]
    #[arg(
        short = 'S',
        long = "output",
        value_name = "OUT.sam",
        conflicts_with = "bam"
    )]
    pub sam: Option<PathBuf>,
    /// BAM output (BGZF blocks compressed by the workers)
    #[arg(short = 'o', value_name = "OUT.bam")]
    pub bam: Option<PathBuf>,
    /// Sort the BAM output by coordinate (as `samtools sort`) and write its index beside
    /// it (OUT.bam.bai; OUT.bam.csi when a reference is longer than 2^29 bp)
    #[arg(long, requires = "bam")]
    pub sort: bool,
    /// Memory for sorting, in all (records beyond it are sorted into temporary files
    /// beside the output and merged at the end): a size such as 768M or 2G, at least 1M
    #[arg(
        long,
        value_name = "SIZE",
        default_value = "768M",
        value_parser = crate::common::memory_size,
        requires = "sort"
    )]
    pub sort_memory: u64,
    /// Mark duplicates (FLAG 0x400) in the sorted BAM as Picard MarkDuplicates (and
    /// `seqfarm markdup`) marks them
    #[arg(long, requires = "sort")]
    pub markdup: bool,
    /// Write --markdup's duplication metrics to FILE (Picard's format; bowtie2 spells
    /// --metrics for --met)
    #[arg(long = "markdup-metrics", value_name = "FILE", requires = "markdup")]
    pub markdup_metrics: Option<PathBuf>,
    /// Print the wall-clock time of each phase to standard error
    #[arg(short = 't', long = "time")]
    pub time: bool,
    /// Print nothing to standard error but errors
    #[arg(long)]
    pub quiet: bool,
    /// Write metrics to FILE
    #[arg(long, alias = "metrics-file", value_name = "FILE")]
    pub met_file: Option<PathBuf>,
    /// Write metrics to standard error
    #[arg(long, alias = "metrics-stderr")]
    pub met_stderr: bool,
    /// Metrics every N seconds [1]
    #[arg(long, alias = "metrics", value_name = "N", default_value_t = 1)]
    pub met: u64,
    /// Draw the MAPQ histogram (and for pairs the insert-size histogram) as SVG to FILE.svg
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Leave out the records of unaligned reads (an unaligned mate's too, as bowtie2 does)
    #[arg(long)]
    pub no_unal: bool,
    /// No header lines
    #[arg(
        long,
        visible_alias = "no-hd",
        aliases = ["no-HD", "sam-no-head", "sam-nohead", "sam-no-hd", "sam-noHD"]
    )]
    pub no_head: bool,
    /// No @SQ header lines
    #[arg(long, aliases = ["no-SQ", "sam-no-sq", "sam-nosq", "sam-noSQ"])]
    pub no_sq: bool,
    /// Read group ID: adds an @RG line and RG:Z to every record
    #[arg(long, alias = "sam-rg-id", value_name = "ID")]
    pub rg_id: Option<String>,
    /// Field of the @RG line, TAG:VALUE, e.g. SM:sample (repeatable). As in bowtie2,
    /// `--rg ID:x` sets the ID when --rg-id is absent, and without any ID no @RG line
    /// is written (with a warning)
    #[arg(long, aliases = ["sam-rg", "sam-RG", "RG"], value_name = "TAG:VALUE")]
    pub rg: Vec<String>,
    /// `*` for SEQ and QUAL of secondary alignments
    #[arg(long, alias = "sam-omit-sec-seq")]
    pub omit_sec_seq: bool,
    /// Keep the whole read name (by default it ends at the first white space)
    #[arg(long)]
    pub sam_no_qname_trunc: bool,
    /// `=` and `X` instead of `M` in CIGARs
    #[arg(long)]
    pub xeq: bool,
    /// TLEN without soft-clipped bases
    #[arg(long)]
    pub soft_clipped_unmapped_tlen: bool,
    /// Append the read's FASTA/FASTQ comment to its records
    #[arg(long)]
    pub sam_append_comment: bool,
    /// SAM optional fields on or off, as bowtie2 2.5.4: a comma-separated list of
    /// two-letter names, each turning its field on, or off after a `-` (e.g.
    /// `-md,-xs,yn`)
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub sam_opt_config: Option<String>,
}

impl OutputArgs {
    /// The read group's ID, as bowtie2 takes it: `--rg-id`, or else a `--rg ID:...`
    /// field; a second ID is an error, as it would make the @RG line invalid.
    pub fn read_group_id(&self) -> anyhow::Result<Option<&str>> {
        let mut in_fields = self.rg.iter().filter_map(|f| f.strip_prefix("ID:"));
        match (&self.rg_id, in_fields.next(), in_fields.next()) {
            (id, None, _) => Ok(id.as_deref()),
            (None, Some(id), None) => Ok(Some(id)),
            (Some(_), Some(id), _) => option_error!(
                "--rg \"ID:{id}\": a second read group ID (--rg-id gives one already)"
            ),
            (None, Some(_), Some(id)) => {
                option_error!("--rg \"ID:{id}\": a second read group ID (--rg ID: given twice)")
            }
        }
    }

    /// The `--rg-id`/`--rg` header line, checked so the header stays valid: an ID
    /// without tabs or line breaks, each field `TAG:VALUE` with a two-character tag,
    /// one `ID`. `None` without an ID, where bowtie2 writes no @RG line either.
    pub fn read_group_line(&self) -> anyhow::Result<Option<String>> {
        let id = self.read_group_id()?;
        let mut line = String::from("@RG");
        if let Some(id) = id {
            let option = if self.rg_id.is_some() {
                "--rg-id"
            } else {
                "--rg"
            };
            check_header_text(option, id)?;
            line.push_str("\tID:");
            line.push_str(id);
        }
        for field in self.rg.iter().filter(|f| !f.starts_with("ID:")) {
            check_header_text("--rg", field)?;
            let tag = field.split_once(':').map(|(t, _)| t);
            match tag {
                Some(t)
                    if t.len() == 2
                        && t.as_bytes()[0].is_ascii_alphabetic()
                        && t.as_bytes()[1].is_ascii_alphanumeric() =>
                {
                    if line
                        .split('\t')
                        .skip(1)
                        .any(|f| f.starts_with(&format!("{t}:")))
                    {
                        option_error!("--rg {field:?}: a second {t} field for the same @RG line");
                    }
                }
                _ => option_error!(
                    "--rg {field:?}: expected TAG:VALUE with a two-character tag, e.g. SM:sample"
                ),
            }
            line.push('\t');
            line.push_str(field);
        }
        Ok(id.map(|_| line))
    }
}
