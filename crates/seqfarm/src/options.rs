//! Options every command's typed job takes, as plain values (no command-line parser):
//! the front ends (the CLI's arguments, the Python package) fill them in.

use std::path::PathBuf;

use seqfarm_farm::FarmConfig;

use crate::common::{capped_workers, worker_threads};

/// How many workers a job runs and where, and where its farm's statistics go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FarmOptions {
    /// Worker threads (`None` or 0: one per core; at most 4 per core, a larger request
    /// capped with a warning).
    pub threads: Option<usize>,
    /// Pin the workers to cores.
    pub pin: bool,
    /// A file for the farm's statistics (JSON: tasks, time of the master and of each
    /// worker, scaling ceiling).
    pub stats: Option<PathBuf>,
}

impl FarmOptions {
    /// The workers [`Self::config`] gives, without its warning for a capped request: for
    /// sizing what runs beside the farm (a CRAM decoder).
    pub fn workers(&self) -> usize {
        capped_workers(self.threads)
    }

    /// The farm layout these options ask for (ordered; callers change what differs); a
    /// request capped at 4 threads per core is warned about here.
    pub fn config(&self) -> FarmConfig {
        FarmConfig::new(worker_threads(self.threads))
            .pin(self.pin)
            .timed(self.stats.is_some())
    }
}
