//! The `seqfarm.Error` hierarchy, and the guard every native call runs under: the GIL
//! released, a Rust error turned into the matching Python exception with the command
//! line's message, a panic caught before it reaches Python, and Ctrl-C stopping the
//! calls that run a farm over files.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use seqfarm_farm::InterruptScope;

pyo3::create_exception!(
    seqfarm,
    Error,
    PyException,
    "Any seqfarm failure; the message is the one the command line prints."
);
pyo3::create_exception!(
    seqfarm,
    InputError,
    Error,
    "A file cannot be read or written (missing, unreadable, an output that exists)."
);
pyo3::create_exception!(
    seqfarm,
    FormatError,
    Error,
    "A file's content is malformed; the message names the file and the record or offset."
);
pyo3::create_exception!(
    seqfarm,
    OptionError,
    Error,
    "An option or argument is unknown, malformed or contradicts another."
);

/// Adds the exception classes to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("FormatError", py.get_type::<FormatError>())?;
    m.add("OptionError", py.get_type::<OptionError>())?;
    Ok(())
}

/// How often a running call looks for a signal (Ctrl-C) that Python has received.
const SIGNAL_CHECKS: Duration = Duration::from_millis(50);

/// Runs `job` with the GIL released; its error becomes a `seqfarm` exception, and a
/// panic a `seqfarm.Error` (never a `PanicException` across the boundary). For short
/// calls; a call that runs a farm over a user's files takes [`run_interruptible`].
pub fn run_native<T, F>(py: Python<'_>, job: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> anyhow::Result<T> + Send,
{
    into_python(py.detach(|| catch_unwind(AssertUnwindSafe(job))))
}

/// [`run_native`] for a call that Ctrl-C must be able to stop: the job runs on a thread
/// of its own while this thread looks for signals; a signal whose handler raises
/// (`KeyboardInterrupt`) stops the job's farms at their next task, and once the job has
/// ended, with its outputs removed as after any failed run, that exception is raised.
pub fn run_interruptible<T, F>(py: Python<'_>, job: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> anyhow::Result<T> + Send,
{
    let scope = InterruptScope::open();
    let (finished, ended) = mpsc::channel();
    // Only this thread receives; the lock makes the receiver shareable with `detach`.
    let ended = Mutex::new(ended);
    std::thread::scope(|threads| {
        let spawned = std::thread::Builder::new()
            .name("seqfarm-call".into())
            .stack_size(8 << 20)
            .spawn_scoped(threads, move || {
                let outcome = catch_unwind(AssertUnwindSafe(job));
                // The receiver waits until the job has ended, or has stopped waiting.
                let _ = finished.send(());
                outcome
            });
        let handle = spawned.map_err(|e| Error::new_err(format!("cannot start a thread: {e}")))?;
        loop {
            let waited = py.detach(|| {
                let ended = ended.lock().unwrap_or_else(|e| e.into_inner());
                ended.recv_timeout(SIGNAL_CHECKS)
            });
            if !matches!(waited, Err(mpsc::RecvTimeoutError::Timeout)) {
                break;
            }
            if let Err(signal) = py.check_signals() {
                scope.interrupt();
                // The job's own error (the farm's "interrupted") gives way to the signal's.
                let _ = py.detach(|| handle.join());
                return Err(signal);
            }
        }
        // A panic in the job was caught inside it; one escaping it is reported alike.
        into_python(py.detach(|| handle.join()).unwrap_or_else(Err))
    })
}

/// A job's outcome as Python sees it: its value, its error as a `seqfarm` exception, or
/// its panic as a `seqfarm.Error`.
fn into_python<T>(outcome: std::thread::Result<anyhow::Result<T>>) -> PyResult<T> {
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(to_python(&error)),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown cause".to_string());
            Err(Error::new_err(format!(
                "internal error (please report it): {what}"
            )))
        }
    }
}

/// The Python exception for a seqfarm error: its class from the first cause that tells
/// what went wrong, its message `{error:#}` as `seqfarm: error: ...` prints it (an
/// existing output that needs `--force` says `force=True`, the keyword Python takes).
pub fn to_python(error: &anyhow::Error) -> PyErr {
    if let Some(clap) = error.downcast_ref::<seqfarm_cli::ClapError>() {
        let text = clap.render().to_string();
        let text = text.trim().trim_start_matches("error: ").to_string();
        return OptionError::new_err(text);
    }
    let message = format!("{error:#}");
    for cause in error.chain() {
        if cause.downcast_ref::<seqfarm::OptionValueError>().is_some() {
            return OptionError::new_err(message);
        }
        if let Some(io) = cause.downcast_ref::<seqfarm_io::Error>() {
            return match io {
                // Python spells the command line's `--force` as a keyword.
                seqfarm_io::Error::Exists { .. } => InputError::new_err(message.replace(
                    "(use --force to overwrite)",
                    "(use force=True to overwrite)",
                )),
                seqfarm_io::Error::Format { .. }
                | seqfarm_io::Error::Record { .. }
                | seqfarm_io::Error::Line { .. } => FormatError::new_err(message),
                _ => InputError::new_err(message),
            };
        }
        if let Some(load) = cause.downcast_ref::<seqfarm::IndexLoadError>() {
            // A file that cannot be opened is the input's fault; one that opens but is
            // not a usable index, its format's.
            return match load {
                seqfarm::IndexLoadError::Io { .. } => InputError::new_err(message),
                _ => FormatError::new_err(message),
            };
        }
        if cause.downcast_ref::<std::io::Error>().is_some() {
            return InputError::new_err(message);
        }
    }
    Error::new_err(message)
}
