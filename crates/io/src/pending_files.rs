//! The temporary files a run is writing (outputs before their rename, the runs of a
//! sort), removed when the run is interrupted by SIGINT, SIGTERM or SIGHUP, so that an
//! interrupted run leaves nothing behind, not even hidden partial files. Errors and
//! panics remove them through their owners' `Drop`; a signal ends the process without
//! running it, hence this list.
//!
//! The removal runs in the signal handler itself, with what is safe there: the list's
//! lock is only tried, and each name is removed with `unlink` from a C string made
//! when it was added. A thread holds the lock with the three signals blocked, so the
//! handler never runs on the thread that holds it, and it tries again (yielding the
//! core) until the holder lets go, for at most about a second. A thread waiting for
//! signals would be simpler, but a thread's first allocation reserves a malloc arena
//! of 64 MiB of address space, which a run under `ulimit -v` cannot spare.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, Once, TryLockError};

static PENDING: Mutex<Vec<CString>> = Mutex::new(Vec::new());

/// The signals that remove the pending files.
const SIGNALS: [i32; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// How long the handler tries the list's lock, yielding between tries, before it gives
/// up on the files: the holder keeps it for a push or a swap-remove, or, in
/// [`while_held`], for the renames of one set of outputs (on a filesystem slow enough
/// that they take longer, a signal then leaves the set's temporary files behind).
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(1);

/// Adds `path` to the files removed on a signal.
pub(crate) fn register(path: &Path) {
    if let Ok(name) = CString::new(path.as_os_str().as_bytes()) {
        let _held = SignalsHeld::block();
        pending().push(name);
    }
}

/// Takes `path` off the list: it was renamed into place, or removed.
pub(crate) fn unregister(path: &Path) {
    while_held(|list| take_off(list, path));
}

/// Runs `commit` with the list held and the three signals blocked on this thread. A
/// signal that comes meanwhile waits: here until the block ends, on another thread in
/// its handler, for the list (up to [`LOCK_PATIENCE`]). So a run interrupted while it
/// moves a set of outputs into place (taking their temporary files off the list with
/// [`take_off`]) stops once they are all in place, never between two of them.
pub(crate) fn while_held<R>(commit: impl FnOnce(&mut Vec<CString>) -> R) -> R {
    let _held = SignalsHeld::block();
    commit(&mut pending())
}

/// Takes `path` off `list`, the list [`while_held`] lends.
pub(crate) fn take_off(list: &mut Vec<CString>, path: &Path) {
    let name = path.as_os_str().as_bytes();
    if let Some(i) = list.iter().rposition(|p| p.as_bytes() == name) {
        list.swap_remove(i);
    }
}

fn pending() -> MutexGuard<'static, Vec<CString>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// SIGINT, SIGTERM and SIGHUP blocked on this thread while the value lives, so that the
/// handler cannot run here while the list's lock is held (it would wait for itself);
/// a signal that comes meanwhile goes to another thread, or waits until the drop.
struct SignalsHeld {
    previous: libc::sigset_t,
}

#[allow(unsafe_code)]
impl SignalsHeld {
    fn block() -> SignalsHeld {
        // SAFETY: the sets are plain values initialised by sigemptyset before use, and
        // pthread_sigmask only changes this thread's mask.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            for signal in SIGNALS {
                libc::sigaddset(&mut set, signal);
            }
            let mut previous: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut previous);
            SignalsHeld { previous }
        }
    }
}

#[allow(unsafe_code)]
impl Drop for SignalsHeld {
    fn drop(&mut self) {
        // SAFETY: restores the mask that `block` saved, on the thread that saved it (the
        // value lives in one function's frame).
        unsafe {
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.previous, std::ptr::null_mut());
        }
    }
}

/// From now on, SIGINT, SIGTERM and SIGHUP remove the pending files, then end the
/// process as the signal would have. For programs (the `seqfarm` binary), not for
/// libraries embedded in a host with its own signal handling; a second call does
/// nothing.
pub fn remove_on_signal() -> std::io::Result<()> {
    static INSTALLED: Once = Once::new();
    let mut result = Ok(());
    INSTALLED.call_once(|| {
        for signal in SIGNALS {
            if let Err(e) = register_handler(signal) {
                result = Err(e);
            }
        }
    });
    result
}

#[allow(unsafe_code)]
fn register_handler(signal: i32) -> std::io::Result<()> {
    // SAFETY: the action does only what is safe in a signal handler: atomic try-locks,
    // clock_gettime and sched_yield (no blocking wait), `unlink` system calls on C
    // strings made beforehand (no allocation), and signal-hook's default-action
    // emulation and `_exit`, both made for signal handlers.
    unsafe { signal_hook::low_level::register(signal, move || remove_and_die(signal)) }?;
    Ok(())
}

fn remove_and_die(signal: i32) {
    let start = std::time::Instant::now();
    let list = loop {
        match PENDING.try_lock() {
            Ok(l) => break Some(l),
            Err(TryLockError::Poisoned(e)) => break Some(e.into_inner()),
            Err(TryLockError::WouldBlock) if start.elapsed() < LOCK_PATIENCE => {
                std::thread::yield_now();
            }
            Err(TryLockError::WouldBlock) => break None,
        }
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

    #[allow(unsafe_code)]
    fn blocked_here(signal: i32) -> bool {
        // SAFETY: queries this thread's mask into a zeroed set.
        unsafe {
            let mut mask: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut mask);
            libc::sigismember(&mask, signal) == 1
        }
    }

    #[test]
    fn the_signals_are_blocked_while_the_list_is_held_and_only_then() {
        assert!(SIGNALS.iter().all(|&s| !blocked_here(s)));
        {
            let _held = SignalsHeld::block();
            assert!(SIGNALS.iter().all(|&s| blocked_here(s)));
        }
        assert!(SIGNALS.iter().all(|&s| !blocked_here(s)));
    }
}
