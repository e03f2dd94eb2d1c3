//! What a count takes, as plain values: its inputs, its output and bedtools multicov's
//! rules for whether a read counts.

use std::path::PathBuf;

use crate::options::FarmOptions;

/// A count: the BAMs, where the regions come from, the rules and the outputs. The
/// defaults are `seqfarm count`'s (and bedtools multicov's).
#[derive(Debug, Clone, PartialEq)]
pub struct CountOptions {
    /// Coordinate-sorted, indexed BAMs or coordinate-sorted CRAMs: one count column each.
    pub bams: Vec<PathBuf>,
    /// Regions to count in: a BED file (plain or gzip; `-`: standard input).
    pub bed: Option<PathBuf>,
    /// Or consecutive windows of this many bases over every contig of the BAMs.
    pub window: Option<u64>,
    /// Reads with a lower mapping quality are not counted.
    pub min_map_quality: u8,
    /// Duplicates (FLAG 0x400) are counted too.
    pub duplicates: bool,
    /// Reads that failed quality checks (FLAG 0x200) are counted too.
    pub qc_failed: bool,
    /// Only properly paired reads are counted.
    pub proper_pairs: bool,
    /// Only reads on the region's strand are counted.
    pub same_strand: bool,
    /// Only reads on the other strand than the region's are counted.
    pub opposite_strand: bool,
    /// Minimum overlap as a fraction of the region (`None`: one base, bedtools' 1E-9).
    pub min_overlap: Option<f32>,
    /// The minimum overlap is asked of the read too.
    pub reciprocal: bool,
    /// Overlaps of the read's aligned blocks with the region's blocks (BED12) count,
    /// rather than of their spans.
    pub split: bool,
    /// The counts' file (`-`: standard output).
    pub output: PathBuf,
    /// An SVG picture of the reads per window or region.
    pub plot: Option<PathBuf>,
    /// `--force`: accepted; an existing output is replaced either way.
    pub force: bool,
    /// Workers, pinning and the farm's statistics file.
    pub farm: FarmOptions,
    /// Compressed BAM bytes per task (`None`: from the BAMs' size and the workers).
    pub task_bytes: Option<u64>,
    /// Reference FASTA of CRAM inputs (else their `@SQ UR:` file or embedded reference).
    pub reference: Option<PathBuf>,
}

impl Default for CountOptions {
    fn default() -> Self {
        Self {
            bams: Vec::new(),
            bed: None,
            window: None,
            min_map_quality: 0,
            duplicates: false,
            qc_failed: false,
            proper_pairs: false,
            same_strand: false,
            opposite_strand: false,
            min_overlap: None,
            reciprocal: false,
            split: false,
            output: PathBuf::from("-"),
            plot: None,
            force: false,
            farm: FarmOptions::default(),
            task_bytes: None,
            reference: None,
        }
    }
}

impl CountOptions {
    /// Refuses what the command line's parser refuses: no regions, both kinds of
    /// regions, an empty window, a fraction that is not a number, no BAM.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.bams.is_empty() {
            option_error!("give at least one BAM");
        }
        match (&self.bed, self.window) {
            (None, None) => option_error!("give --bed REGIONS.bed or --window SIZE"),
            (Some(_), Some(_)) => option_error!("give --bed or --window, not both"),
            (None, Some(0)) => option_error!("--window: the size must be at least 1"),
            _ => {}
        }
        if self.min_overlap.is_some_and(|f| !f.is_finite()) {
            option_error!("--min-overlap: not a number (a fraction such as 0.5)");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OptionValueError;

    #[test]
    fn options_the_parser_would_refuse_are_option_errors() {
        let refused = |options: CountOptions| {
            let error = options.check().unwrap_err();
            assert!(error.downcast_ref::<OptionValueError>().is_some());
            error.to_string()
        };
        let bams = vec![PathBuf::from("a.bam")];
        let no_regions = CountOptions {
            bams: bams.clone(),
            ..CountOptions::default()
        };
        assert_eq!(
            refused(no_regions.clone()),
            "give --bed REGIONS.bed or --window SIZE"
        );
        let empty_window = CountOptions {
            window: Some(0),
            ..no_regions.clone()
        };
        assert!(refused(empty_window).contains("at least 1"));
        assert!(refused(CountOptions::default()).contains("at least one BAM"));
        let windows = CountOptions {
            window: Some(10),
            ..no_regions
        };
        windows.check().unwrap();
    }
}
