//! The commands whose result is a table (`count`, `snp-pileup`, `search`), run in
//! process with the table kept in memory: the same bytes the command writes to its
//! output, for the caller to parse.

use crate::cmd;
use crate::common::{Destination, MemoryBuffer};
use crate::Command;

/// The rows `seqfarm count ARGS` prints (`args`: the command's arguments without the
/// program and command names; an `-o` file is not written).
pub fn count(args: &[String]) -> anyhow::Result<Vec<u8>> {
    let buffer = MemoryBuffer::default();
    match parse("count", args)? {
        Command::Count(args) => cmd::count::run(args, &Destination::Memory(buffer.clone()))?,
        _ => unreachable!("the count command parses as count"),
    }
    Ok(buffer.take())
}

/// The CSV `seqfarm snp-pileup ARGS` writes (`args` as for [`count`]; the OUTPUT
/// argument is not written, give `-`).
pub fn snp_pileup(args: &[String]) -> anyhow::Result<Vec<u8>> {
    let buffer = MemoryBuffer::default();
    match parse("snp-pileup", args)? {
        Command::SnpPileup(args) => {
            cmd::snp_pileup::run(args, &Destination::Memory(buffer.clone()))?
        }
        _ => unreachable!("the snp-pileup command parses as snp-pileup"),
    }
    Ok(buffer.take())
}

/// The lines `seqfarm search ARGS` prints (`args` as for [`count`]).
pub fn search(args: &[String]) -> anyhow::Result<Vec<u8>> {
    let buffer = MemoryBuffer::default();
    match parse("search", args)? {
        Command::Search(args) => cmd::search::run(&args, &Destination::Memory(buffer.clone()))?,
        _ => unreachable!("the search command parses as search"),
    }
    Ok(buffer.take())
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
        assert!(one.starts_with(b"NC_045512.2\t0\t5000\t"));
        assert_eq!(one, run("2"));
    }

    #[test]
    fn a_bad_option_is_clap_error() {
        let error = count(&["--no-such-option".to_string()]).unwrap_err();
        assert!(error.downcast_ref::<clap::Error>().is_some());
    }
}
