//! NUMA placement: where the workers run and where the data they share lives.
//!
//! On a machine of several NUMA nodes a core reads its own node's memory faster than
//! another node's, and every node's memory controller has its own bandwidth. A farm
//! whose workers all read one index placed on one node (where the master thread
//! happened to load it) makes that node's memory the bottleneck. Three answers:
//!
//! * **interleave** ([`MemoryPolicy::Interleave`]): the shared data's pages are dealt
//!   round robin over the nodes the workers run on: as many remote reads as before, but
//!   spread over every memory controller;
//! * **replicate**: one copy per node, bound to that node's memory
//!   ([`MemoryPolicy::Bind`]) and copied by a thread running there; each worker reads its
//!   node's copy ([`Replicas`]), so every read is local;
//! * **off**: the kernel's default (first touch; a memory-mapped file's pages wherever
//!   the page cache put them).
//!
//! [`decide`] turns a [`NumaMode`] (`auto` included) into a [`NumaPlan`] from the
//! [`NumaTopology`] (read from `/sys/devices/system/node`), the workers'
//! [`Placement`] (node by node) and the size of the shared data. Nothing here touches
//! the farm's task path: placement is settled before the workers start.

mod memory;
mod placement;
mod policy;
mod topology;

use std::fmt;
use std::str::FromStr;

pub use memory::{available_memory, mem_available};
pub use placement::{Placement, ReplicaGroup, WorkerSlot};
pub use policy::MemoryPolicy;
pub use topology::{
    parse_cpu_list, NodeMemory, NumaNode, NumaTopology, SYSFS_NODES, TOPOLOGY_ROOT_VAR,
};

/// Environment variable forcing `replicate` to make this many copies per node (the
/// node's workers dealt among them): a test knob, so that one node can show that
/// workers reading different copies give the same output.
pub const COPIES_PER_NODE_VAR: &str = "SEQFARM_NUMA_COPIES_PER_NODE";

/// What the user asked for (`--numa`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NumaMode {
    /// No placement: the kernel's defaults, workers pinned only when asked.
    Off,
    /// Shared data interleaved over the nodes the workers use.
    Interleave,
    /// One copy of the shared data per node.
    Replicate,
    /// Chosen from the topology, the data's size and the free memory ([`auto_mode`]).
    #[default]
    Auto,
}

impl FromStr for NumaMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(Self::Off),
            "interleave" => Ok(Self::Interleave),
            "replicate" => Ok(Self::Replicate),
            "auto" => Ok(Self::Auto),
            _ => Err(format!(
                "{s:?} is not a NUMA mode (off, interleave, replicate, auto)"
            )),
        }
    }
}

impl fmt::Display for NumaMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Off => "off",
            Self::Interleave => "interleave",
            Self::Replicate => "replicate",
            Self::Auto => "auto",
        })
    }
}

/// What a run does about NUMA, once decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NumaPlan {
    /// Nothing: today's memory-mapped data, workers pinned only with `--pin`.
    Off,
    /// Copy the data into memory interleaved over these nodes; workers pinned by the
    /// placement.
    Interleave {
        /// The workers' placement.
        placement: Placement,
        /// The nodes to interleave over: the memory nodes the workers use.
        nodes: Vec<usize>,
    },
    /// One copy per group, bound to the group's node; workers pinned by the placement.
    Replicate {
        /// The workers' placement.
        placement: Placement,
        /// The copies to make and who reads each.
        groups: Vec<ReplicaGroup>,
    },
}

impl NumaPlan {
    /// The mode this plan carries out (never `Auto`).
    pub fn mode(&self) -> NumaMode {
        match self {
            NumaPlan::Off => NumaMode::Off,
            NumaPlan::Interleave { .. } => NumaMode::Interleave,
            NumaPlan::Replicate { .. } => NumaMode::Replicate,
        }
    }

    /// The placement to give the farm ([`crate::FarmConfig::placement`]), when on.
    pub fn placement(&self) -> Option<&Placement> {
        match self {
            NumaPlan::Off => None,
            NumaPlan::Interleave { placement, .. } | NumaPlan::Replicate { placement, .. } => {
                Some(placement)
            }
        }
    }
}

/// The decision and why, for a message with `--verbose` or a test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumaDecision {
    /// What to do.
    pub plan: NumaPlan,
    /// One line saying why (`auto`'s reasoning, or "asked for").
    pub reason: String,
}

