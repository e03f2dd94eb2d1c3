//! Outputs that appear only when complete.
//!
//! [`Output::create`] writes to a hidden temporary file in the destination's directory;
//! [`Output::commit`] flushes it and renames it over the destination. Dropping an
//! uncommitted output deletes the temporary file, so an error or a panic never leaves a
//! truncated file under the real name (nor, with [`crate::pending_files`], a signal).
//! `-` writes to standard output directly. [`Output::commit_together`] moves the files of
//! a run that belong together (a BAM and its index) into place as one set.
//!
//! What happens to a file already at the destination is each command's rule, taken from
//! the tool it replaces ([`ExistingOutput`]): samtools, mosdepth, bedtools, bowtie2 and
//! the index builders overwrite their outputs, so those commands replace them; FACETS
//! snp-pileup refuses an existing output, so that command refuses it unless `--force`.
//! The rule and `--force` give the [`Overwrite`] policy that opening an output takes.
//! Replacing keeps the peers' other habits: a symbolic link is written through (its
//! target is replaced, the link stays), the replaced file's permission bits are kept, and
//! a file the user may not write is refused at once, as opening it for writing would be.
//! Whatever the rule, an output that is one of the run's inputs is refused
//! ([`refuse_input_as_output`]), and so are two outputs of one run that are the same file
//! ([`refuse_shared_outputs`]): each would be written through its own temporary file,
//! and the second rename would find the first gone.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::{pending_files, Error, Result};

mod commit;
mod names;

pub(crate) use names::hidden_beside;

/// Write buffer size.
const BUFFER: usize = 1 << 20;

/// Symbolic links followed from an output to the file it names, at most (Linux's limit).
const MAX_LINKS: usize = 40;

/// A command's rule for an output file that already exists: what the tool it replaces
/// does. Each command states its rule once and opens every output it writes (its main
/// output, side files, `--plot`, `--stats`) under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExistingOutput {
    /// Replaced once the run has succeeded, `--force` or not: the peer overwrites
    /// (samtools, mosdepth, bedtools, bowtie2, bowtie2-build, bwa, parasail).
    Replace,
    /// Refused before any work unless `--force` is given: the peer refuses (FACETS
    /// snp-pileup: "Output file ... already exists!").
    RefuseUnlessForced,
}

impl ExistingOutput {
    /// The policy of one run of the command, `force` telling whether `--force` was given.
    pub fn overwrite(self, force: bool) -> Overwrite {
        match self {
            ExistingOutput::Replace => Overwrite::Allow,
            ExistingOutput::RefuseUnlessForced if force => Overwrite::Allow,
            ExistingOutput::RefuseUnlessForced => Overwrite::Refuse,
        }
    }
}

/// Whether an existing destination may be replaced in this run (from the command's
/// [`ExistingOutput`] rule and `--force`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overwrite {
    /// Refuse: the run fails with [`Error::Exists`] before any work is done.
    Refuse,
    /// Replace the existing file on success.
    Allow,
}

/// An output being written: standard output, or a temporary file renamed on commit.
pub struct Output {
    /// The destination as given, which messages name.
    path: PathBuf,
    /// The temporary file and the file it is renamed to on commit: the destination, or
    /// the file its symbolic links lead to.
    temp: Option<(PathBuf, PathBuf)>,
    /// Whether a file at the destination may be replaced on commit.
    overwrite: Overwrite,
    writer: BufWriter<Box<dyn Write + Send>>,
}

