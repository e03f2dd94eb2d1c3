//! The machine's NUMA nodes, read from a sysfs node tree (`/sys/devices/system/node`).

use std::io;
use std::path::Path;

/// Memory of one node, from its `meminfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NodeMemory {
    /// `MemTotal`, in bytes.
    pub total: u64,
    /// Memory that can be had without swapping: `MemFree` plus `Inactive(file)` (page
    /// cache nobody has used lately, which the kernel reclaims first), in bytes.
    pub free: u64,
}

/// One NUMA node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumaNode {
    /// The node's number (`nodeN`).
    pub id: usize,
    /// The CPUs of the node this process may run on, ascending.
    pub cpus: Vec<usize>,
    /// The node's memory; `None` for a memory-less node (CPUs only).
    pub memory: Option<NodeMemory>,
    /// Distances to every node of the tree, by node number (`distance`; 10 is local).
    /// Empty when the tree does not say.
    pub distances: Vec<(usize, u32)>,
}

impl NumaNode {
    /// The distance from this node to node `to` (`u32::MAX` when unknown).
    pub fn distance_to(&self, to: usize) -> u32 {
        if to == self.id {
            return 10;
        }
        self.distances
            .iter()
            .find(|(node, _)| *node == to)
            .map_or(u32::MAX, |(_, d)| *d)
    }
}

/// The NUMA nodes of a machine, ascending by number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumaTopology {
    /// Every online node, with or without CPUs and memory.
    pub nodes: Vec<NumaNode>,
}

/// Where the kernel publishes the node tree.
pub const SYSFS_NODES: &str = "/sys/devices/system/node";

/// Environment variable naming another node tree to read instead of [`SYSFS_NODES`]:
/// a test knob, to run the binary on a fixture topology.
pub const TOPOLOGY_ROOT_VAR: &str = "SEQFARM_NUMA_ROOT";

impl NumaTopology {
    /// Reads the node tree under `root` (a directory laid out like
    /// `/sys/devices/system/node`: `online`, `has_memory`, `nodeN/cpulist`,
    /// `nodeN/meminfo`, `nodeN/distance`). Every CPU of the tree is kept; see
    /// [`NumaTopology::restricted_to`].
    pub fn read(root: &Path) -> io::Result<Self> {
        let ids = match std::fs::read_to_string(root.join("online")) {
            Ok(text) => parse_cpu_list(&text)?,
            Err(_) => node_dirs(root)?,
        };
        if ids.is_empty() {
            return Err(invalid(format!("{}: no online node", root.display())));
        }
        let with_memory = match std::fs::read_to_string(root.join("has_memory")) {
            Ok(text) => Some(parse_cpu_list(&text)?),
            Err(_) => None,
        };
        let mut nodes = Vec::with_capacity(ids.len());
        for &id in &ids {
            let dir = root.join(format!("node{id}"));
            let cpus = match std::fs::read_to_string(dir.join("cpulist")) {
                Ok(text) => parse_cpu_list(&text)?,
                Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
                Err(e) => return Err(e),
            };
            let memory = match std::fs::read_to_string(dir.join("meminfo")) {
                Ok(text) => parse_meminfo(&text),
                Err(_) => None,
            };
            let listed = with_memory.as_ref().is_none_or(|m| m.contains(&id));
            let memory = memory.filter(|m| listed && m.total > 0);
            let distances = std::fs::read_to_string(dir.join("distance"))
                .ok()
                .map(|text| {
                    ids.iter()
                        .copied()
                        .zip(text.split_whitespace().filter_map(|d| d.parse().ok()))
                        .collect()
                })
                .unwrap_or_default();
            nodes.push(NumaNode {
                id,
                cpus,
                memory,
                distances,
            });
        }
        Ok(Self { nodes })
    }

    /// The same nodes with only the CPUs in `allowed` (the CPUs this process may run
    /// on); nodes left without CPUs stay (their memory can still be used).
    pub fn restricted_to(mut self, allowed: &[usize]) -> Self {
        for node in &mut self.nodes {
            node.cpus.retain(|cpu| allowed.contains(cpu));
        }
        self
    }