/// `auto`'s rule, after Lenis and Senar ("Optimized execution strategies for sequence
/// aligners on NUMA architectures"): a copy per node wins when the index is less than
/// half a node's memory; a larger index is better interleaved, which spreads the
/// contention over every memory controller; one node in use needs neither.
///
/// With `nodes` the memory nodes the workers read from and `size` the bytes shared:
/// 1. one node in use (or none known): **off**;
/// 2. every node in use has at least `2 × size` free (`MemFree + Inactive(file)`):
///    **replicate**;
/// 3. the nodes in use have at least `size` free together: **interleave**;
/// 4. otherwise **off**: a copy in anonymous memory could not be evicted, while the
///    memory-mapped file's pages can.
pub fn auto_mode(topology: &NumaTopology, nodes: &[usize], size: u64) -> (NumaMode, String) {
    if nodes.len() <= 1 {
        return (NumaMode::Off, "the workers use one NUMA node".into());
    }
    let free: Vec<u64> = nodes
        .iter()
        .map(|&n| {
            topology
                .node(n)
                .and_then(|n| n.memory)
                .map_or(0, |m| m.free)
        })
        .collect();
    let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
    let least = free.iter().copied().min().unwrap_or(0);
    if least >= size.saturating_mul(2) {
        return (
            NumaMode::Replicate,
            format!(
                "{} nodes in use, each with at least twice the data free ({:.1} GiB ≥ 2 × {:.1} GiB)",
                nodes.len(),
                gib(least),
                gib(size)
            ),
        );
    }
    let total: u64 = free.iter().sum();
    if total >= size {
        return (
            NumaMode::Interleave,
            format!(
                "{} nodes in use; a node has {:.1} GiB free, under twice the data ({:.1} GiB)",
                nodes.len(),
                gib(least),
                gib(size)
            ),
        );
    }
    (
        NumaMode::Off,
        format!(
            "{:.1} GiB free on the nodes in use, less than the data ({:.1} GiB)",
            gib(total),
            gib(size)
        ),
    )
}

/// Decides what a run of `workers` workers sharing `size` bytes does under `mode`, on
/// `topology` (`None`: no NUMA information, always off). `copies_per_node` (normally 1)
/// multiplies the copies of `replicate` ([`COPIES_PER_NODE_VAR`]).
pub fn decide(
    mode: NumaMode,
    topology: Option<&NumaTopology>,
    workers: usize,
    size: u64,
    copies_per_node: usize,
) -> NumaDecision {
    let off = |reason: &str| NumaDecision {
        plan: NumaPlan::Off,
        reason: reason.into(),
    };
    if mode == NumaMode::Off {
        return off("asked for");
    }
    let Some(topology) = topology else {
        return off("no NUMA topology on this system");
    };
    let Some(placement) = Placement::node_by_node(topology, workers) else {
        return off("no node has a CPU this process may use");
    };
    let nodes = placement.memory_nodes();
    let (mode, reason) = match mode {
        NumaMode::Auto if copies_per_node > 1 => (
            NumaMode::Replicate,
            format!("{COPIES_PER_NODE_VAR} asks for copies"),
        ),
        NumaMode::Auto => auto_mode(topology, &nodes, size),
        other => (other, "asked for".into()),
    };
    let plan = match mode {
        NumaMode::Interleave => NumaPlan::Interleave { placement, nodes },
        NumaMode::Replicate => NumaPlan::Replicate {
            groups: placement.replica_groups(copies_per_node),
            placement,
        },
        NumaMode::Off | NumaMode::Auto => NumaPlan::Off,
    };
    NumaDecision { plan, reason }
}

/// The copies per node [`COPIES_PER_NODE_VAR`] asks for (1 when unset or not a number).
pub fn copies_per_node_from_env() -> usize {
    std::env::var(COPIES_PER_NODE_VAR)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|&n: &usize| n >= 1)
        .unwrap_or(1)
}

/// One copy of shared data per [`ReplicaGroup`], and which copy each worker reads.
#[derive(Debug)]
pub struct Replicas<T> {
    copies: Vec<T>,
    copy_of_worker: Vec<usize>,
}

impl<T> Replicas<T> {
    /// A single copy every worker reads.
    pub fn single(copy: T) -> Self {
        Self {
            copies: vec![copy],
            copy_of_worker: Vec::new(),
        }
    }

    /// Makes one copy per group, each by `make` on a thread pinned to the group's core
    /// (so that even without a memory policy the copy is first touched on its node), the
    /// groups in parallel. Returns the first error in group order.
    pub fn build<E: Send>(
        groups: &[ReplicaGroup],
        make: impl Fn(&ReplicaGroup) -> Result<T, E> + Sync,
    ) -> Result<Self, E>
    where
        T: Send,
    {
        let caller = std::thread::current().id();
        let made: Vec<Result<T, E>> = std::thread::scope(|scope| {
            let handles: Vec<_> = groups
                .iter()
                .map(|group| {
                    let make = &make;
                    // A copy whose thread cannot start (a process or address-space
                    // limit) is made on this thread, which stays unpinned: slower, not
                    // failed.
                    crate::threads::spawn_scoped_or_run(scope, "seqfarm-replica", move || {
                        if std::thread::current().id() != caller {
                            crate::pin::pin_to(group.core);
                        }
                        make(group)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        let copies = made.into_iter().collect::<Result<Vec<T>, E>>()?;
        let workers = groups
            .iter()
            .flat_map(|g| &g.workers)
            .max()
            .map_or(0, |&w| w + 1);
        let mut copy_of_worker = vec![0; workers];
        for (copy, group) in groups.iter().enumerate() {
            for &w in &group.workers {
                copy_of_worker[w] = copy;
            }
        }
        Ok(Self {
            copies,
            copy_of_worker,
        })
    }

    /// The copy worker `index` reads.
    pub fn for_worker(&self, index: usize) -> &T {
        let copy = self.copy_of_worker.get(index).copied().unwrap_or(0);
        &self.copies[copy]
    }

    /// The first copy (for the master thread's own reads: headers, names).
    pub fn first(&self) -> &T {
        &self.copies[0]
    }

    /// Every copy, in group order.
    pub fn copies(&self) -> &[T] {
        &self.copies
    }
}

#[cfg(test)]
mod tests;
