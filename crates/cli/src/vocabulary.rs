//! The command line's vocabulary for front ends that take keywords or argument lists
//! (the Python package, the fuzz targets): a command's arguments parsed as the binary
//! parses them into the library's typed options, and the options that take no value.

use std::ffi::OsString;

use clap::CommandFactory;
use seqfarm::cmd::align::AlignOptions;
use seqfarm::cmd::count::CountOptions;
use seqfarm::cmd::markdup::MarkdupOptions;
use seqfarm::cmd::search::SearchOptions;
use seqfarm::cmd::snp_pileup::SnpPileupOptions;

use crate::align::AlignArgs;
use crate::{Cli, Command};

/// A command line without the program name (the command first) parsed as the binary
/// parses it; a bad option is clap's error.
pub fn parse_command<I, T>(args: I) -> Result<Command, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let argv = std::iter::once(OsString::from("seqfarm")).chain(args.into_iter().map(Into::into));
    Ok(Cli::try_parse_args(argv)?.command)
}

/// `seqfarm COMMAND ARGS` parsed (`args` without the program and command names).
fn parse(command: &str, args: &[String]) -> Result<Command, clap::Error> {
    parse_command(std::iter::once(command.to_string()).chain(args.iter().cloned()))
}

/// Defines `$name(args)`: the options of `seqfarm $command ARGS`, from the command's
/// arguments `$variant`.
macro_rules! options_of {
    ($name:ident, $command:literal, $variant:ident, $options:ty) => {
        #[doc = concat!("The options of `seqfarm ", $command, " ARGS`.")]
        pub fn $name(args: &[String]) -> anyhow::Result<$options> {
            match parse($command, args)? {
                Command::$variant(args) => Ok(args.into_options()),
                _ => unreachable!(concat!("the ", $command, " command parses as itself")),
            }
        }
    };
}

options_of!(count_options, "count", Count, CountOptions);
options_of!(
    snp_pileup_options,
    "snp-pileup",
    SnpPileup,
    SnpPileupOptions
);
options_of!(
    depth_options,
    "depth",
    Depth,
    (
        std::path::PathBuf,
        std::path::PathBuf,
        seqfarm::cmd::depth::DepthOptions
    )
);
options_of!(markdup_options, "markdup", Markdup, MarkdupOptions);
options_of!(search_options, "search", Search, SearchOptions);

/// The arguments of `seqfarm align ARGS`, parsed but not yet resolved (bowtie2's
/// `--usage` and `--arg-desc` print instead of aligning: [`AlignArgs::execute`]).
pub fn align_args(args: &[String]) -> anyhow::Result<AlignArgs> {
    match parse("align", args)? {
        Command::Align(args) => Ok(*args),
        _ => unreachable!("the align command parses as align"),
    }
}

/// The options of `seqfarm align ARGS`, completed and checked as the command does.
pub fn align_options(args: &[String]) -> anyhow::Result<AlignOptions> {
    align_args(args)?.into_options()
}

/// The options of `command` (`"search"`) that take no value, by every name they answer
/// to (`dna`, `no-mixed`, `q` for `-q`), for front ends that turn keywords into
/// arguments and must refuse a value given to a flag. Empty for an unknown command.
pub fn flag_options(command: &str) -> Vec<String> {
    let cli = Cli::command();
    let Some(sub) = cli.find_subcommand(command) else {
        return Vec::new();
    };
    sub.get_arguments()
        .filter(|arg| !arg.get_action().takes_values())
        .flat_map(|arg| {
            let long = arg.get_long_and_visible_aliases().unwrap_or_default();
            let short = arg.get_short_and_visible_aliases().unwrap_or_default();
            long.into_iter()
                .map(str::to_string)
                .chain(short.into_iter().map(String::from))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_option_is_clap_error() {
        let error = count_options(&["--no-such-option".to_string()]).unwrap_err();
        assert!(error.downcast_ref::<clap::Error>().is_some());
    }

    #[test]
    fn flags_are_listed_by_every_name() {
        let flags = flag_options("search");
        assert!(flags.iter().any(|f| f == "dna"), "{flags:?}");
        assert!(flag_options("no-such-command").is_empty());
    }
}