    /// This machine's nodes (or those of the tree [`TOPOLOGY_ROOT_VAR`] names), with the
    /// CPUs this process may run on; `None` where there is no node tree (a kernel
    /// without NUMA, or not Linux) or it cannot be read.
    pub fn of_this_process() -> Option<Self> {
        if !cfg!(target_os = "linux") && std::env::var_os(TOPOLOGY_ROOT_VAR).is_none() {
            return None;
        }
        let root = std::env::var_os(TOPOLOGY_ROOT_VAR)
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| SYSFS_NODES.into());
        let topology = Self::read(&root).ok()?;
        let allowed: Vec<usize> = core_affinity::get_core_ids()?
            .into_iter()
            .map(|c| c.id)
            .collect();
        Some(topology.restricted_to(&allowed))
    }

    /// The node with number `id`.
    pub fn node(&self, id: usize) -> Option<&NumaNode> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// Where node `id`'s CPUs find memory: the node itself when it has memory, else the
    /// nearest node with memory (by `distance`, the lowest number among equals); `None`
    /// when no node has memory.
    pub fn memory_node_of(&self, id: usize) -> Option<usize> {
        let node = self.node(id)?;
        if node.memory.is_some() {
            return Some(id);
        }
        self.nodes
            .iter()
            .filter(|n| n.memory.is_some())
            .min_by_key(|n| (node.distance_to(n.id), n.id))
            .map(|n| n.id)
    }
}

/// Parses a kernel CPU or node list: `0-3,8-11`, `0`, `` (empty), with a trailing
/// newline; the numbers come back ascending, without repeats.
pub fn parse_cpu_list(text: &str) -> io::Result<Vec<usize>> {
    let mut list = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.trim().is_empty()) {
        let part = part.trim();
        let number = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| invalid(format!("bad CPU list {:?}", text.trim())))
        };
        match part.split_once('-') {
            Some((first, last)) => {
                let (first, last) = (number(first)?, number(last)?);
                if last < first || last - first > 1 << 16 {
                    return Err(invalid(format!("bad CPU range {part:?}")));
                }
                list.extend(first..=last);
            }
            None => list.push(number(part)?),
        }
    }
    list.sort_unstable();
    list.dedup();
    Ok(list)
}

/// `MemTotal` and `MemFree + Inactive(file)` of a node's `meminfo` (`Node 0 MemFree:
/// 8289768 kB` lines); `None` without a `MemTotal` line.
fn parse_meminfo(text: &str) -> Option<NodeMemory> {
    let mut total = None;
    let mut free = 0u64;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        // "Node", the number, the key, the value, "kB".
        let (Some(_), Some(_), Some(key), Some(value)) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            continue;
        };
        let Ok(kb) = value.parse::<u64>() else {
            continue;
        };
        let bytes = kb.saturating_mul(1024);
        match key {
            "MemTotal:" => total = Some(bytes),
            "MemFree:" | "Inactive(file):" => free = free.saturating_add(bytes),
            _ => {}
        }
    }
    Some(NodeMemory {
        total: total?,
        free,
    })
}

/// The `nodeN` directories under `root`, for a tree without an `online` file.
fn node_dirs(root: &Path) -> io::Result<Vec<usize>> {
    let mut ids = Vec::new();
    for entry in std::fs::read_dir(root)? {
        let name = entry?.file_name();
        if let Some(id) = name
            .to_str()
            .and_then(|n| n.strip_prefix("node"))
            .and_then(|n| n.parse().ok())
        {
            ids.push(id);
        }
    }
    ids.sort_unstable();
    Ok(ids)
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_with_ranges_and_gaps() {
        assert_eq!(
            parse_cpu_list("0-3,8-11\n").unwrap(),
            [0, 1, 2, 3, 8, 9, 10, 11]
        );
        assert_eq!(parse_cpu_list("0\n").unwrap(), [0]);
        assert_eq!(parse_cpu_list("\n").unwrap(), Vec::<usize>::new());
        assert_eq!(parse_cpu_list("5,1-2,2").unwrap(), [1, 2, 5]);
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("a-b").is_err());
    }

    #[test]
    fn meminfo_gives_total_and_reclaimable_free_memory() {
        let text = "Node 1 MemTotal:  1000 kB\nNode 1 MemFree:   300 kB\n\
                    Node 1 Inactive(file):  100 kB\nNode 1 Active(file):  50 kB\n";
        let m = parse_meminfo(text).unwrap();
        assert_eq!((m.total, m.free), (1000 * 1024, 400 * 1024));
        assert_eq!(parse_meminfo("nothing"), None);
    }
}
