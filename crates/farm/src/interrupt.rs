//! Stopping running farms from outside, for a front end that sees an interrupt the
//! farm's threads cannot (Ctrl-C in Python arrives on the interpreter's main thread,
//! while the farm runs with the interpreter released).
//!
//! A front end opens an [`InterruptScope`] around each call it may interrupt; while any
//! scope is open, [`InterruptScope::interrupt`] stops every farm at its next task
//! boundary with [`FarmError::Interrupted`](crate::FarmError::Interrupted). When the
//! last scope closes, the interrupt is over and farms run normally again. The command
//! line opens no scope: its signals are handled by the process.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Scopes open now.
static OPEN_SCOPES: Mutex<usize> = Mutex::new(0);
/// Whether an open scope was interrupted; read by the farms on their task path.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// A call that may be interrupted; see the module's description.
#[derive(Debug)]
pub struct InterruptScope(());

impl InterruptScope {
    /// Opens a scope.
    pub fn open() -> Self {
        *OPEN_SCOPES.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        Self(())
    }

    /// Stops every farm running or started while a scope is open.
    pub fn interrupt(&self) {
        INTERRUPTED.store(true, Ordering::SeqCst);
    }
}

impl Drop for InterruptScope {
    fn drop(&mut self) {
        let mut open = OPEN_SCOPES.lock().unwrap_or_else(|e| e.into_inner());
        *open -= 1;
        if *open == 0 {
            INTERRUPTED.store(false, Ordering::SeqCst);
        }
    }
}

/// Whether the farms must stop now.
pub(crate) fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}
