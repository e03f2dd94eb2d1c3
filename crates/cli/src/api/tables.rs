//! The commands whose result is a table (`count`, `snp-pileup`, `search`), run in
//! process with the table kept in memory as values, column by column: the values the
//! command writes to its output.

pub use crate::cmd::count::CountTable;
pub use crate::cmd::search::SearchResults;
pub use crate::cmd::snp_pileup::PileupTable;
pub use seqfarm_io::blast::{BlastTable, Column as BlastColumn, ColumnValues};

use crate::cmd;
use crate::Command;

/// The rows `seqfarm count ARGS` prints, as columns (`args`: the command's arguments
/// without the program and command names; an `-o` file is not written).
pub fn count(args: &[String]) -> anyhow::Result<CountTable> {
    match parse("count", args)? {
        Command::Count(args) => cmd::count::table(&args.into_options()),
        _ => unreachable!("the count command parses as count"),
    }
}

/// The rows `seqfarm snp-pileup ARGS` writes, as values (`args` as for [`count`]; the
/// OUTPUT argument is not written, give `-`).
pub fn snp_pileup(args: &[String]) -> anyhow::Result<PileupTable> {
    match parse("snp-pileup", args)? {
        Command::SnpPileup(args) => cmd::snp_pileup::table(&args.into_options()),
        _ => unreachable!("the snp-pileup command parses as snp-pileup"),
    }
}

/// What `seqfarm search ARGS` prints, kept in memory (`args` as for [`count`]): the
/// reported alignments' columns, or the `--scores-only` lines.
pub fn search(args: &[String]) -> anyhow::Result<SearchResults> {
    match parse("search", args)? {
        Command::Search(args) => cmd::search::results(&args.into_options()),
        _ => unreachable!("the search command parses as search"),
    }
}

/// `seqfarm COMMAND ARGS` parsed as the binary parses it (a bad option is clap's error).
pub(crate) fn parse(command: &str, args: &[String]) -> Result<Command, clap::Error> {
    super::parse_command(std::iter::once(command.to_string()).chain(args.iter().cloned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> String {
        format!("{}/../../tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn count_rows_do_not_depend_on_threads() {
        let run = |threads: &str| {
            let args = ["--window", "5000", "-t", threads, &data("bam/sarscov2.bam")];
            count(&args.map(String::from)).unwrap()
        };
        let one = run("1");
        assert_eq!(one.chrom[0], "NC_045512.2");
        assert_eq!((one.start[0], one.end[0]), (0, 5000));
        assert_eq!(one, run("2"));
    }

    #[test]
    fn a_bad_option_is_clap_error() {
        let error = count(&["--no-such-option".to_string()]).unwrap_err();
        assert!(error.downcast_ref::<clap::Error>().is_some());
    }
}
