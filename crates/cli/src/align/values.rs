//! How option values are read: numbers as bowtie2 reads them (a decimal fraction cut
//! off, anything else not a number an error where bowtie2 would silently read 0), the
//! integer pairs of `--mp`/`--rdg`/`--rfg`, `--n-ceil`'s shorthand, and list entries.

use std::path::PathBuf;

use seqfarm_align::scoring::LengthFunction;

/// An entry of a comma-separated list of inputs, empty ones kept (bowtie2 skips them,
/// and so does [`super::AlignArgs::with_positional`]) where clap's path parser refuses
/// them.
pub(super) fn list_entry() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().map(PathBuf::from)
}

/// Parses a number as bowtie2 reads an integer option: a decimal fraction is cut off
/// (`3.7` is 3), as C's `strtol` and C++'s `>> int` do; anything else not a number is
/// an error (where bowtie2 would silently read 0).
pub(super) fn truncated_int<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    let whole = match text.split_once('.') {
        Some((whole, fraction))
            if !whole.trim_start_matches(['+', '-']).is_empty()
                && fraction.bytes().all(|b| b.is_ascii_digit()) =>
        {
            whole
        }
        _ => text,
    };
    whole
        .parse::<T>()
        .map_err(|_| format!("{text:?} is not a valid number"))
}

/// [`truncated_int`] of at least `min`, as bowtie2's `parseInt(min, ...)` checks it.
pub(super) fn int_at_least(min: i64) -> impl Fn(&str) -> Result<i64, String> + Clone {
    move |text| {
        let n = truncated_int::<i64>(text)?;
        if n < min {
            return Err(format!("{n} is less than {min}, the least bowtie2 accepts"));
        }
        Ok(n)
    }
}

/// A decimal number (bowtie2's floating-point options).
pub(super) fn number(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("{text:?} is not a number"))
}

/// A function of the read length in bowtie2's syntax (`L,0,10`), checked.
pub(super) fn length_function(text: &str) -> Result<String, String> {
    LengthFunction::parse(text, LengthFunction::Constant { constant: 0.0 })?;
    Ok(text.to_string())
}

/// Parses `-I`/`-X` as bowtie2 does ([`truncated_int`]), up to its limit, the largest C
/// `int`: a larger value is an error there and here.
pub(super) fn fragment_limit(text: &str) -> Result<u64, String> {
    let n = truncated_int::<u64>(text)?;
    if n > i32::MAX as u64 {
        return Err(format!(
            "{n} is over {}, the largest fragment length",
            i32::MAX
        ));
    }
    Ok(n)
}

/// Parses `A[,B]` integers (bowtie2's `--mp`, `--rdg`, `--rfg`); decimals are cut
/// off as bowtie2 does (`--mp 3.2,0.35` is `3,0`).
pub(super) fn int_pair(option: &str, text: &str) -> anyhow::Result<(i32, Option<i32>)> {
    let bad = || anyhow::anyhow!("{option} {text:?}: expected <int> or <int>,<int>");
    let mut parts = text.split(',').map(str::trim);
    let first = parts
        .next()
        .and_then(|v| truncated_int::<i32>(v).ok())
        .ok_or_else(bad)?;
    let second = match parts.next() {
        None => None,
        Some(v) => Some(truncated_int::<i32>(v).map_err(|_| bad())?),
    };
    if parts.next().is_some() {
        return Err(bad());
    }
    Ok((first, second))
}

/// Parses `--n-ceil`: a function `TYPE,A,B`, or bowtie2's shorthand `A[,B]` for a
/// linear one.
pub(super) fn n_ceil_function(
    text: &str,
    current: LengthFunction,
) -> anyhow::Result<LengthFunction> {
    let first = text.split(',').next().unwrap_or("");
    let shorthand = first.parse::<f64>().is_ok();
    let full = if shorthand {
        format!("L,{text}")
    } else {
        text.to_string()
    };
    LengthFunction::parse(&full, current).map_err(|e| anyhow::anyhow!("--n-ceil {e}"))
}

/// Rejects header text with tabs or line breaks (they would break the header).
pub(super) fn check_header_text(option: &str, text: &str) -> anyhow::Result<()> {
    if text.is_empty() || text.contains(['\t', '\n', '\r']) {
        option_error!("{option} {text:?}: must be non-empty, without tabs or line breaks");
    }
    Ok(())
}
