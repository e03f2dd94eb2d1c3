//! Running a command line as the binary does, and judging how it ended.

use std::ffi::OsString;
use std::path::Path;

/// Runs `seqfarm ARGS...`; `Err` carries the error as the binary would print it.
pub fn run_command(args: &[OsString]) -> Result<(), String> {
    let argv = std::iter::once(OsString::from("seqfarm")).chain(args.iter().cloned());
    let cli = seqfarm_cli::Cli::try_parse_args(argv)
        .unwrap_or_else(|e| panic!("the harness's command line does not parse: {e}"));
    cli.run().map_err(|e| format!("{e:#}"))
}

/// Runs `seqfarm ARGS...` on bad or good input: success and a clear error are both
/// fine; a caught panic, or an error that names none of `inputs`, is a finding.
pub fn run_judged(args: &[OsString], inputs: &[&Path]) {
    let Err(message) = run_command(args) else {
        return;
    };
    if message.contains("panicked") || message.contains("internal error") {
        panic!("a panic inside the command: {message}");
    }
    let named = inputs.iter().any(|path| {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        message.contains(name.as_ref())
    });
    if !named {
        panic!("an error that names no input file: {message}");
    }
}

/// An array of `OsString`s from a mixed argument list.
#[macro_export]
macro_rules! args {
    ($($arg:expr),* $(,)?) => {
        [$(std::ffi::OsString::from($arg)),*]
    };
}
