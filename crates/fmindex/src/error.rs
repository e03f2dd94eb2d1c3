//! Errors of building, loading and checking an index.

use std::path::PathBuf;

/// Something wrong with the reference given to the builder.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// Two contigs have the same name (SAM `@SQ` names must be unique).
    #[error("contig {name:?} appears twice (record {record})")]
    DuplicateContig {
        /// The name.
        name: String,
        /// 1-based record number of the second occurrence.
        record: u64,
    },
    /// A contig has no bases.
    #[error("contig {name:?} (record {record}) is empty")]
    EmptyContig {
        /// The name.
        name: String,
        /// 1-based record number.
        record: u64,
    },
    /// A byte that is not a nucleotide or IUPAC letter.
    #[error("contig {name:?} (record {record}): byte {byte:?} at position {position} is not a nucleotide letter")]
    BadLetter {
        /// The contig name.
        name: String,
        /// 1-based record number.
        record: u64,
        /// 1-based position in the contig.
        position: u64,
        /// The byte, as a character.
        byte: char,
    },
    /// The reference has no contig, or no A/C/G/T at all.
    #[error("the reference has no A/C/G/T bases to index")]
    NoBases,
    /// An option is out of range.
    #[error("invalid option: {0}")]
    Option(String),
    /// The memory budget cannot hold even the smallest bucket of the suffix sort.
    #[error("a memory budget of {budget} bytes is too small for this reference: the build needs at least {needed} bytes (raise --memory)")]
    Budget {
        /// The budget given.
        budget: u64,
        /// The least that works.
        needed: u64,
    },
    /// Memory for the build could not be had.
    #[error("cannot allocate memory for the index build: {0}")]
    Allocation(#[source] std::io::Error),
    /// Writing or reading a section's temporary file failed.
    #[error("temporary index file: {0}")]
    Spill(#[source] std::io::Error),
    /// The text is too long for this machine's address space.
    #[error("the reference is too large to index on this machine ({0} characters)")]
    TooLarge(u64),
}

/// An index file that cannot be used, with the file and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The operating system refused or failed an operation on the file.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said. (Shown in the message, not chained as a
        /// source, so `{:#}` does not print it twice.)
        cause: std::io::Error,
    },
    /// Not a seqfarm index at all (wrong magic bytes).
    #[error("{}: not a seqfarm index (build one with `seqfarm index`)", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
    },
    /// A seqfarm index of another format version.
    #[error("{}: index format version {found}, this seqfarm reads version {expected}; rebuild it with `seqfarm index`", path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// Version in the file.
        found: u32,
        /// Version this build reads.
        expected: u32,
    },
    /// The file is shorter than its header says.
    #[error("{}: truncated index ({actual} bytes, expected {expected})", path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Size the header announces.
        expected: u64,
        /// Size on disk.
        actual: u64,
    },
    /// A checksum does not match: the file is damaged.
    #[error("{}: corrupt index: checksum mismatch in {section}", path.display())]
    Checksum {
        /// The file.
        path: PathBuf,
        /// The part of the file.
        section: &'static str,
    },
    /// The content is inconsistent.
    #[error("{}: corrupt index: {message}", path.display())]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is inconsistent.
        message: String,
    },
}

impl LoadError {
    pub(crate) fn corrupt(path: &std::path::Path, message: impl Into<String>) -> Self {
        LoadError::Corrupt {
            path: path.to_path_buf(),
            message: message.into(),
        }
    }
}
