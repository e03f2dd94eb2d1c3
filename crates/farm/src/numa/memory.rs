//! How much memory this process can still fill without swapping: what decides whether a
//! shared index is worth copying into memory of the process's own.

use std::path::Path;

/// The bytes this process can fill without swapping: `MemAvailable` of `/proc/meminfo`,
/// or less where the process's cgroup (v2) limit leaves less (`memory.max` less
/// `memory.current`); `None` where neither can be read (not Linux).
pub fn available_memory() -> Option<u64> {
    let system = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_available(&text));
    let cgroup = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|text| cgroup_headroom(&text, Path::new("/sys/fs/cgroup")));
    match (system, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// `memory.max` less `memory.current` of the cgroup v2 that a `/proc/self/cgroup` text
/// names (its `0::PATH` line), under the cgroup file system mounted at `root`; `None`
/// without a v2 cgroup or without a limit (`max`).
fn cgroup_headroom(self_cgroup: &str, root: &Path) -> Option<u64> {
    let path = self_cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = root.join(path.trim_start_matches('/'));
    let read = |name: &str| -> Option<u64> {
        std::fs::read_to_string(dir.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    let limit = read("memory.max")?;
    Some(limit.saturating_sub(read("memory.current")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_is_read_in_bytes() {
        let text = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(mem_available(text), Some(2048 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn a_cgroup_limit_leaves_its_headroom() {
        let root = tempfile::tempdir().unwrap();
        let job = root.path().join("slurm/job_7");
        std::fs::create_dir_all(&job).unwrap();
        std::fs::write(job.join("memory.max"), "8589934592\n").unwrap();
        std::fs::write(job.join("memory.current"), "1073741824\n").unwrap();
        let line = "0::/slurm/job_7\n";
        assert_eq!(cgroup_headroom(line, root.path()), Some(7 << 30));
        std::fs::write(job.join("memory.max"), "max\n").unwrap();
        assert_eq!(cgroup_headroom(line, root.path()), None);
        assert_eq!(cgroup_headroom("1:memory:/x\n", root.path()), None);
    }
}
