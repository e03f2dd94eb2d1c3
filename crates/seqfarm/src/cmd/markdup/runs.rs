//! The runs of read ends a duplicate marking writes when its memory is full: hidden
//! files beside the output (`.NAME.seqfarm-PID.markdup.NNNN.tmp`, as a sort's runs),
//! removed when the marking ends, however it ends.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use seqfarm_io::output::Output;
use seqfarm_regions::markdup::RunStore;

/// Run files beside an output.
pub(super) struct ScratchRuns {
    beside: PathBuf,
    files: Vec<Output>,
}

impl ScratchRuns {
    /// No runs yet; they will be written beside `output`.
    pub(super) fn new(output: &Path) -> Self {
        Self {
            beside: output.to_path_buf(),
            files: Vec::new(),
        }
    }
}

/// `error` with the run file's path in its message.
fn with_path(path: &Path, error: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("{}: {error}", path.display()))
}

impl RunStore for ScratchRuns {
    fn write_run(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let number = self.files.len();
        let suffix = format!("markdup.{:04}.tmp", number + 1);
        let mut file = Output::scratch(&self.beside, &suffix).map_err(io::Error::other)?;
        file.put(bytes).map_err(io::Error::other)?;
        file.flush().map_err(|e| with_path(file.path(), e))?;
        self.files.push(file);
        Ok(number)
    }

    fn open_run(&mut self, run: usize) -> io::Result<Box<dyn Read + Send>> {
        let path = self.files[run].path();
        Ok(Box::new(File::open(path).map_err(|e| with_path(path, e))?))
    }
}