impl Output {
    /// Opens `path` for writing (`-` for standard output). Fails at once if the file
    /// exists and `overwrite` is [`Overwrite::Refuse`], if it is a directory, or if it
    /// exists and may not be written. A symbolic link is followed: the file it leads to
    /// is the one replaced on commit.
    pub fn create(path: impl AsRef<Path>, overwrite: Overwrite) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        if path == Path::new("-") {
            return Ok(Self {
                path,
                temp: None,
                overwrite: Overwrite::Allow,
                writer: BufWriter::with_capacity(BUFFER, Box::new(io::stdout())),
            });
        }
        let existing = std::fs::metadata(&path).ok();
        if let Some(meta) = &existing {
            if meta.is_dir() {
                return Err(Error::io(
                    &path,
                    io::Error::new(io::ErrorKind::IsADirectory, "is a directory"),
                ));
            }
            // A device or pipe (`/dev/null`, a FIFO) is written in place: renaming a
            // temporary file over it would replace the device with a regular file.
            if !meta.is_file() {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .map_err(|e| Error::io(&path, e))?;
                return Ok(Self {
                    path,
                    temp: None,
                    overwrite: Overwrite::Allow,
                    writer: BufWriter::with_capacity(BUFFER, Box::new(file)),
                });
            }
            if overwrite == Overwrite::Refuse {
                return Err(Error::Exists { path });
            }
        }
        let target = link_target(&path)?;
        let temp = hidden_beside(&target, "tmp");
        let file = File::create(&temp).map_err(|e| Error::io(&path, e))?;
        pending_files::register(&temp);
        let output = Self {
            path,
            temp: Some((temp, target)),
            overwrite,
            writer: BufWriter::with_capacity(BUFFER, Box::new(file)),
        };
        if let Some(meta) = existing {
            output.take_over(&meta)?;
        }
        Ok(output)
    }

    /// A file that a run writes and reads back before it ends (a sorted BAM that is then
    /// marked for duplicates), never committed: the hidden file `.NAME.seqfarm-PID.SUFFIX`
    /// beside `beside` (on the output's filesystem), removed when dropped, and by the
    /// signal handler of [`crate::pending_files`] when the run is stopped.
    pub fn scratch(beside: &Path, suffix: &str) -> Result<Self> {
        let path = hidden_beside(beside, suffix);
        let file = File::create(&path).map_err(|e| Error::io(beside, e))?;
        Ok(Self::scratch_file(path, file))
    }

    /// A scratch file ([`Output::scratch`]) at exactly `path` (the index of a scratch
    /// BAM, named after it).
    pub fn scratch_at(path: PathBuf) -> Result<Self> {
        let file = File::create(&path).map_err(|e| Error::io(&path, e))?;
        Ok(Self::scratch_file(path, file))
    }

    /// The scratch output of the file `file`, created at `path`.
    fn scratch_file(path: PathBuf, file: File) -> Self {
        pending_files::register(&path);
        Self {
            path: path.clone(),
            temp: Some((path.clone(), path)),
            overwrite: Overwrite::Allow,
            writer: BufWriter::with_capacity(BUFFER, Box::new(file)),
        }
    }

    /// Checks that the existing file this output replaces may be written, as the peers'
    /// opening it for writing checks it (without truncating it), and gives the temporary
    /// file its permission bits.
    fn take_over(&self, existing: &std::fs::Metadata) -> Result<()> {
        let Some((temp, target)) = &self.temp else {
            return Ok(());
        };
        std::fs::OpenOptions::new()
            .write(true)
            .open(target)
            .map_err(|e| Error::io(&self.path, e))?;
        std::fs::set_permissions(temp, existing.permissions()).map_err(|e| Error::io(&self.path, e))
    }

    /// The destination path (`-` for standard output).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary file the bytes go to until the commit (none for standard output and
    /// for a file written in place), for writers that place their bytes in it themselves
    /// at known offsets.
    pub fn temporary_path(&self) -> Option<&Path> {
        self.temp.as_ref().map(|(temp, _)| temp.as_path())
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

    /// Flushes everything and moves the file into place (a set of one, see
    /// [`Output::commit_together`]).
    pub fn commit(self) -> Result<()> {
        Output::commit_together(vec![self])
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
        if let Some((temp, _)) = self.temp.take() {
            let _ = std::fs::remove_file(&temp);
            pending_files::unregister(&temp);
        }
    }
}

/// Writes `data` at `offset` of the existing file `path` and waits until it is on the
/// filesystem: a part of an output placed by a planner and written by the machine that
/// made it (an output's temporary file, see [`Output::temporary_path`]). Writing the same
/// bytes again (a part recomputed, a write retried) leaves the same file; an error the
/// filesystem reports only when the data reaches it (a full disk, NFS) is an error here,
/// so that the write is retried rather than a file committed with a hole.
pub fn write_at(path: &Path, offset: u64, data: &[u8]) -> Result<()> {
    write_pieces_at(path, offset, [data])
}

/// Bytes [`write_pieces_at`] gathers before it writes them.
const PIECES_BUFFER: usize = 1 << 20;

