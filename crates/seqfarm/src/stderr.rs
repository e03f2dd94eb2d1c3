//! Messages on standard error that never fail or stop a run: when standard error is a
//! full disk (`2>/dev/full`) or a closed pipe, the message is lost and the run goes on
//! to its own exit status (`eprintln!` would panic with status 101).

use std::fmt;
use std::io::{self, Write};

/// Writes a formatted line to standard error as `eprintln!` does, ignoring a failed
/// write.
#[macro_export]
macro_rules! stderr_line {
    ($($arg:tt)*) => {
        $crate::stderr::write_line(format_args!($($arg)*))
    };
}

/// Writes `line` and a newline to standard error, ignoring a failed write (the
/// [`stderr_line!`] macro's body).
pub fn write_line(line: fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "{line}");
}

/// Standard error as a writer that never fails: what cannot be written is dropped (for
/// reports such as `align`'s summary, which are no part of the run's result).
pub struct LossyStderr;

impl Write for LossyStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let _ = io::stderr().write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let _ = io::stderr().flush();
        Ok(())
    }
}
