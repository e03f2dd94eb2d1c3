//! The error a farm stops with.

use std::fmt;

/// Which role of the farm an error came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The emitter (reading and cutting the input).
    Emitter,
    /// Worker `index`; `task` is the task's sequence number, `None` while the worker was
    /// creating its private state.
    Worker {
        /// The worker's index.
        index: usize,
        /// The task's position in emission order, if the worker was processing one.
        task: Option<u64>,
    },
    /// The collector (merging and writing results).
    Collector,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stage::Emitter => write!(f, "emitter"),
            Stage::Worker { index, task: None } => write!(f, "worker {index} (setup)"),
            Stage::Worker {
                index,
                task: Some(t),
            } => write!(f, "worker {index} (task {t})"),
            Stage::Collector => write!(f, "collector"),
        }
    }
}

/// Why a farm stopped before its input was done.
#[derive(Debug)]
pub enum FarmError<E> {
    /// A role returned an error. Displays as the error itself: it is expected to name
    /// the file and record it is about.
    Failed {
        /// Where it happened.
        stage: Stage,
        /// The role's own error.
        source: E,
    },
    /// A role panicked: a bug in seqfarm, reported with the panic message.
    Panicked {
        /// Where it happened.
        stage: Stage,
        /// The panic payload, when it was a string.
        message: String,
    },
    /// A worker thread could not be started.
    Spawn(std::io::Error),
    /// The front end asked the farm to stop ([`InterruptScope::interrupt`]).
    ///
    /// [`InterruptScope::interrupt`]: crate::InterruptScope::interrupt
    Interrupted,
}

impl<E> FarmError<E> {
    /// The role's own error, if the farm stopped because a role returned one.
    pub fn into_source(self) -> Result<E, Self> {
        match self {
            FarmError::Failed { source, .. } => Ok(source),
            other => Err(other),
        }
    }

    /// The stage the error came from (`None` for a spawn failure or an interrupt).
    pub fn stage(&self) -> Option<Stage> {
        match self {
            FarmError::Failed { stage, .. } | FarmError::Panicked { stage, .. } => Some(*stage),
            FarmError::Spawn(_) | FarmError::Interrupted => None,
        }
    }
}

impl<E: fmt::Display> fmt::Display for FarmError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FarmError::Failed { source, .. } => write!(f, "{source}"),
            FarmError::Panicked { stage, message } => {
                write!(f, "internal error: {stage} panicked: {message}")
            }
            FarmError::Spawn(e) => write!(f, "cannot start a worker thread: {e}"),
            FarmError::Interrupted => write!(f, "interrupted"),
        }
    }
}

impl<E: std::error::Error + 'static> std::error::Error for FarmError<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FarmError::Failed { source, .. } => source.source(),
            FarmError::Spawn(e) => Some(e),
            FarmError::Panicked { .. } | FarmError::Interrupted => None,
        }
    }
}

/// Turns a panic payload into its message.
pub(crate) fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}
