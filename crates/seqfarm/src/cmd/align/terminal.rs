//! What an align run shows on the terminal as it goes: the progress bar over its input
//! and bowtie2's `-t/--time` phase times.

use std::path::PathBuf;
use std::time::Instant;

use seqfarm_io::reads::InputFormat;

use crate::progress;

/// Progress on a terminal: input bytes when every input is an uncompressed file (the
/// total is known), reads otherwise.
pub(super) enum InputProgress {
    Bytes(indicatif::ProgressBar),
    Reads(indicatif::ProgressBar),
}

impl InputProgress {
    pub(super) fn advance(&self, bytes: u64, reads: u64) {
        match self {
            InputProgress::Bytes(bar) => bar.inc(bytes),
            InputProgress::Reads(bar) => bar.inc(reads),
        }
    }

    pub(super) fn finish(&self) {
        match self {
            InputProgress::Bytes(bar) | InputProgress::Reads(bar) => bar.finish_and_clear(),
        }
    }
}

pub(super) fn input_progress(paths: &[PathBuf], format: InputFormat) -> InputProgress {
    if format == InputFormat::CommandLine {
        return InputProgress::Reads(progress::items("align"));
    }
    let mut total = 0u64;
    for path in paths {
        // Only a regular file is opened here: reading the magic bytes of a pipe (`-1
        // <(zcat r1.fq.gz)`) would take them from the reads.
        match seqfarm_io::input::regular_file_size(path) {
            Some((len, false)) => total += len,
            _ => return InputProgress::Reads(progress::items("align")),
        }
    }
    InputProgress::Bytes(progress::bytes(total, "align"))
}

/// bowtie2's `-t/--time`: `Time ...: HH:MM:SS` lines on standard error.
pub(super) struct PhaseTimer {
    on: bool,
}

impl PhaseTimer {
    pub(super) fn new(on: bool) -> Self {
        Self { on }
    }

    /// Prints `label: HH:MM:SS` for the time since `since`, when timing is on.
    pub(super) fn phase(&self, label: &str, since: Instant) {
        if self.on {
            stderr_line!("{label}: {}", clock(since.elapsed().as_secs()));
        }
    }
}

/// Seconds as bowtie2's timer prints them: `HH:MM:SS`.
pub(super) fn clock(seconds: u64) -> String {
    format!(
        "{:02}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}
