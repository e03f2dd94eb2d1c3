//! Fuzz harnesses for every parser that reads a user's file.
//!
//! Each [`Target`] takes one input from the fuzzer, writes it where a user's file would
//! be, and runs the `seqfarm` command that reads that format, through the same entry
//! point as the binary ([`seqfarm_cli::Cli`]). So a target covers the whole path of its
//! format: sniffing, the emitter's light parsing, the workers' full parsing, and the
//! error report. A target fails (panics, which the fuzzer records as a crash) when:
//!
//! * anything panics, in the command's own thread or in a farm worker;
//! * the command fails with a message that names none of its input files (every error
//!   about bad input must say which file it is about).
//!
//! Hangs and unbounded allocation are found by the fuzzer itself (its time and memory
//! limits; see `bench/fuzz.sh`). Compressed formats get the compression done by the
//! harness where the parser of interest sits behind it: the `bam` target compresses its
//! input into BGZF blocks so that mutations reach the BAM header and records, while the
//! `bgzf` target hands raw bytes to the block reader.
//!
//! `fuzz/` holds the libFuzzer binaries (one per target, each a line calling
//! [`Target::run`]); the inputs that ever failed are kept in `fuzz/regressions/<target>/`
//! and replayed by this crate's tests.

mod command;
mod inputs;
mod scratch;
mod targets;

pub use targets::TARGETS;

/// One fuzz target: a format and the command run on it.
#[derive(Clone, Copy)]
pub struct Target {
    /// The target's name (the libFuzzer binary and corpus directory are named after it).
    pub name: &'static str,
    /// What it covers, for listings.
    pub covers: &'static str,
    /// Runs the command on one input; panics on a finding.
    pub run: fn(&[u8]),
}

/// The target called `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}
