//! `--sort --markdup`: the sorted BAM is merged into a hidden scratch file beside the
//! output (with its index), then marked for duplicates into the output as `seqfarm
//! markdup` marks it; the marked BAM, its index and the metrics join the run's set of
//! outputs. The scratch BAM is compressed at the fastest level: it is read once more.

use std::path::PathBuf;

use seqfarm_farm::FarmStats;
use seqfarm_io::output::Output;

use super::AlignOptions;
use crate::cmd::markdup::{self, MarkdupOptions, MarkdupOutputs};

/// The compression level of the scratch BAM.
pub(super) const SCRATCH_LEVEL: i32 = 1;

/// Duplicate marking of a run's sorted BAM: its options and its outputs, opened before
/// any work.
pub(super) struct MarkdupStep {
    options: MarkdupOptions,
    outputs: MarkdupOutputs,
}

impl MarkdupStep {
    /// The step of the run `align` asks for, with the outputs opened (none of them one
    /// of `inputs`); `lengths` are the references' lengths.
    pub(super) fn open(
        align: &AlignOptions,
        inputs: &[PathBuf],
        lengths: &[u64],
    ) -> anyhow::Result<Self> {
        let mut options = MarkdupOptions {
            input: align.output.clone(),
            output: align.output.clone(),
            metrics: align.markdup_metrics.clone(),
            force: align.force,
            memory: align.sort_memory as usize,
            ..MarkdupOptions::default()
        };
        // The count align already resolved (and warned about, if it was capped).
        options.farm.threads = Some(align.farm.workers());
        options.farm.pin = align.farm.pin;
        let outputs = MarkdupOutputs::open(&options, inputs, lengths)?;
        Ok(Self { options, outputs })
    }

    /// Marks the scratch BAM `sorted` (its index `index` beside it) into the outputs;
    /// returns them, uncommitted. The marking's farm statistics go to `stats`.
    pub(super) fn mark(
        self,
        mut sorted: Output,
        mut index: Output,
        stats: &mut FarmStats,
    ) -> anyhow::Result<Vec<Output>> {
        use std::io::Write as _;
        sorted.flush().map_err(|e| sorted.error(e))?;
        index.flush().map_err(|e| index.error(e))?;
        let (outputs, _) = markdup::mark(sorted.path(), &self.options, self.outputs, stats)?;
        Ok(outputs)
    }
}
