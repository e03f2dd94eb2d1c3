//! glibc's malloc in processes that run farm after farm, or decode a CRAM.
//!
//! glibc serves a block over its mmap threshold from a fresh `mmap` and gives it back
//! when it is freed; free memory at the top of a heap beyond its trim threshold goes back
//! too. The next use of that much memory faults it in again, a page at a time. glibc
//! raises both thresholds by itself as it sees big blocks freed (up to 32 MiB and
//! 64 MiB), unless one of them was set (`MALLOC_TRIM_THRESHOLD_` and the like): then
//! they stay at 128 KiB and the setting. Dask's worker processes are started with
//! `MALLOC_TRIM_THRESHOLD_=65536`, and there:
//!
//! * htslib's per-slice buffers (a few hundred KiB to a few MiB, allocated and freed for
//!   every slice) were each a fresh `mmap`: a CRAM decode took 1.7x the CPU of the same
//!   decode on the command line ([`heap_for_big_blocks`]);
//! * each part, a farm of its own with fresh buffers, faulted in again the memory the
//!   part before had given back: an align job of 100,000 pairs cost its worker process
//!   89,000–121,000 minor page faults, against 19,000–22,000 with glibc's own thresholds
//!   and the command line's 23,000–47,000 ([`keep_freed_memory`]).
//!
//! Both set the thresholds glibc would reach by itself. The command line, one farm that
//! keeps its buffers throughout, needs neither.

use std::sync::Once;

/// glibc's ceiling for its adaptive mmap threshold (on 64-bit).
const MMAP_THRESHOLD: i32 = 32 << 20;
/// The trim threshold glibc sets with that mmap threshold (twice it).
const TRIM_THRESHOLD: i32 = 2 * MMAP_THRESHOLD;
/// The trim threshold Dask's worker processes are started with (its
/// `distributed.nanny.pre-spawn-environ`), told apart from a value of the user's own.
const DASK_TRIM_THRESHOLD: &str = "65536";

/// Has blocks up to 32 MiB served from the heaps, once per process, unless
/// the user set the mmap threshold (`MALLOC_MMAP_THRESHOLD_`, or in `GLIBC_TUNABLES`).
/// Elsewhere than glibc, does nothing.
pub fn heap_for_big_blocks() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if !set_by_user("MALLOC_MMAP_THRESHOLD_", "mmap_threshold", None) {
            set(Threshold::Mmap, MMAP_THRESHOLD);
        }
    });
}

/// [`heap_for_big_blocks`], and freed memory kept at the top of a heap up to 64 MiB,
/// once per process: for a process that runs part after part (a
/// Dask worker). It keeps at most its peak use plus that much per heap. A trim threshold
/// the user set stands (Dask's default is not the user's).
pub fn keep_freed_memory() {
    static ONCE: Once = Once::new();
    heap_for_big_blocks();
    ONCE.call_once(|| {
        if !set_by_user(
            "MALLOC_TRIM_THRESHOLD_",
            "trim_threshold",
            Some(DASK_TRIM_THRESHOLD),
        ) {
            set(Threshold::Trim, TRIM_THRESHOLD);
        }
    });
}

/// Whether the user set a malloc parameter, by its environment variable `variable` or
/// as `tunable` in `GLIBC_TUNABLES`; the variable at `dask_default` is Dask's, not the
/// user's.
fn set_by_user(variable: &str, tunable: &str, dask_default: Option<&str>) -> bool {
    let value = std::env::var_os(variable);
    let tunables = std::env::var("GLIBC_TUNABLES").ok();
    is_users(value.as_deref(), tunables.as_deref(), tunable, dask_default)
}

/// [`set_by_user`] from the variable's `value` and `GLIBC_TUNABLES`' `tunables`.
fn is_users(
    value: Option<&std::ffi::OsStr>,
    tunables: Option<&str>,
    tunable: &str,
    dask_default: Option<&str>,
) -> bool {
    let dask = value.is_some() && value == dask_default.map(std::ffi::OsStr::new);
    (value.is_some() && !dask) || tunables.is_some_and(|t| t.contains(tunable))
}

/// The `mallopt` parameters this module sets.
#[derive(Debug, Clone, Copy)]
enum Threshold {
    Mmap,
    Trim,
}

/// Sets one of glibc's malloc thresholds to `value` bytes (elsewhere, nothing).
#[allow(unsafe_code, unused_variables)]
fn set(threshold: Threshold, value: i32) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let parameter = match threshold {
            Threshold::Mmap => libc::M_MMAP_THRESHOLD,
            Threshold::Trim => libc::M_TRIM_THRESHOLD,
        };
        // SAFETY: mallopt changes a global allocator parameter; blocks already allocated
        // keep their kind (mmapped or heap) and are freed as such.
        unsafe { libc::mallopt(parameter, value) };
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    use super::*;

    /// Bytes of blocks glibc holds mapped of their own (given back when freed).
    #[allow(unsafe_code)]
    fn mapped_bytes() -> usize {
        // SAFETY: mallinfo2 only reads the allocator's counters.
        unsafe { libc::mallinfo2() }.hblkhd
    }

    #[test]
    fn a_big_block_comes_from_a_heap_once_freed_memory_is_kept() {
        keep_freed_memory();
        keep_freed_memory();
        let before = mapped_bytes();
        let block = vec![7u8; 16 << 20];
        let during = mapped_bytes();
        assert!(block.iter().all(|&b| b == 7));
        assert!(
            during < before + (16 << 20),
            "{before} then {during} bytes mapped"
        );
    }

    #[test]
    fn dasks_trim_threshold_is_not_the_users() {
        let tunables = "glibc.malloc.trim_threshold=1048576";
        let trim_set_by_user = |value: Option<&str>, tunables| {
            let value = value.map(std::ffi::OsStr::new);
            is_users(value, tunables, "trim_threshold", Some(DASK_TRIM_THRESHOLD))
        };
        assert!(!trim_set_by_user(None, None));
        assert!(!trim_set_by_user(Some("65536"), None));
        assert!(!trim_set_by_user(None, Some("glibc.malloc.arena_max=2")));
        assert!(trim_set_by_user(Some("1048576"), None));
        assert!(trim_set_by_user(Some("65536"), Some(tunables)));
        assert!(trim_set_by_user(None, Some(tunables)));
    }
}
