//! The runs of read ends a duplicate marking writes when its memory is full: hidden
//! files beside the output (`.NAME.seqfarm-PID.markdup.NNNN.tmp`, as a sort's runs),
//! opened for reading as soon as they are written and then unlinked, so that only the
//! open file remains (nothing is left behind, however the marking ends) and no write
//! buffer is kept per run.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use seqfarm_io::output::Output;
use seqfarm_regions::markdup::RunStore;

/// Run files beside an output.
pub(super) struct ScratchRuns {
    beside: PathBuf,
    /// Each run's file, open for reading until it is taken.
    runs: Vec<Option<File>>,
}

impl ScratchRuns {
    /// No runs yet; they will be written beside `output`.
    pub(super) fn new(output: &Path) -> Self {
        Self {
            beside: output.to_path_buf(),
            runs: Vec::new(),
        }
    }
}

/// `error` with the run file's path in its message.
fn with_path(path: &Path, error: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("{}: {error}", path.display()))
}

impl RunStore for ScratchRuns {
    fn write_run(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let number = self.runs.len();
        let suffix = format!("markdup.{:04}.tmp", number + 1);
        let mut file = Output::scratch(&self.beside, &suffix).map_err(io::Error::other)?;
        file.put(bytes).map_err(io::Error::other)?;
        file.flush().map_err(|e| with_path(file.path(), e))?;
        let reader = File::open(file.path()).map_err(|e| with_path(file.path(), e))?;
        // Dropping the scratch output removes its name; the open file stays readable.
        drop(file);
        self.runs.push(Some(reader));
        Ok(number)
    }

    fn open_run(&mut self, run: usize) -> io::Result<Box<dyn Read + Send>> {
        match self.runs.get_mut(run).and_then(Option::take) {
            Some(file) => Ok(Box::new(file)),
            None => Err(io::Error::other(format!(
                "markdup run {run} was already read"
            ))),
        }
    }
}
