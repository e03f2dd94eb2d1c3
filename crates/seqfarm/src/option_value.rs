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

/// An `--outfmt` that names no output format is a usage error, with the IO layer's
/// message unchanged.
impl From<seqfarm_io::blast::BlastFormatError> for OptionValueError {
    fn from(error: seqfarm_io::blast::BlastFormatError) -> Self {
        OptionValueError(error.to_string())
    }
}

/// Returns an [`OptionValueError`] with a `format!` message from the enclosing function
/// (which returns an `anyhow::Result`).
#[macro_export]
macro_rules! option_error {
    ($($message:tt)*) => {
        return Err($crate::option_value::OptionValueError(format!($($message)*)).into())
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use seqfarm_io::blast::OutputFormat;

    #[test]
    fn an_outfmt_that_names_no_format_is_an_option_value_error_with_its_message() {
        let error = OutputFormat::parse(Some("6 qseqid nosuch"), false).unwrap_err();
        let message = error.to_string();
        let error = anyhow::Error::from(OptionValueError::from(error));
        assert!(error.downcast_ref::<OptionValueError>().is_some());
        assert_eq!(error.to_string(), message);
    }
}
