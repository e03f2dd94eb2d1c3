//! The `seqfarm` binary: parses the command line and reports the error, if any (a
//! report that standard error cannot take is dropped: the exit status still tells).
#![forbid(unsafe_code)]

use std::process::ExitCode;

use seqfarm::{is_broken_pipe, stderr_line};
use seqfarm_cli::Cli;

fn main() -> ExitCode {
    // Under `ulimit -v` (a batch system's `h_vmem`), malloc's per-thread reservations
    // would otherwise keep threads from starting.
    seqfarm_farm::threads::fit_allocator_to_address_limit();
    // Ctrl-C, `kill` or a closed terminal: the temporary files of unfinished outputs
    // go with the run.
    if let Err(e) = seqfarm_io::pending_files::remove_on_signal() {
        stderr_line!("seqfarm: warning: no signal handler ({e}): an interrupted run may leave hidden temporary files");
    }
    match Cli::parse_args().run() {
        Ok(()) => ExitCode::SUCCESS,
        // `seqfarm ... | head`: the reader left; that is not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            stderr_line!("seqfarm: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