/// [`write_at`] of the bytes of `pieces`, one after the other: small pieces (records)
/// are gathered into writes of about a MiB, so that the data need not be copied into one
/// buffer first.
pub fn write_pieces_at<'a>(
    path: &Path,
    mut offset: u64,
    pieces: impl IntoIterator<Item = &'a [u8]>,
) -> Result<()> {
    use std::os::unix::fs::FileExt as _;
    let error = |e| Error::io(path, e);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(error)?;
    let mut buffer = Vec::new();
    let write = |bytes: &[u8], offset: &mut u64| -> Result<()> {
        file.write_all_at(bytes, *offset).map_err(error)?;
        *offset += bytes.len() as u64;
        Ok(())
    };
    for piece in pieces {
        if buffer.len() + piece.len() > PIECES_BUFFER && !buffer.is_empty() {
            write(&buffer, &mut offset)?;
            buffer.clear();
        }
        if piece.len() >= PIECES_BUFFER {
            write(piece, &mut offset)?;
        } else {
            buffer.extend_from_slice(piece);
        }
    }
    write(&buffer, &mut offset)?;
    file.sync_data().map_err(error)
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

/// Fails with [`Error::SharedOutput`] when two of `outputs`, each given with the option
/// that names it, are the same file: the same device and inode when the file exists, else
/// the same path once its symbolic links are followed and its directory is made canonical
/// (so `x.sam` and `./x.sam` are one file before either exists). `-` (standard output),
/// existing directories (refused when opened), devices and pipes (written in place, as
/// `/dev/null` may take several outputs) pass. Call it before any output is opened.
pub fn refuse_shared_outputs<S, P>(outputs: impl IntoIterator<Item = (S, P)>) -> Result<()>
where
    S: Into<String>,
    P: AsRef<Path>,
{
    let mut seen: Vec<(FileKey, String, PathBuf)> = Vec::new();
    for (option, path) in outputs {
        let path = path.as_ref();
        let Some(key) = file_key(path) else {
            continue;
        };
        let option = option.into();
        if let Some((_, other_option, other_path)) = seen.iter().find(|(k, ..)| *k == key) {
            return Err(Error::SharedOutput {
                path: path.to_path_buf(),
                option,
                other_path: other_path.clone(),
                other_option: other_option.clone(),
            });
        }
        seen.push((key, option, path.to_path_buf()));
    }
    Ok(())
}

/// What tells the file an output writes from another ([`refuse_shared_outputs`]).
#[derive(Debug, PartialEq, Eq)]
enum FileKey {
    /// An existing file's device and inode.
    Inode(u64, u64),
    /// A file's canonical path: its canonical directory joined with its name for a file
    /// to be created (and, elsewhere than Unix, an existing file's canonical path).
    Path(PathBuf),
}

/// The [`FileKey`] of the file `path` writes; `None` for standard output, a directory, a
/// device or a pipe.
fn file_key(path: &Path) -> Option<FileKey> {
    if path == Path::new("-") {
        return None;
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => Some(existing_key(&meta, path)),
        Ok(_) => None,
        Err(_) => {
            let target = link_target(path).unwrap_or_else(|_| path.to_path_buf());
            let name = target.file_name()?;
            let dir = match target.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => dir,
                _ => Path::new("."),
            };
            let dir = std::fs::canonicalize(dir)
                .or_else(|_| std::path::absolute(dir))
                .unwrap_or_else(|_| dir.to_path_buf());
            Some(FileKey::Path(dir.join(name)))
        }
    }
}

#[cfg(unix)]
fn existing_key(meta: &std::fs::Metadata, _: &Path) -> FileKey {
    use std::os::unix::fs::MetadataExt;
    FileKey::Inode(meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn existing_key(_: &std::fs::Metadata, path: &Path) -> FileKey {
    FileKey::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
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

/// The file `path` names once its symbolic links are followed (`path` itself when it is
/// not a link); a dangling link gives the file it would create, as opening it for
/// writing does.
fn link_target(path: &Path) -> Result<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let to = std::fs::read_link(&at).map_err(|e| Error::io(path, e))?;
                at = match at.parent() {
                    Some(dir) => dir.join(to),
                    None => to,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(Error::io(
        path,
        io::Error::other("too many levels of symbolic links"),
    ))
}

#[cfg(test)]
mod tests;
