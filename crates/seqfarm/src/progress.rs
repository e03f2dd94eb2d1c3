//! Progress bars on a terminal, nothing otherwise.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A byte-count progress bar on standard error, hidden when standard error is not a
/// terminal (pipelines and logs stay clean).
pub fn bytes(total: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(total), draw_target());
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix(label.to_string());
    bar
}

/// A counter of items (reads, sites, sequences) with no known total.
pub fn items(label: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, draw_target());
    bar.set_style(
        ProgressStyle::with_template("{prefix} {human_pos} {per_sec} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_prefix(label.to_string());
    bar
}

/// A spinner with a message for work in stages of unknown length.
pub fn spinner(label: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, draw_target());
    bar.set_style(
        ProgressStyle::with_template("{prefix} {spinner} {msg} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_prefix(label.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// Turns `bar` (a [`spinner`]) into a bar at `done` of `total`, with percent and ETA.
pub fn to_bar(bar: &ProgressBar, done: u64, total: u64) {
    if bar.length() != Some(total) {
        bar.set_style(
            ProgressStyle::with_template("{prefix} {msg} {wide_bar} {percent}% (ETA {eta})")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar.set_length(total);
    }
    bar.set_position(done);
}

fn draw_target() -> ProgressDrawTarget {
    if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    }
}
