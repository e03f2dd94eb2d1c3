//! The commands whose result is a table, run in process: `count`, `snp-pileup` and
//! `search`, each returning the bytes the command writes (parsed by the Python side).

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::run_interruptible;

/// The rows `seqfarm count ARGS` prints (TSV), for the command's arguments.
#[pyfunction]
fn count_table(py: Python<'_>, args: Vec<String>) -> PyResult<Py<PyBytes>> {
    let bytes = run_interruptible(py, || seqfarm::api::tables::count(&args))?;
    Ok(PyBytes::new(py, &bytes).unbind())
}

/// The CSV `seqfarm snp-pileup ARGS` writes (OUTPUT given as `-`).
#[pyfunction]
fn snp_pileup_table(py: Python<'_>, args: Vec<String>) -> PyResult<Py<PyBytes>> {
    let bytes = run_interruptible(py, || seqfarm::api::tables::snp_pileup(&args))?;
    Ok(PyBytes::new(py, &bytes).unbind())
}

/// The lines `seqfarm search ARGS` prints (BLAST tabular, or `--scores-only` triples).
#[pyfunction]
fn search_table(py: Python<'_>, args: Vec<String>) -> PyResult<Py<PyBytes>> {
    let bytes = run_interruptible(py, || seqfarm::api::tables::search(&args))?;
    Ok(PyBytes::new(py, &bytes).unbind())
}

/// Adds the table functions to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(count_table, m)?)?;
    m.add_function(wrap_pyfunction!(snp_pileup_table, m)?)?;
    m.add_function(wrap_pyfunction!(search_table, m)?)?;
    Ok(())
}
