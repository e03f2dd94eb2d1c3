//! The output formats of `seqfarm search`: BLAST's tabular format (`-outfmt 6`) with
//! chosen columns, its commented form (`-outfmt 7`), and one JSON document (`--json`).
//!
//! An [`OutputFormat`] is parsed once from the command line ([`OutputFormat::parse`],
//! a [`BlastFormatError`] for text that names no format) and then writes pieces of text
//! that concatenate into the output: [`OutputFormat::begin`] once,
//! [`OutputFormat::begin_query`], [`OutputFormat::hsp`] per alignment and
//! [`OutputFormat::end_query`] for every query in input order (also those without
//! hits), [`OutputFormat::end`] last. `hsp` takes `&self` and may run on many threads
//! at once; the other calls come from one thread, in order. Each alignment comes as an
//! [`HspRecord`], a plain struct of the figures the columns print, which the search
//! fills.
//!
//! Every column prints as BLAST 2.12 prints it (names, rounding, `N/A` for the strand
//! of a protein hit); the one difference is `NA` for `evalue` and `bitscore` where the
//! scoring scheme has no Karlin-Altschul parameters (BLAST refuses such schemes).
//!
//! * `columns`: [`Column`], its names and labels, and the lists used when none is given;
//! * `output_format`: [`OutputFormat`], its parsing and the order of its calls;
//! * `tabular`: the lines of `-outfmt 6` and the comment lines of `-outfmt 7`;
//! * `json`: the pieces of the `--json` document;
//! * `cells`: each column's value of an alignment, and BLAST's rounding of numbers;
//! * `table`: the columns as values ([`BlastTable`]), for programs that take them so;
//! * `accession`: the accessions BLAST derives from sequence names.

mod accession;
mod cells;
mod columns;
mod hsp;
mod json;
mod output_format;
mod table;
mod tabular;

#[cfg(test)]
mod blast_program_tests;
#[cfg(test)]
mod tests;

pub use accession::accession;
pub use cells::{format_bit_score, format_evalue};
pub use columns::{Column, DEFAULT, JSON_EXTRA, STANDARD};
pub use hsp::HspRecord;
pub use output_format::{BlastFormatError, Layout, OutputFormat, QueryInfo, RunInfo};
pub use table::{BlastTable, ColumnValues};
