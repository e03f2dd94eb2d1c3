//! `seqfarm depth`'s options, as plain values.

use std::path::PathBuf;

use seqfarm_regions::depth::DEFAULT_EXCLUDE_FLAGS;

use crate::options::FarmOptions;

/// What a depth run takes besides its BAM (or CRAM) and its output prefix; the defaults
/// are those of `seqfarm depth`. Exactly one of `window` and `bed` must be given.
#[derive(Debug, Clone, PartialEq)]
pub struct DepthOptions {
    /// Consecutive windows of this many bases over every contig, the last one shorter
    /// (`None`: the regions of `bed`).
    pub window: Option<u32>,
    /// Regions (BED, plain or gzip; a 4th column names the region), instead of windows.
    pub bed: Option<PathBuf>,
    /// Depths for which each region's bases at or above them are counted
    /// (`PREFIX.thresholds.bed.gz`; empty: no such file).
    pub thresholds: Vec<u32>,
    /// Reads with a lower mapping quality are left out.
    pub mapq: u8,
    /// Reads with any of these FLAG bits are left out.
    pub exclude_flags: u16,
    /// Also write the depth of every base, as runs (`PREFIX.per-base.bed.gz`).
    pub per_base: bool,
    /// An SVG picture of the mean depth of each window or region along the genome.
    pub plot: Option<PathBuf>,
    /// `--force`: accepted; existing outputs are replaced either way.
    pub force: bool,
    /// Workers, pinning and the farm's statistics file.
    pub farm: FarmOptions,
    /// Compressed BAM bytes per task (`None`: from the BAM's size and the workers).
    pub task_bytes: Option<u64>,
    /// Reference FASTA of a CRAM input (`None`: its `@SQ UR:` file or embedded
    /// reference).
    pub reference: Option<PathBuf>,
}

impl Default for DepthOptions {
    fn default() -> Self {
        Self {
            window: None,
            bed: None,
            thresholds: Vec::new(),
            mapq: 0,
            exclude_flags: DEFAULT_EXCLUDE_FLAGS,
            per_base: false,
            plot: None,
            force: false,
            farm: FarmOptions::default(),
            task_bytes: None,
            reference: None,
        }
    }
}

impl DepthOptions {
    /// Refuses what the command line's parser refuses: no windows nor regions, both, or
    /// windows of 0 bases.
    pub fn check(&self) -> anyhow::Result<()> {
        match (self.window, &self.bed) {
            (None, None) => option_error!("window or bed: one of them is required"),
            (Some(_), Some(_)) => option_error!("window and bed: only one of them is taken"),
            (Some(0), None) => option_error!("window: the size must be positive"),
            _ => Ok(()),
        }
    }
}
