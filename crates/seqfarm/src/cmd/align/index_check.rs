//! The verification of the index's section checksums beside the alignment, for an index
//! too large to verify before it starts.

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::Scope;

use anyhow::Context;
use seqfarm_farm::threads::{spawn_scoped_or_run, ScopedJob};
use seqfarm_fmindex::FmIndex;

/// Index files up to this size are verified before alignment starts (a few
/// milliseconds): on a damaged index, searches can walk far before they give up.
const CHECK_FIRST_BYTES: u64 = 64 << 20;

/// [`CHECK_FIRST_BYTES`], or the size the environment variable
/// `SEQFARM_CHECK_FIRST_BYTES` gives: a setting for tests, which reach the checksum pass
/// beside the alignment with small indexes.
pub(super) fn check_first_bytes() -> u64 {
    std::env::var("SEQFARM_CHECK_FIRST_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CHECK_FIRST_BYTES)
}

/// The verification of a large index's section checksums, run beside the alignment on a
/// thread of its own (it hashes the loaded index's bytes), its outcome polled as tasks
/// are collected so that a damaged index stops the run at the next task (and always
/// before any output is committed). Dropped unfinished (the run failed), it tells the
/// thread to stop, so the error is not held up by hashing the rest of the index.
pub(super) struct IndexCheck<'scope> {
    index: &'scope FmIndex,
    running: Option<ScopedJob<'scope, Result<bool, seqfarm_fmindex::LoadError>>>,
    stop: &'scope AtomicBool,
}

impl<'scope> IndexCheck<'scope> {
    /// Starts verifying `index` on a thread of `scope` when `run` (otherwise a check
    /// that passes); setting `stop` ends it early.
    pub(super) fn start<'env>(
        scope: &'scope Scope<'scope, 'env>,
        index: &'env FmIndex,
        stop: &'env AtomicBool,
        run: bool,
    ) -> Self {
        let running = run.then(|| {
            spawn_scoped_or_run(scope, "seqfarm-index-check", move || {
                index.verify_checksums(stop)
            })
        });
        Self {
            index,
            running,
            stop,
        }
    }

    /// The verification's error once it has finished with one.
    pub(super) fn poll(&mut self) -> anyhow::Result<()> {
        if self.running.as_ref().is_some_and(|h| h.is_finished()) {
            self.finish()?;
        }
        Ok(())
    }

    /// Waits for the verification and returns its outcome.
    pub(super) fn finish(&mut self) -> anyhow::Result<()> {
        let Some(running) = self.running.take() else {
            return Ok(());
        };
        running
            .join()
            .map_err(|_| anyhow::anyhow!("the index check stopped unexpectedly"))?
            .with_context(|| format!("cannot load the index {}", self.index.path().display()))?;
        Ok(())
    }
}

impl Drop for IndexCheck<'_> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}
