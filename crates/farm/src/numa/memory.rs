//! How much memory this process can still fill without swapping: what decides whether a
//! shared index is worth copying into memory of the process's own.

use std::path::Path;

/// The bytes this process can fill without swapping: the system's [`mem_available`], or
/// less where a cgroup (v2) limit on the process's cgroup or one above it leaves less
/// (`memory.max` less `memory.current`); `None` where neither can be read (not Linux).
pub fn available_memory() -> Option<u64> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|text| cgroup_headroom(&text, Path::new("/sys/fs/cgroup")));
    match (mem_available(), cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `MemAvailable` of `/proc/meminfo`, in bytes: the memory the system could give without
/// swapping (free memory and the page cache it can reclaim).
pub fn mem_available() -> Option<u64> {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| parse_mem_available(&text))
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn parse_mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// The least headroom (`memory.max` less `memory.current`) of the cgroup v2 that a
/// `/proc/self/cgroup` text names (its `0::PATH` line) and of the cgroups above it, under
/// the cgroup file system mounted at `root`: a limit set on a job applies to the steps
/// inside it. `None` without a v2 cgroup or without any limit (`max` everywhere).
fn cgroup_headroom(self_cgroup: &str, root: &Path) -> Option<u64> {
    let path = self_cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    let read = |dir: &Path, name: &str| -> Option<u64> {
        std::fs::read_to_string(dir.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    root.join(path.trim_start_matches('/'))
        .ancestors()
        .take_while(|dir| dir.starts_with(root))
        .filter_map(|dir| {
            Some(read(dir, "memory.max")?.saturating_sub(read(dir, "memory.current")?))
        })
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_is_read_in_bytes() {
        let text = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(parse_mem_available(text), Some(2048 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
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

    #[test]
    fn a_limit_above_the_process_cgroup_counts() {
        let root = tempfile::tempdir().unwrap();
        let job = root.path().join("slurm/job_7");
        let step = job.join("step_0");
        std::fs::create_dir_all(&step).unwrap();
        std::fs::write(job.join("memory.max"), "4096\n").unwrap();
        std::fs::write(job.join("memory.current"), "1024\n").unwrap();
        std::fs::write(step.join("memory.max"), "max\n").unwrap();
        std::fs::write(step.join("memory.current"), "512\n").unwrap();
        assert_eq!(
            cgroup_headroom("0::/slurm/job_7/step_0\n", root.path()),
            Some(3072)
        );
    }
}
