//! What a snp-pileup run takes, as plain values: its inputs, its output and FACETS
//! snp-pileup's settings.

use std::path::PathBuf;

use seqfarm_io::output::Overwrite;

use super::EXISTING_OUTPUT;
use crate::options::FarmOptions;

/// A snp-pileup run: the inputs (VCF, BAMs) and the output are fields too; the other
/// defaults are those of `seqfarm snp-pileup` (and of FACETS snp-pileup).
#[derive(Debug, Clone, PartialEq)]
pub struct SnpPileupOptions {
    /// VCF of the sites (plain or bgzipped; `-`: standard input); only biallelic SNVs
    /// are used.
    pub vcf: PathBuf,
    /// Output CSV (`-`: standard output; with `gzip`, `.gz` is appended when missing);
    /// refused when it exists, unless `force`.
    pub output: PathBuf,
    /// Coordinate-sorted, indexed BAMs or coordinate-sorted CRAMs (File1, File2, ... in
    /// the output); at least one.
    pub bams: Vec<PathBuf>,
    /// Reference FASTA of CRAM inputs (`None`: their @SQ UR: file or embedded reference).
    pub reference: Option<PathBuf>,
    /// Reads below this mapping quality are not counted.
    pub min_map_quality: i32,
    /// Bases below this base quality are not counted.
    pub min_base_quality: i32,
    /// Reads a site needs in each BAM to be output, BAM by BAM (BAMs past the list's
    /// end: 0).
    pub min_read_counts: Vec<i64>,
    /// Every this many positions without a SNP, a row of the position's total counts
    /// (0: none).
    pub pseudo_snps: i64,
    /// htslib's per-file pileup depth limit.
    pub max_depth: i64,
    /// Count anomalous read pairs too (FACETS `-A`).
    pub count_orphans: bool,
    /// Count both reads of an overlapping pair (no overlap detection; FACETS `-x`).
    pub ignore_overlaps: bool,
    /// Compress the output with BGZF.
    pub gzip: bool,
    /// Show a progress bar (on standard error, when it is a terminal).
    pub progress: bool,
    /// Write detailed messages on standard error.
    pub verbose: bool,
    /// An SVG file for the B-allele fractions of the normal (file 1) and the tumour
    /// (file 2) and their log2 depth ratio (`None`: no picture).
    pub plot: Option<PathBuf>,
    /// The farm's workers and statistics file.
    pub farm: FarmOptions,
    /// Replace an existing output, `plot` and statistics file.
    pub force: bool,
    /// Compressed BAM bytes per task (`None`: from the BAMs' size and the workers; for
    /// tests of task boundaries).
    pub task_bytes: Option<u64>,
    /// Bases per task, at most (for tests of task boundaries).
    pub task_span: i64,
}

impl Default for SnpPileupOptions {
    fn default() -> Self {
        Self {
            vcf: PathBuf::new(),
            output: PathBuf::new(),
            bams: Vec::new(),
            reference: None,
            min_map_quality: 0,
            min_base_quality: 0,
            min_read_counts: Vec::new(),
            pseudo_snps: 0,
            max_depth: 4000,
            count_orphans: false,
            ignore_overlaps: false,
            gzip: false,
            progress: false,
            verbose: false,
            plot: None,
            farm: FarmOptions::default(),
            force: false,
            task_bytes: None,
            task_span: i64::MAX,
        }
    }
}

impl SnpPileupOptions {
    /// Refuses what the command line's parser refuses: a run without BAMs.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.bams.is_empty() {
            option_error!("bams: at least one BAM is required");
        }
        Ok(())
    }

    /// The output file: `output`, with `.gz` appended for `gzip` when missing.
    pub fn output_path(&self) -> PathBuf {
        let output = self.output.clone();
        if self.gzip && !output.to_string_lossy().ends_with(".gz") && output.as_os_str() != "-" {
            let mut name = output.into_os_string();
            name.push(".gz");
            return PathBuf::from(name);
        }
        output
    }

    /// The IO layer's policy for an existing output, `plot` or statistics file.
    pub(super) fn overwrite(&self) -> Overwrite {
        EXISTING_OUTPUT.overwrite(self.force)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_without_bams_is_an_option_value_error() {
        let error = SnpPileupOptions::default().check().unwrap_err();
        assert!(error.downcast_ref::<crate::OptionValueError>().is_some());
        assert_eq!(error.to_string(), "bams: at least one BAM is required");
        let options = SnpPileupOptions {
            bams: vec!["a.bam".into()],
            ..SnpPileupOptions::default()
        };
        options.check().unwrap();
    }

    #[test]
    fn gzip_appends_gz_to_a_file_output_only() {
        let gzip = |output: &str| {
            SnpPileupOptions {
                output: output.into(),
                gzip: true,
                ..SnpPileupOptions::default()
            }
            .output_path()
        };
        assert_eq!(gzip("out.csv"), PathBuf::from("out.csv.gz"));
        assert_eq!(gzip("out.csv.gz"), PathBuf::from("out.csv.gz"));
        assert_eq!(gzip("-"), PathBuf::from("-"));
    }
}
