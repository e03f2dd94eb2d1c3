//! Memory policies on a range of memory (`mbind(2)`), the one system call of NUMA
//! placement, kept here behind a safe wrapper.

use std::io;

/// Where the pages of a memory range go when they are first touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemoryPolicy {
    /// Round robin over these nodes, page by page (`MPOL_INTERLEAVE`).
    Interleave(Vec<usize>),
    /// Only on this node (`MPOL_BIND`): the kernel reclaims memory there rather than
    /// going elsewhere.
    Bind(usize),
    /// On this node while it has free memory, elsewhere after (`MPOL_PREFERRED`).
    Prefer(usize),
}

impl MemoryPolicy {
    /// Sets the policy of the pages of `memory` (a mapping of this process whose pages
    /// have not been touched yet: pages already there keep their node). Fails where the
    /// kernel refuses (a node that does not exist, a container forbidding `mbind`), and
    /// on systems other than Linux.
    pub fn apply(&self, memory: &mut [u8]) -> io::Result<()> {
        if memory.is_empty() {
            return Ok(());
        }
        let nodes = match self {
            MemoryPolicy::Interleave(nodes) => nodes.as_slice(),
            MemoryPolicy::Bind(node) | MemoryPolicy::Prefer(node) => std::slice::from_ref(node),
        };
        if nodes.is_empty() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "no node"));
        }
        mbind(memory, self.mode(), nodes)
    }

    /// The policy as `/proc/PID/numa_maps` prints it (`interleave:0-1`, `bind:0`,
    /// `prefer:0`), without ranges: nodes separated by commas.
    pub fn describe(&self) -> String {
        let list = |nodes: &[usize]| {
            nodes
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(",")
        };
        match self {
            MemoryPolicy::Interleave(nodes) => format!("interleave:{}", list(nodes)),
            MemoryPolicy::Bind(node) => format!("bind:{node}"),
            MemoryPolicy::Prefer(node) => format!("prefer:{node}"),
        }
    }

    fn mode(&self) -> i32 {
        // The kernel's `enum mempolicy_mode` (include/uapi/linux/mempolicy.h).
        match self {
            MemoryPolicy::Prefer(_) => 1,
            MemoryPolicy::Bind(_) => 2,
            MemoryPolicy::Interleave(_) => 3,
        }
    }
}

#[cfg(target_os = "linux")]
fn mbind(memory: &mut [u8], mode: i32, nodes: &[usize]) -> io::Result<()> {
    const BITS: usize = libc::c_ulong::BITS as usize;
    let highest = nodes.iter().copied().max().unwrap_or(0);
    let mut mask = vec![0 as libc::c_ulong; highest / BITS + 1];
    for &node in nodes {
        mask[node / BITS] |= 1 << (node % BITS);
    }
    // The kernel reads `maxnode - 1` bits (a historical off-by-one every caller, libnuma
    // included, compensates for).
    let maxnode = (mask.len() * BITS + 1) as libc::c_ulong;
    let start = memory.as_mut_ptr();
    // mbind wants a page-aligned start: mappings are, and a slice inside one may not be.
    let page = page_size();
    if !(start as usize).is_multiple_of(page) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "memory range not page-aligned",
        ));
    }
    // SAFETY: `start..start + len` is memory this process owns (the `&mut [u8]`), and
    // `mask` holds `maxnode - 1` readable bits. mbind changes only where the pages of
    // that range are placed, never their contents or the mapping itself; no flag asks
    // it to move pages.
    let result = unsafe {
        libc::syscall(
            libc::SYS_mbind,
            start,
            memory.len() as libc::c_ulong,
            mode as libc::c_ulong,
            mask.as_ptr(),
            maxnode,
            0 as libc::c_ulong,
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(target_os = "linux")]
fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if size > 0 {
        size as usize
    } else {
        4096
    }
}

#[cfg(not(target_os = "linux"))]
fn mbind(_memory: &mut [u8], _mode: i32, _nodes: &[usize]) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "memory policies exist on Linux only",
    ))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// An anonymous mapping of `len` bytes, unmapped on drop.
    struct Anon(*mut u8, usize);

    impl Anon {
        fn new(len: usize) -> Self {
            // SAFETY: a fresh private anonymous mapping, checked for failure.
            let p = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            assert_ne!(p, libc::MAP_FAILED);
            Anon(p.cast(), len)
        }

        fn bytes(&mut self) -> &mut [u8] {
            // SAFETY: the mapping is `len` bytes, readable and writable, owned here.
            unsafe { std::slice::from_raw_parts_mut(self.0, self.1) }
        }
    }

    impl Drop for Anon {
        fn drop(&mut self) {
            // SAFETY: unmaps exactly the mapping made in `new`.
            unsafe { libc::munmap(self.0.cast(), self.1) };
        }
    }

    /// The policy `/proc/self/numa_maps` shows for the mapping at `address`.
    fn shown_policy(address: usize) -> Option<String> {
        let maps = std::fs::read_to_string("/proc/self/numa_maps").ok()?;
        let line = maps
            .lines()
            .find(|l| l.starts_with(&format!("{address:x} ")))?;
        line.split_whitespace().nth(1).map(String::from)
    }

    /// A node that exists here, if this kernel has NUMA.
    fn first_node() -> Option<usize> {
        let text = std::fs::read_to_string("/sys/devices/system/node/has_memory").ok()?;
        super::super::topology::parse_cpu_list(&text)
            .ok()?
            .first()
            .copied()
    }

    #[test]
    fn policies_show_in_numa_maps() {
        let Some(node) = first_node() else { return };
        for policy in [
            MemoryPolicy::Interleave(vec![node]),
            MemoryPolicy::Bind(node),
            MemoryPolicy::Prefer(node),
        ] {
            let mut anon = Anon::new(1 << 20);
            if let Err(e) = policy.apply(anon.bytes()) {
                // A container may forbid mbind; that is the warning path.
                eprintln!("mbind refused here: {e}");
                return;
            }
            anon.bytes().fill(1);
            let shown = shown_policy(anon.0 as usize).expect("mapping listed");
            assert_eq!(shown, policy.describe());
        }
    }

    #[test]
    fn a_node_that_does_not_exist_is_an_error() {
        let mut anon = Anon::new(1 << 16);
        assert!(MemoryPolicy::Bind(1000).apply(anon.bytes()).is_err());
        assert!(MemoryPolicy::Interleave(vec![])
            .apply(anon.bytes())
            .is_err());
    }
}
