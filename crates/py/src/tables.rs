//! The commands whose result is a table, run in process: `count`, `snp-pileup` and
//! `search`, each returning its columns (NumPy arrays for numbers, lists of text) for
//! the Python side's data frame.

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use seqfarm::api::tables::{ColumnValues, SearchResults};

use crate::errors::run_interruptible;

/// The rows `seqfarm count ARGS` prints, as columns: `chrom` (text), `start`, `end`
/// (int64), `bed_columns` (lists of text, `None` where a line is shorter) and `counts`
/// (one int64 array per BAM).
#[pyfunction]
fn count_table(py: Python<'_>, args: Vec<String>) -> PyResult<Bound<'_, PyDict>> {
    let table = run_interruptible(py, || {
        seqfarm::api::tables::count(&seqfarm_cli::count_options(&args)?)
    })?;
    count_columns(py, table)
}

/// A [`seqfarm::api::tables::CountTable`] as the dict [`count_table`] returns.
pub fn count_columns(
    py: Python<'_>,
    table: seqfarm::api::tables::CountTable,
) -> PyResult<Bound<'_, PyDict>> {
    let columns = PyDict::new(py);
    columns.set_item("chrom", table.chrom)?;
    columns.set_item("start", table.start.into_pyarray(py))?;
    columns.set_item("end", table.end.into_pyarray(py))?;
    columns.set_item("bed_columns", table.bed_columns)?;
    let counts: Vec<_> = table
        .counts
        .into_iter()
        .map(|column| column.into_pyarray(py))
        .collect();
    columns.set_item("counts", counts)?;
    Ok(columns)
}

/// The rows `seqfarm snp-pileup ARGS` writes (OUTPUT given as `-`), as columns.
#[pyfunction]
fn snp_pileup_table(py: Python<'_>, args: Vec<String>) -> PyResult<Bound<'_, PyDict>> {
    let table = run_interruptible(py, || {
        seqfarm::api::tables::snp_pileup(&seqfarm_cli::snp_pileup_options(&args)?)
    })?;
    pileup_columns(py, table)
}

/// A [`seqfarm::api::tables::PileupTable`] as a dict: `contig_names` (text), `contig`
/// (indexes into them), `position` (int64), `reference` and `alternate` (uint8 letters)
/// and `counts` (per BAM, its R, A, E and D int64 arrays).
pub fn pileup_columns(
    py: Python<'_>,
    table: seqfarm::api::tables::PileupTable,
) -> PyResult<Bound<'_, PyDict>> {
    let columns = PyDict::new(py);
    columns.set_item("contig_names", table.contig_names)?;
    columns.set_item("contig", table.contig.into_pyarray(py))?;
    columns.set_item("position", table.position.into_pyarray(py))?;
    columns.set_item("reference", table.reference.into_pyarray(py))?;
    columns.set_item("alternate", table.alternate.into_pyarray(py))?;
    let counts: Vec<Vec<_>> = table
        .counts
        .into_iter()
        .map(|file| file.into_iter().map(|c| c.into_pyarray(py)).collect())
        .collect();
    columns.set_item("counts", counts)?;
    Ok(columns)
}

/// What `seqfarm search ARGS` prints: the alignments' columns as a list of `(name,
/// values)` pairs (int64 or float64 arrays, lists of text), or the `--scores-only`
/// lines as bytes.
#[pyfunction]
fn search_table(py: Python<'_>, args: Vec<String>) -> PyResult<Bound<'_, PyAny>> {
    let results = run_interruptible(py, || {
        seqfarm::api::tables::search(&seqfarm_cli::search_options(&args)?)
    })?;
    search_results(py, results)
}

/// [`SearchResults`] as [`search_table`] returns them.
pub fn search_results(py: Python<'_>, results: SearchResults) -> PyResult<Bound<'_, PyAny>> {
    let table = match results {
        SearchResults::Hits(table) => table,
        SearchResults::Scores(scores) => {
            let columns = PyDict::new(py);
            columns.set_item("query_names", scores.query_names)?;
            columns.set_item("query", scores.query.into_pyarray(py))?;
            columns.set_item("subject", scores.subject)?;
            columns.set_item("score", scores.score.into_pyarray(py))?;
            return Ok(columns.into_any());
        }
    };
    let mut columns = Vec::with_capacity(table.columns.len());
    for (column, values) in table.columns {
        let values = match values {
            ColumnValues::Text(v) => v.into_pyobject(py)?.into_any(),
            ColumnValues::Int(v) => v.into_pyarray(py).into_any(),
            ColumnValues::Float(v) => v.into_pyarray(py).into_any(),
        };
        columns.push((column.name(), values));
    }
    Ok(columns.into_pyobject(py)?.into_any())
}

/// Adds the table functions to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(count_table, m)?)?;
    m.add_function(wrap_pyfunction!(snp_pileup_table, m)?)?;
    m.add_function(wrap_pyfunction!(search_table, m)?)?;
    Ok(())
}
