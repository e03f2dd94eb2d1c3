//! The temporary files a run is writing (outputs before their rename, the runs of a
//! sort), removed when the run is interrupted by SIGINT, SIGTERM or SIGHUP, so that an
//! interrupted run leaves nothing behind, not even hidden partial files. Errors and
//! panics remove them through their owners' `Drop`; a signal ends the process without
//! running it, hence this list.
//!
//! The removal runs in the signal handler itself, with what is safe there: the list's
//! lock is only tried (a signal that comes while a file is being added or taken off the
//! list leaves the files), and each name is removed with `unlink` from a C string made
//! when it was added. A thread waiting for signals would be simpler, but a thread's
//! first allocation reserves a malloc arena of 64 MiB of address space, which a run
//! under `ulimit -v` cannot spare.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, Once, TryLockError};

static PENDING: Mutex<Vec<CString>> = Mutex::new(Vec::new());

/// Adds `path` to the files removed on a signal.
pub(crate) fn register(path: &Path) {
    if let Ok(name) = CString::new(path.as_os_str().as_bytes()) {
        pending().push(name);
    }
}

/// Takes `path` off the list: it was renamed into place, or removed.
pub(crate) fn unregister(path: &Path) {
    let mut list = pending();
    let name = path.as_os_str().as_bytes();
    if let Some(i) = list.iter().rposition(|p| p.as_bytes() == name) {
        list.swap_remove(i);
    }
}

fn pending() -> MutexGuard<'static, Vec<CString>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// From now on, SIGINT, SIGTERM and SIGHUP remove the pending files, then end the
/// process as the signal would have. For programs (the `seqfarm` binary), not for
/// libraries embedded in a host with its own signal handling; a second call does
/// nothing.
pub fn remove_on_signal() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static INSTALLED: Once = Once::new();
    let mut result = Ok(());
    INSTALLED.call_once(|| {
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            if let Err(e) = register_handler(signal) {
                result = Err(e);
            }
        }
    });
    result
}

#[allow(unsafe_code)]
fn register_handler(signal: i32) -> std::io::Result<()> {
    // SAFETY: the action does only what is safe in a signal handler: an atomic
    // try-lock (no waiting), `unlink` system calls on C strings made beforehand (no
    // allocation), and signal-hook's default-action emulation and `_exit`, both made
    // for signal handlers.
    unsafe { signal_hook::low_level::register(signal, move || remove_and_die(signal)) }?;
    Ok(())
}

fn remove_and_die(signal: i32) {
    let list = match PENDING.try_lock() {
        Ok(list) => Some(list),
        Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    };
    for name in list.iter().flat_map(|l| l.iter()) {
        let _ = rustix::fs::unlink(name.as_c_str());
    }
    let _ = signal_hook::low_level::emulate_default_handler(signal);
    signal_hook::low_level::exit(128 + signal);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_come_off_the_list_once_done_with() {
        let (a, b) = (
            Path::new("/nonexistent/a.tmp"),
            Path::new("/nonexistent/b.tmp"),
        );
        register(a);
        register(b);
        unregister(a);
        let listed = |p: &Path| {
            pending()
                .iter()
                .any(|n| n.as_bytes() == p.as_os_str().as_bytes())
        };
        assert!(listed(b) && !listed(a));
        unregister(b);
        assert!(!listed(b));
    }
}
