//! Formats and IO for seqfarm.
//!
//! Everything that touches a file lives here, so the kernels only ever see slices and
//! plain types:
//!
//! * [`input`]: opening an input by path, `-` for standard input, gzip (and BGZF)
//!   recognised by its magic bytes;
//! * [`fasta`]: streaming FASTA records into a reused buffer;
//! * [`fasta_chunks`]: FASTA cut into chunks of whole records for farm workers to parse;
//! * [`output`]: an output written to a temporary file beside its destination and renamed
//!   into place only when complete, so a failed run never leaves a file that looks whole;
//!   an existing destination is refused unless overwriting is allowed;
//! * [`Error`]: every error names the file, and where it applies the record or byte offset.
#![forbid(unsafe_code)]

pub mod fasta;
pub mod fasta_chunks;
pub mod input;
pub mod output;

mod error;
pub use error::{Error, Result};
