//! In-process entry points to the commands, for programs that embed seqfarm (the Python
//! package): the same farms as the binary, with results returned as values rather than
//! printed, and errors returned with the messages the binary prints.

use std::path::Path;

use seqfarm_farm::FarmStats;
use seqfarm_regions::FlagCounts;

use crate::cmd;
use crate::common::worker_threads;

pub mod align;
pub mod index;
pub mod parts;
pub mod tables;

/// FLAG statistics of a BAM or SAM file, as `seqfarm flagstat -t threads` counts them
/// (`threads`: `None` for one per core).
pub fn flagstat(path: &Path, threads: Option<usize>) -> anyhow::Result<FlagCounts> {
    let config = seqfarm_farm::FarmConfig::new(worker_threads(threads));
    cmd::flagstat::count(path, &config, &mut FarmStats::default())
}
