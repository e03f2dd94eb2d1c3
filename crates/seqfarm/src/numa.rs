//! `--numa`: where the index lives on a NUMA machine, and where the workers that read it
//! run (docs/FARM.md, "NUMA placement"). The topology, the decision and the memory
//! policies are the farm's ([`seqfarm_farm::numa`]); this module loads the index as the
//! decision says.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use seqfarm_farm::numa::{
    available_memory, copies_per_node_from_env, decide, MemoryPolicy, NumaMode, NumaPlan,
    NumaTopology, Placement, Replicas,
};
use seqfarm_fmindex::{FmIndex, LoadMode, LoadOptions};

/// How an index that `--numa` does not place is loaded, and why: as `options` ask,
/// except that a copy is memory-mapped instead when the memory `available` (see
/// [`available_memory`]) is under twice the index's `size`, or unknown: a copy cannot be
/// evicted, the file's pages can.
fn unplaced_load(options: LoadOptions, size: u64, available: Option<u64>) -> (LoadOptions, String) {
    if options.mode == LoadMode::Mmap {
        return (options, "asked for".into());
    }
    let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
    let mapped = LoadOptions {
        mode: LoadMode::Mmap,
        ..options
    };
    let Some(free) = available else {
        return (mapped, "the memory available is unknown".into());
    };
    let fits = free >= size.saturating_mul(2);
    let why = format!(
        "{:.1} GiB available, {} twice the index ({:.1} GiB)",
        gib(free),
        if fits { "at least" } else { "under" },
        gib(size)
    );
    (if fits { options } else { mapped }, why)
}

/// The index file at `path`, loaded where `--numa` places nothing: as `options` ask, or
/// memory-mapped as [`unplaced_load`] decides from the memory available now; and why.
pub(crate) fn open_unplaced(
    path: &Path,
    options: LoadOptions,
) -> Result<(FmIndex, String), seqfarm_fmindex::LoadError> {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let (load, why) = unplaced_load(options, size, available_memory());
    Ok((FmIndex::open(path, load)?, why))
}

/// An index loaded as `--numa` decided: one copy (memory-mapped, or interleaved), or
/// one per node; and the workers' placement when placement is on.
pub struct PlacedIndex {
    replicas: Replicas<FmIndex>,
    placement: Option<Placement>,
    mode: NumaMode,
    reason: String,
    /// Why the index was copied or memory-mapped.
    load_reason: String,
}

impl PlacedIndex {
    /// Loads the index file at `path` for `workers` workers under `mode` (the error
    /// names the file), as `options` ask where `mode` places nothing (see
    /// `unplaced_load`). A memory policy the kernel refuses is one warning line, never
    /// an error: the index is then where the kernel's default policy puts it.
    pub fn load(
        path: &Path,
        mode: NumaMode,
        workers: usize,
        options: LoadOptions,
    ) -> Result<Self, seqfarm_fmindex::LoadError> {
        let mode = if cfg!(target_os = "linux") {
            mode
        } else {
            NumaMode::Off
        };
        let topology = match mode {
            NumaMode::Off => None,
            _ => NumaTopology::of_this_process(),
        };
        let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        let decision = decide(
            mode,
            topology.as_ref(),
            workers,
            size,
            copies_per_node_from_env(),
        );
        let warned = AtomicBool::new(false);
        let placed = |policy: MemoryPolicy| {
            let warned = &warned;
            move |memory: &mut [u8]| {
                if let Err(e) = policy.apply(memory) {
                    if !warned.swap(true, Ordering::Relaxed) {
                        stderr_line!(
                            "seqfarm: warning: --numa: the index's memory policy ({}) was \
                             refused ({e}); the kernel places it by its default policy",
                            policy.describe()
                        );
                    }
                }
            }
        };
        let verify = options.verify_checksums;
        let (mode, reason) = (decision.plan.mode(), decision.reason);
        let placed_by_numa = || "placed by --numa".to_string();
        let (replicas, placement, load_reason) = match decision.plan {
            NumaPlan::Off => {
                let (index, why) = open_unplaced(path, options)?;
                (Replicas::single(index), None, why)
            }
            NumaPlan::Interleave { placement, nodes } => {
                let policy = MemoryPolicy::Interleave(nodes);
                let index = FmIndex::open_copy_with(path, verify, options.threads, placed(policy))?;
                (Replicas::single(index), Some(placement), placed_by_numa())
            }
            NumaPlan::Replicate { placement, groups } => {
                let replicas = Replicas::build(&groups, |group| {
                    let node = group.memory_node;
                    let free = topology
                        .as_ref()
                        .and_then(|t| t.node(node))
                        .and_then(|n| n.memory)
                        .map_or(0, |m| m.free);
                    // Bound where the node has room; preferred where it has not, so that
                    // a full node spills over rather than calling the OOM killer.
                    let policy = if free >= size {
                        MemoryPolicy::Bind(node)
                    } else {
                        MemoryPolicy::Prefer(node)
                    };
                    // One reader a copy: the copies are read at once, each by a thread
                    // pinned to its node's core (threads it started would share that core).
                    FmIndex::open_copy_with(path, verify, 1, placed(policy))
                })?;
                (replicas, Some(placement), placed_by_numa())
            }
        };
        Ok(Self {
            replicas,
            placement,
            mode,
            reason,
            load_reason,
        })
    }

    /// The copy the master thread reads (header, contig names).
    pub fn first(&self) -> &FmIndex {
        self.replicas.first()
    }

    /// The copy worker `index` reads.
    pub fn for_worker(&self, index: usize) -> &FmIndex {
        self.replicas.for_worker(index)
    }

    /// What `--numa` came to, for `--stats`: the mode carried out, why, the copies
    /// made, the memory nodes the workers read, and whether the index was copied into
    /// memory or memory-mapped, and why.
    pub fn summary(&self) -> serde_json::Value {
        let index = match self.first().load_mode() {
            LoadMode::Copy => "copied",
            LoadMode::Mmap => "mapped",
        };
        serde_json::json!({
            "mode": self.mode.to_string(),
            "reason": self.reason,
            "copies": self.replicas.copies().len(),
            "nodes": self.placement.as_ref().map(Placement::memory_nodes),
            "index": index,
            "index_reason": self.load_reason,
        })
    }

    /// The workers' placement, for [`seqfarm_farm::FarmConfig::placement`] (`None`:
    /// placement off, workers pinned only with `--pin`).
    pub fn placement(&self) -> Option<&Placement> {
        self.placement.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unplaced_index_is_copied_only_into_twice_its_size() {
        let copy = LoadOptions {
            mode: LoadMode::Copy,
            verify_checksums: false,
            ..LoadOptions::default()
        };
        let mode = |options: LoadOptions, available| unplaced_load(options, 100, available).0.mode;
        assert_eq!(mode(copy, Some(200)), LoadMode::Copy);
        assert_eq!(mode(copy, Some(199)), LoadMode::Mmap);
        assert_eq!(mode(copy, None), LoadMode::Mmap);
        assert_eq!(mode(LoadOptions::default(), Some(1 << 40)), LoadMode::Mmap);
        assert!(!unplaced_load(copy, 100, Some(200)).0.verify_checksums);
    }
}
