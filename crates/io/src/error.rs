//! The error type of the IO layer: every variant names the file it is about.

use std::path::{Path, PathBuf};

/// Result with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An input or output problem, with the file (and, for bad data, where in it).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The operating system refused or failed an operation on the file.
    #[error("{}: {cause}", display_path(path))]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said. (Shown in the message, not chained as a
        /// source, so `{:#}` does not print it twice.)
        cause: std::io::Error,
    },
    /// The file's content is not what its format requires.
    #[error("{}: {message} (at byte offset {offset})", display_path(path))]
    Format {
        /// The file.
        path: PathBuf,
        /// Byte offset in the file: in a BGZF file (BAM) the compressed offset, in a
        /// compressed text file (FASTA) the offset in its decompressed text.
        offset: u64,
        /// What is wrong.
        message: String,
    },
    /// A record of the file is malformed.
    #[error("{}: record {record}: {message}", display_path(path))]
    Record {
        /// The file.
        path: PathBuf,
        /// 1-based record number.
        record: u64,
        /// What is wrong.
        message: String,
    },
    /// A line of a text file is malformed.
    #[error("{}: line {line}: {message}", display_path(path))]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// The output is one of the command's inputs (the same file, perhaps under another
    /// name): writing it would destroy the input.
    #[error(
        "{}: this output is the input {} (the same file); choose another output name (--force never replaces an input)",
        display_path(output),
        display_path(input)
    )]
    OutputIsInput {
        /// The output as given.
        output: PathBuf,
        /// The input as given.
        input: PathBuf,
    },
    /// Two outputs of one run are the same file (perhaps under other names): one would
    /// replace the other.
    #[error(
        "{}; give each output a file of its own",
        shared_output(path, option, other_path, other_option)
    )]
    SharedOutput {
        /// The later output as given.
        path: PathBuf,
        /// The option that names it.
        option: String,
        /// The earlier output, the same file, as given.
        other_path: PathBuf,
        /// The option that names the earlier output.
        other_option: String,
    },
    /// The output file exists and overwriting was not asked for.
    #[error("{}: already exists (use --force to overwrite)", display_path(path))]
    Exists {
        /// The file.
        path: PathBuf,
    },
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl AsRef<Path>, cause: std::io::Error) -> Self {
        Error::Io {
            path: path.as_ref().to_path_buf(),
            cause,
        }
    }

    /// An [`Error::Format`] for `path` at byte `offset`.
    pub fn format(path: impl AsRef<Path>, offset: u64, message: impl Into<String>) -> Self {
        Error::Format {
            path: path.as_ref().to_path_buf(),
            offset,
            message: message.into(),
        }
    }

    /// An [`Error::Line`] for line `line` (1-based) of a text file.
    pub fn line(path: impl AsRef<Path>, line: u64, message: impl std::fmt::Display) -> Self {
        Error::Line {
            path: path.as_ref().to_path_buf(),
            line,
            message: message.to_string(),
        }
    }

    /// An [`Error::Record`] for record `record` (1-based) of `path`.
    pub fn record(path: impl AsRef<Path>, record: u64, message: impl Into<String>) -> Self {
        Error::Record {
            path: path.as_ref().to_path_buf(),
            record,
            message: message.into(),
        }
    }

    /// Whether this is a broken pipe on output (the reader went away: not a failure).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { cause, .. } if cause.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// The first part of [`Error::SharedOutput`]'s message: the file, and the two options
/// that name it (with the other spelling of its name when they spell it differently).
fn shared_output(path: &Path, option: &str, other_path: &Path, other_option: &str) -> String {
    if path == other_path {
        format!(
            "{}: named by both {other_option} and {option}",
            display_path(path)
        )
    } else {
        format!(
            "{}: named by {option}, the same file as {} named by {other_option}",
            display_path(path),
            display_path(other_path)
        )
    }
}

/// `-` is shown as "standard input/output" in messages.
fn display_path(path: &Path) -> String {
    if path == Path::new("-") {
        "(standard stream)".to_string()
    } else {
        path.display().to_string()
    }
}
