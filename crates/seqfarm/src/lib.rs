//! `seqfarm`: the library of seqfarm's commands, each a task farm.
//!
//! Each `cmd/<name>.rs` is a job: it opens its inputs through the IO layer's door,
//! builds an emitter, a worker from a kernel crate and a collector, and runs them on
//! the farm. A job takes a typed options struct whose `Default` is the command's
//! defaults ([`options::FarmOptions`] for the farm; `IndexOptions`, `CountOptions`,
//! ...); the `seqfarm` binary (crate `seqfarm-cli`) turns its command line into these
//! options and reads no file itself. [`api`] holds the entry points other programs call
//! in process (the Python package), with typed results (tables as columns, parts of a
//! run for a cluster).
#![forbid(unsafe_code)]

// First, so that `stderr_line!` is in scope in the modules below.
#[macro_use]
pub mod stderr;
#[macro_use]
pub mod option_value;

pub mod api;
pub mod cmd;
pub mod common;
pub mod farm_stats;
pub mod numa;
pub mod options;
pub mod plot_file;
pub mod progress;

pub use common::is_broken_pipe;
pub use option_value::OptionValueError;
/// An index file that cannot be loaded (missing, foreign, damaged), as the commands and
/// [`api`] return it.
pub use seqfarm_fmindex::LoadError as IndexLoadError;
