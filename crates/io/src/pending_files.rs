//! The temporary files a run is writing (outputs before their rename, the runs of a
//! sort), removed when the run is interrupted by SIGINT, SIGTERM or SIGHUP, so that an
//! interrupted run leaves nothing behind, not even hidden partial files. Errors and
//! panics remove them through their owners' `Drop`; a signal ends the process without
//! running it, hence this list.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Adds `path` to the files removed on a signal.
pub(crate) fn register(path: &Path) {
    pending().push(path.to_path_buf());
}

/// Takes `path` off the list: it was renamed into place, or removed.
pub(crate) fn unregister(path: &Path) {
    let mut list = pending();
    if let Some(i) = list.iter().rposition(|p| p == path) {
        list.swap_remove(i);
    }
}

fn pending() -> MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// From now on, SIGINT, SIGTERM and SIGHUP remove the pending files, then end the
/// process as the signal would have. For programs (the `seqfarm` binary), not for
/// libraries embedded in a host with its own signal handling; a second call does
/// nothing.
pub fn remove_on_signal() -> std::io::Result<()> {
    static INSTALLED: Once = Once::new();
    let mut result = Ok(());
    INSTALLED.call_once(|| result = install());
    result
}

fn install() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("seqfarm-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                for path in pending().drain(..) {
                    let _ = std::fs::remove_file(path);
                }
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
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
        let list = pending().clone();
        assert!(list.iter().any(|p| p == b) && !list.iter().any(|p| p == a));
        unregister(b);
        assert!(!pending().iter().any(|p| p == b));
    }
}
