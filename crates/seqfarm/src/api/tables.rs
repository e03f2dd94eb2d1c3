//! The commands whose result is a table (`count`, `snp-pileup`, `search`), run in
//! process with the table kept in memory as values, column by column: the values the
//! command writes to its output.

pub use crate::cmd::count::CountTable;
pub use crate::cmd::search::SearchResults;
pub use crate::cmd::snp_pileup::PileupTable;
pub use seqfarm_io::blast::{BlastTable, Column as BlastColumn, ColumnValues};

pub use crate::cmd::count::CountOptions;
pub use crate::cmd::search::SearchOptions;
pub use crate::cmd::snp_pileup::SnpPileupOptions;

use crate::cmd;

/// The rows `seqfarm count` prints for `options`, as columns (an `output` file is not
/// written).
pub fn count(options: &CountOptions) -> anyhow::Result<CountTable> {
    cmd::count::table(options)
}

/// The rows `seqfarm snp-pileup` writes for `options`, as values (the `output` file is
/// not written).
pub fn snp_pileup(options: &SnpPileupOptions) -> anyhow::Result<PileupTable> {
    cmd::snp_pileup::table(options)
}

/// What `seqfarm search` prints for `options`, kept in memory: the reported
/// alignments' columns, or the `--scores-only` lines.
pub fn search(options: &SearchOptions) -> anyhow::Result<SearchResults> {
    cmd::search::results(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_rows_do_not_depend_on_threads() {
        let bam = format!(
            "{}/../../tests/data/bam/sarscov2.bam",
            env!("CARGO_MANIFEST_DIR")
        );
        let run = |threads: usize| {
            let mut options = CountOptions {
                bams: vec![bam.clone().into()],
                window: Some(5000),
                ..CountOptions::default()
            };
            options.farm.threads = Some(threads);
            count(&options).unwrap()
        };
        let one = run(1);
        assert_eq!(one.chrom[0], "NC_045512.2");
        assert_eq!((one.start[0], one.end[0]), (0, 5000));
        assert_eq!(one, run(2));
    }
}
