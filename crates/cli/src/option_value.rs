//! Option values that a command refuses after the parser accepted their form.

use std::fmt;

/// An option's value refused by the command's own checks (an unknown `--outfmt` column,
/// a `--matrix` that is neither built in nor a file, options that contradict each
/// other): a usage error like the parser's own, which the Python package raises as
/// `OptionError`. Its message names the option.
#[derive(Debug)]
pub struct OptionValueError(pub String);

impl fmt::Display for OptionValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OptionValueError {}

/// Returns an [`OptionValueError`] with a `format!` message from the enclosing function
/// (which returns an `anyhow::Result`).
macro_rules! option_error {
    ($($message:tt)*) => {
        return Err($crate::option_value::OptionValueError(format!($($message)*)).into())
    };
}
