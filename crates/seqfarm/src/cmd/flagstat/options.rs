//! `seqfarm flagstat`'s options, as plain values.

use std::path::PathBuf;

use seqfarm_regions::FlagstatFormat;

use crate::options::FarmOptions;

/// What a flagstat run takes besides its input; the defaults are those of
/// `seqfarm flagstat`. Every value is valid: there is nothing to check.
#[derive(Debug, Clone, PartialEq)]
pub struct FlagstatOptions {
    /// The report's format (`samtools flagstat -O`).
    pub format: FlagstatFormat,
    /// Where the report goes (`-`: standard output); a file appears only when complete.
    pub output: PathBuf,
    /// `--force`: accepted; an existing report is replaced either way.
    pub force: bool,
    /// Reference FASTA of a CRAM input (`None`: its `@SQ UR:` file or embedded
    /// reference).
    pub reference: Option<PathBuf>,
    /// Workers, pinning and the farm's statistics file.
    pub farm: FarmOptions,
}

impl Default for FlagstatOptions {
    fn default() -> Self {
        Self {
            format: FlagstatFormat::default(),
            output: PathBuf::from("-"),
            force: false,
            reference: None,
            farm: FarmOptions::default(),
        }
    }
}
