//! How much memory this process can still fill without swapping: what decides whether a
//! shared index is worth copying into memory of the process's own.

use std::path::Path;

/// The bytes this process can fill without swapping: the system's [`mem_available`], or
/// less where a cgroup limit on the process's cgroup or one above it leaves less (cgroup
/// v2's `memory.max` less `memory.current`, or v1's `memory.limit_in_bytes` less
/// `memory.usage_in_bytes`); `None` where neither can be read (not Linux).
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

/// The least headroom of the cgroups that a `/proc/self/cgroup` text names and of the
/// cgroups above them, under the cgroup file systems mounted at `root`: a limit set on a
/// job applies to the steps inside it. The cgroup v2 (its `0::PATH` line, under `root`)
/// counts `memory.max` less `memory.current`; the v1 memory controller (a line naming
/// `memory`, under `root/memory`, as Slurm and older distributions set it up) counts
/// `memory.limit_in_bytes` less `memory.usage_in_bytes`. `None` without any limit
/// (`max`, or v1's page-counter ceiling, everywhere).
fn cgroup_headroom(self_cgroup: &str, root: &Path) -> Option<u64> {
    let read = |dir: &Path, name: &str| -> Option<u64> {
        std::fs::read_to_string(dir.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    // (mount point, the cgroup's path under it, its limit and usage files)
    let hierarchies = self_cgroup.lines().filter_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        if controllers.is_empty() {
            Some((root.to_path_buf(), path, "memory.max", "memory.current"))
        } else if controllers.split(',').any(|c| c == "memory") {
            let mount = root.join("memory");
            Some((
                mount,
                path,
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            ))
        } else {
            None
        }
    });
    hierarchies
        .filter_map(|(mount, path, max, current)| {
            let dir = mount.join(path.trim_start_matches('/'));
            dir.ancestors()
                .take_while(|d| d.starts_with(&mount))
                .filter_map(|d| {
                    let limit = read(d, max).filter(|&l| l < NO_LIMIT)?;
                    Some(limit.saturating_sub(read(d, current)?))
                })
                .min()
        })
        .min()
}

/// Limits at or above this are v1's way of writing "no limit" (its page counter's
/// ceiling, 2^63 rounded down to a page).
const NO_LIMIT: u64 = 1 << 62;

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
    fn a_cgroup_v1_memory_limit_leaves_its_headroom() {
        let root = tempfile::tempdir().unwrap();
        let memory = root.path().join("memory");
        let job = memory.join("slurm/uid_0/job_7");
        let step = job.join("step_batch");
        std::fs::create_dir_all(&step).unwrap();
        let write = |dir: &std::path::Path, limit: &str, usage: &str| {
            std::fs::write(dir.join("memory.limit_in_bytes"), limit).unwrap();
            std::fs::write(dir.join("memory.usage_in_bytes"), usage).unwrap();
        };
        let unlimited = "9223372036854771712\n";
        write(&memory, unlimited, "5000000000\n");
        write(&job, "2147483648\n", "1073741824\n");
        write(&step, unlimited, "4096\n");
        let text = "12:pids:/slurm\n4:memory:/slurm/uid_0/job_7/step_batch\n0::/\n";
        assert_eq!(cgroup_headroom(text, root.path()), Some(1 << 30));
        // Controllers mounted together are named together.
        let joint = "4:cpu,memory:/slurm/uid_0/job_7/step_batch\n";
        assert_eq!(cgroup_headroom(joint, root.path()), Some(1 << 30));
        write(&job, unlimited, "1073741824\n");
        assert_eq!(cgroup_headroom(text, root.path()), None);
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
