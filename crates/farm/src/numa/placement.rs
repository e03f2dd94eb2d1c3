//! Where each worker runs, and which copy of shared data it reads.

use super::topology::NumaTopology;

/// One worker's place: its core, the node of that core, and the node its shared data
/// should live on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerSlot {
    /// The CPU the worker is pinned to.
    pub core: usize,
    /// The node of that CPU.
    pub node: usize,
    /// The node whose memory the worker reads: `node` itself, or for a memory-less node
    /// the nearest node with memory ([`NumaTopology::memory_node_of`]).
    pub memory_node: usize,
}

impl WorkerSlot {
    /// Pins the calling thread to this slot's core (for a command that works on its
    /// own thread); returns whether it worked.
    pub fn pin_current_thread(&self) -> bool {
        crate::pin::pin_to(self.core).is_some()
    }
}

/// Workers laid out node by node.
///
/// The CPUs this process may use are listed node after node (ascending node number,
/// ascending CPU number within a node), and worker `i` gets the `i`-th CPU of that list,
/// wrapping around when there are more workers than CPUs. Workers thus fill one node
/// before the next one is used: `W` workers on nodes of `c` CPUs use the first
/// `ceil(W / c)` nodes, the fewest nodes that hold them, so the least data crosses the
/// interconnect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    slots: Vec<WorkerSlot>,
}

/// One copy of the shared data and the workers that read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaGroup {
    /// The node the copy is bound to.
    pub memory_node: usize,
    /// A CPU near that memory, for the thread that makes the copy.
    pub core: usize,
    /// The workers reading this copy, ascending.
    pub workers: Vec<usize>,
}

impl Placement {
    /// `workers` workers (at least 1) laid out node by node on `topology`; `None` when
    /// no node has a CPU this process may use.
    pub fn node_by_node(topology: &NumaTopology, workers: usize) -> Option<Self> {
        let cpus: Vec<(usize, usize)> = topology
            .nodes
            .iter()
            .flat_map(|n| n.cpus.iter().map(move |&cpu| (cpu, n.id)))
            .collect();
        if cpus.is_empty() {
            return None;
        }
        let slots = (0..workers.max(1))
            .map(|i| {
                let (core, node) = cpus[i % cpus.len()];
                WorkerSlot {
                    core,
                    node,
                    memory_node: topology.memory_node_of(node).unwrap_or(node),
                }
            })
            .collect();
        Some(Self { slots })
    }

    /// Every worker's slot, in worker order.
    pub fn slots(&self) -> &[WorkerSlot] {
        &self.slots
    }

    /// Worker `index`'s slot.
    pub fn slot(&self, index: usize) -> WorkerSlot {
        self.slots[index % self.slots.len()]
    }

    /// The nodes whose memory the workers read, ascending.
    pub fn memory_nodes(&self) -> Vec<usize> {
        let mut nodes: Vec<usize> = self.slots.iter().map(|s| s.memory_node).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// The copies `replicate` makes: one per memory node in use, or `copies_per_node`
    /// per node (a test knob: the node's workers are dealt among its copies in turn,
    /// never more copies than workers).
    pub fn replica_groups(&self, copies_per_node: usize) -> Vec<ReplicaGroup> {
        let mut groups = Vec::new();
        for node in self.memory_nodes() {
            let workers: Vec<usize> = (0..self.slots.len())
                .filter(|&i| self.slots[i].memory_node == node)
                .collect();
            let copies = copies_per_node.clamp(1, workers.len());
            // A thread on the memory's own node copies it, when that node has a worker;
            // else (a memory-less node's workers) the first worker's core.
            let core = workers
                .iter()
                .map(|&i| self.slots[i])
                .find(|s| s.node == node)
                .unwrap_or(self.slots[workers[0]])
                .core;
            for copy in 0..copies {
                groups.push(ReplicaGroup {
                    memory_node: node,
                    core,
                    workers: workers.iter().copied().skip(copy).step_by(copies).collect(),
                });
            }
        }
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::super::topology::{NodeMemory, NumaNode};
    use super::*;

    fn node(id: usize, cpus: &[usize], memory: bool) -> NumaNode {
        NumaNode {
            id,
            cpus: cpus.to_vec(),
            memory: memory.then_some(NodeMemory {
                total: 1 << 30,
                free: 1 << 29,
            }),
            distances: Vec::new(),
        }
    }

    #[test]
    fn workers_fill_one_node_before_the_next() {
        let topology = NumaTopology {
            nodes: vec![node(0, &[0, 1], true), node(1, &[2, 3], true)],
        };
        let p = Placement::node_by_node(&topology, 3).unwrap();
        let cores: Vec<_> = p.slots().iter().map(|s| (s.core, s.node)).collect();
        assert_eq!(cores, [(0, 0), (1, 0), (2, 1)]);
        assert_eq!(p.memory_nodes(), [0, 1]);
        let two = Placement::node_by_node(&topology, 2).unwrap();
        assert_eq!(two.memory_nodes(), [0]);
        // More workers than CPUs wrap around.
        let six = Placement::node_by_node(&topology, 6).unwrap();
        assert_eq!(six.slot(4).core, 0);
        assert_eq!(six.slot(5).node, 0);
    }

    #[test]
    fn replica_groups_follow_memory_nodes() {
        let topology = NumaTopology {
            nodes: vec![node(0, &[0, 1], true), node(1, &[2, 3], true)],
        };
        let p = Placement::node_by_node(&topology, 4).unwrap();
        let groups = p.replica_groups(1);
        assert_eq!(groups.len(), 2);
        assert_eq!((groups[1].memory_node, groups[1].core), (1, 2));
        assert_eq!(groups[1].workers, [2, 3]);
        let forced = p.replica_groups(2);
        assert_eq!(forced.len(), 4);
        assert_eq!(forced[0].workers, [0]);
        assert_eq!(forced[1].workers, [1]);
        // Never more copies than workers.
        let one = Placement::node_by_node(&topology, 1).unwrap();
        assert_eq!(one.replica_groups(5).len(), 1);
    }

    #[test]
    fn no_cpu_no_placement() {
        let topology = NumaTopology {
            nodes: vec![node(0, &[], true)],
        };
        assert_eq!(Placement::node_by_node(&topology, 2), None);
    }
}
