//! What a duplicate marking takes, as plain values.

use std::path::PathBuf;

use seqfarm_io::bam_sort::DEFAULT_SORT_MEMORY;
use seqfarm_regions::markdup::DEFAULT_PIXEL_DISTANCE;

use crate::options::FarmOptions;

/// A duplicate marking: its input, its outputs and Picard MarkDuplicates' options. The
/// defaults are `seqfarm markdup`'s (and Picard's).
#[derive(Debug, Clone, PartialEq)]
pub struct MarkdupOptions {
    /// A coordinate-sorted BAM (or CRAM).
    pub input: PathBuf,
    /// The marked BAM (`-`: standard output; a file gets its index beside it).
    pub output: PathBuf,
    /// Picard's duplication metrics file.
    pub metrics: Option<PathBuf>,
    /// Duplicates are left out of the output rather than flagged (Picard's
    /// `REMOVE_DUPLICATES`).
    pub remove_duplicates: bool,
    /// Pixel distance within which duplicates are optical (Picard's
    /// `OPTICAL_DUPLICATE_PIXEL_DISTANCE`).
    pub optical_distance: i32,
    /// `--force`: accepted; existing outputs are replaced either way, as Picard does.
    pub force: bool,
    /// Workers, pinning and the farm's statistics file.
    pub farm: FarmOptions,
    /// Reference FASTA of a CRAM input (else its `@SQ UR:` file or embedded reference).
    pub reference: Option<PathBuf>,
    /// Bytes of read ends kept in memory; the rest are sorted into hidden files beside
    /// the output and merged back (Picard's `MAX_RECORDS_IN_RAM`, in bytes).
    pub memory: usize,
}

impl Default for MarkdupOptions {
    fn default() -> Self {
        Self {
            input: PathBuf::new(),
            output: PathBuf::from("-"),
            metrics: None,
            remove_duplicates: false,
            optical_distance: DEFAULT_PIXEL_DISTANCE,
            force: false,
            farm: FarmOptions::default(),
            reference: None,
            memory: DEFAULT_SORT_MEMORY,
        }
    }
}
