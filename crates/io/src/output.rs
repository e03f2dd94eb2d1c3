//! Outputs that appear only when complete.
//!
//! [`Output::create`] writes to a hidden temporary file in the destination's directory;
//! [`Output::commit`] flushes it and renames it over the destination. Dropping an
//! uncommitted output deletes the temporary file, so an error or a panic never leaves a
//! truncated file under the real name (nor, with [`crate::pending_files`], a signal).
//! `-` writes to standard output directly.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::{pending_files, Error, Result};

/// Write buffer size.
const BUFFER: usize = 1 << 20;

/// Whether an existing destination may be replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overwrite {
    /// Refuse: the run fails with [`Error::Exists`] before any work is done.
    Refuse,
    /// Replace the existing file on success (`--force`).
    Allow,
}

/// An output being written: standard output, or a temporary file renamed on commit.
pub struct Output {
    path: PathBuf,
    temp: Option<PathBuf>,
    writer: BufWriter<Box<dyn Write + Send>>,
}

impl Output {
    /// Opens `path` for writing (`-` for standard output). Fails at once if the file
    /// exists and `overwrite` is [`Overwrite::Refuse`].
    pub fn create(path: impl AsRef<Path>, overwrite: Overwrite) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        if path == Path::new("-") {
            return Ok(Self {
                path,
                temp: None,
                writer: BufWriter::with_capacity(BUFFER, Box::new(io::stdout())),
            });
        }
        // A device or pipe (`/dev/null`, a FIFO) is written in place: renaming a
        // temporary file over it would replace the device with a regular file.
        if let Ok(meta) = std::fs::metadata(&path) {
            if !meta.is_file() && !meta.is_dir() {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(|e| Error::io(&path, e))?;
                return Ok(Self {
                    path,
                    temp: None,
                    writer: BufWriter::with_capacity(BUFFER, Box::new(file)),
                });
            }
        }
        if overwrite == Overwrite::Refuse && path.exists() {
            return Err(Error::Exists { path });
        }
        let temp = temp_path(&path);
        let file = File::create(&temp).map_err(|e| Error::io(&path, e))?;
        pending_files::register(&temp);
        Ok(Self {
            path,
            temp: Some(temp),
            writer: BufWriter::with_capacity(BUFFER, Box::new(file)),
        })
    }

    /// An output into `writer` (a program collecting a command's output in memory);
    /// `path` names it in errors. Committing it flushes the writer.
    pub fn to_writer(path: impl AsRef<Path>, writer: Box<dyn Write + Send>) -> Self {
        Self {
            path: path.as_ref().to_path_buf(),
            temp: None,
            writer: BufWriter::with_capacity(BUFFER, writer),
        }
    }

    /// The destination path (`-` for standard output).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Wraps an I/O error from writing this output with its path.
    pub fn error(&self, source: io::Error) -> Error {
        Error::io(&self.path, source)
    }

    /// Writes all of `bytes`, with the path in any error.
    pub fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.writer
            .write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Flushes everything and moves the file into place.
    pub fn commit(mut self) -> Result<()> {
        self.writer.flush().map_err(|e| Error::io(&self.path, e))?;
        if let Some(temp) = self.temp.take() {
            let renamed = std::fs::rename(&temp, &self.path);
            if renamed.is_err() {
                let _ = std::fs::remove_file(&temp);
            }
            pending_files::unregister(&temp);
            renamed.map_err(|e| Error::io(&self.path, e))?;
        }
        Ok(())
    }
}

impl Write for Output {
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

impl Drop for Output {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = std::fs::remove_file(&temp);
            pending_files::unregister(&temp);
        }
    }
}

/// Fails with [`Error::OutputIsInput`] when `output` is the same file as one of `inputs`
/// (the same device and inode, so a symbolic or hard link to an input counts too): with
/// `--force` the output would replace that input. `-`, outputs that do not exist yet,
/// devices and pipes, and inputs that do not exist pass.
pub fn refuse_input_as_output<P: AsRef<Path>>(
    output: &Path,
    inputs: impl IntoIterator<Item = P>,
) -> Result<()> {
    if output == Path::new("-") {
        return Ok(());
    }
    let Ok(out_meta) = std::fs::metadata(output) else {
        return Ok(());
    };
    if !out_meta.is_file() {
        return Ok(());
    }
    for input in inputs {
        let input = input.as_ref();
        if input == Path::new("-") {
            continue;
        }
        if let Ok(in_meta) = std::fs::metadata(input) {
            if same_file(&out_meta, &in_meta, output, input) {
                return Err(Error::OutputIsInput {
                    output: output.to_path_buf(),
                    input: input.to_path_buf(),
                });
            }
        }
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata, _: &Path, _: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata, a: &Path, b: &Path) -> bool {
    matches!(
        (std::fs::canonicalize(a), std::fs::canonicalize(b)),
        (Ok(a), Ok(b)) if a == b
    )
}

/// `dir/.name.seqfarm-PID.tmp`: hidden, in the same directory (so the rename is atomic),
/// and unique per process.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    path.with_file_name(format!(".{name}.seqfarm-{}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.txt");
        let mut out = Output::create(&dest, Overwrite::Refuse).unwrap();
        out.put(b"partial").unwrap();
        assert!(!dest.exists());
        drop(out);
        assert!(!dest.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let mut out = Output::create(&dest, Overwrite::Refuse).unwrap();
        out.put(b"whole").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"whole");
    }

    #[cfg(unix)]
    #[test]
    fn pipes_and_devices_are_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("note: mkfifo unavailable; test skipped");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        let mut out = Output::create(&fifo, Overwrite::Allow).unwrap();
        out.put(b"through the pipe").unwrap();
        out.commit().unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_input_is_never_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("t.bam");
        std::fs::write(&input, b"input").unwrap();
        let other = dir.path().join("other.bam");
        std::fs::write(&other, b"other").unwrap();
        let symlink = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&input, &symlink).unwrap();
        let hard = dir.path().join("hard.csv");
        std::fs::hard_link(&input, &hard).unwrap();
        let dotted = dir.path().join(".").join("t.bam");
        for output in [&input, &symlink, &hard, &dotted] {
            let err = refuse_input_as_output(output, [&other, &input]).unwrap_err();
            assert!(matches!(err, Error::OutputIsInput { .. }), "{err}");
            assert!(
                err.to_string().contains("this output is the input"),
                "{err}"
            );
        }
        let fresh = dir.path().join("new.csv");
        refuse_input_as_output(&fresh, [&input]).unwrap();
        refuse_input_as_output(&other, [&input, Path::new("-")]).unwrap();
        refuse_input_as_output(Path::new("-"), [&input]).unwrap();
        assert_eq!(std::fs::read(&input).unwrap(), b"input");
    }

    #[test]
    fn existing_file_needs_force() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("out.txt");
        std::fs::write(&dest, b"old").unwrap();
        let err = Output::create(&dest, Overwrite::Refuse).err().unwrap();
        assert!(err.to_string().contains("already exists"));
        let mut out = Output::create(&dest, Overwrite::Allow).unwrap();
        out.put(b"new").unwrap();
        out.commit().unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"new");
    }
}
