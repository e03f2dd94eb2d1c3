//! The native half of the `seqfarm` Python package (`seqfarm._native`): each function
//! runs one of the library's farms in process with the GIL released, and turns its
//! error into a `seqfarm.Error` carrying the message the command line prints. The
//! Python half (`python/seqfarm`) gives the results their Python types.

use std::path::PathBuf;

use pyo3::prelude::*;

mod align;
mod bam;
mod errors;
mod index;
mod parts;
mod tables;

use errors::run_interruptible;

/// `samtools flagstat -O json` of a BAM/SAM file, as a JSON string (`threads`: `None`
/// for one worker per core).
#[pyfunction]
#[pyo3(signature = (path, threads=None))]
fn flagstat_json(py: Python<'_>, path: PathBuf, threads: Option<usize>) -> PyResult<String> {
    run_interruptible(py, || {
        let counts = seqfarm::api::flagstat(&path, threads)?;
        Ok(counts.render(seqfarm_regions::FlagstatFormat::Json))
    })
}

/// The options of `command` that take no value, by every name they answer to (`dna`,
/// `no-mixed`, `q`): the keywords that take only `True` or `False`.
#[pyfunction]
fn flag_options(command: &str) -> Vec<String> {
    seqfarm_cli::flag_options(command)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    parts::register(m)?;
    m.add_function(wrap_pyfunction!(flagstat_json, m)?)?;
    m.add_function(wrap_pyfunction!(index::build_index, m)?)?;
    m.add_function(wrap_pyfunction!(flag_options, m)?)?;
    tables::register(m)?;
    m.add_class::<index::NativeIndex>()?;
    m.add_class::<align::NativeAligner>()?;
    m.add_class::<bam::BamReader>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
