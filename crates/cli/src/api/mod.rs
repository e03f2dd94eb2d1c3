//! In-process entry points to the commands, for programs that embed seqfarm (the Python
//! package): the same farms as the binary, with results returned as values rather than
//! printed, and errors returned with the messages the binary prints.

use std::ffi::OsString;
use std::path::Path;

use seqfarm_farm::FarmStats;
use seqfarm_regions::FlagCounts;

use crate::cmd;
use crate::common::worker_threads;

pub mod align;
pub mod index;
pub mod parts;
pub mod tables;

/// FLAG statistics of a BAM or SAM file, as `seqfarm flagstat -t threads` counts them
/// (`threads`: `None` for one per core).
pub fn flagstat(path: &Path, threads: Option<usize>) -> anyhow::Result<FlagCounts> {
    let config = seqfarm_farm::FarmConfig::new(worker_threads(threads));
    cmd::flagstat::count(path, &config, &mut FarmStats::default())
}

/// The options of `command` (`"search"`) that take no value, by every name they answer
/// to (`dna`, `no-mixed`, `q` for `-q`), for front ends that turn keywords into
/// arguments and must refuse a value given to a flag. Empty for an unknown command.
pub fn flag_options(command: &str) -> Vec<String> {
    let cli = <crate::Cli as clap::CommandFactory>::command();
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

/// A command line (without the program name: the command first) parsed as the binary
/// parses it; a bad option is clap's error.
pub(crate) fn parse_command<I, T>(args: I) -> Result<crate::Command, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let argv = std::iter::once(OsString::from("seqfarm")).chain(args.into_iter().map(Into::into));
    Ok(crate::Cli::try_parse_args(argv)?.command)
}
