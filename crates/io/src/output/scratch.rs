//! Files a run writes and reads back before it ends (a sorted BAM that is then marked
//! for duplicates): hidden beside an output, removed when dropped, and removed by the
//! signal handler of [`crate::pending_files`] when the run is stopped.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{hidden_beside, BUFFER};
use crate::{pending_files, Error, Result};

/// A hidden file beside an output, written, then read back by the same run.
pub struct ScratchFile {
    path: PathBuf,
    writer: BufWriter<File>,
}

impl ScratchFile {
    /// Creates the hidden file `.NAME.seqfarm-PID.SUFFIX` beside `beside` (in its
    /// directory, so that it is on the same filesystem as the output).
    pub fn create(beside: &Path, suffix: &str) -> Result<Self> {
        let path = hidden_beside(beside, suffix);
        let file = File::create(&path).map_err(|e| Error::io(beside, e))?;
        pending_files::register(&path);
        Ok(Self {
            path,
            writer: BufWriter::with_capacity(BUFFER, file),
        })
    }

    /// Where the file is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes out what is buffered, so that the file can be read.
    pub fn finish(&mut self) -> Result<()> {
        self.writer.flush().map_err(|e| Error::io(&self.path, e))
    }
}

impl Write for ScratchFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        pending_files::unregister(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scratch_file_is_hidden_and_gone_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.bam");
        let mut scratch = ScratchFile::create(&out, "sorted.bam").unwrap();
        scratch.write_all(b"bytes").unwrap();
        scratch.finish().unwrap();
        let path = scratch.path().to_path_buf();
        assert_eq!(path.parent(), Some(dir.path()));
        assert!(path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(".out.bam."));
        assert_eq!(std::fs::read(&path).unwrap(), b"bytes");
        drop(scratch);
        assert!(!path.exists());
        assert!(!out.exists());
    }
}
