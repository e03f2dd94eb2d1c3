//! The native half of the `seqfarm` Python package (`seqfarm._native`): each function
//! runs one of the library's farms in process with the GIL released, and turns its
//! error into a `seqfarm.Error` carrying the message the command line prints. The
//! Python half (`python/seqfarm`) gives the results their Python types.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;

mod align;
mod align_parts;
mod bam;
mod depth_parts;
mod errors;
mod index;
mod parts;
mod parts_output;
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

/// Runs `seqfarm markdup ARGS`; returns Picard's `DuplicationMetrics` rows as a dict of
/// library names to dicts of Picard's column names (`PERCENT_DUPLICATION` a float,
/// `ESTIMATED_LIBRARY_SIZE` `None` without duplicates, the rest ints).
#[pyfunction]
fn markdup_metrics(py: Python<'_>, args: Vec<String>) -> PyResult<Bound<'_, PyDict>> {
    let summary = run_interruptible(py, || {
        seqfarm::cmd::markdup::run(&seqfarm_cli::markdup_options(&args)?)
    })?;
    let libraries = PyDict::new(py);
    for (name, counts) in summary.libraries {
        let row = counts.row();
        let metrics = PyDict::new(py);
        metrics.set_item("UNPAIRED_READS_EXAMINED", counts.unpaired_reads)?;
        metrics.set_item("READ_PAIRS_EXAMINED", row.pairs)?;
        metrics.set_item(
            "SECONDARY_OR_SUPPLEMENTARY_RDS",
            counts.secondary_or_supplementary,
        )?;
        metrics.set_item("UNMAPPED_READS", counts.unmapped)?;
        metrics.set_item("UNPAIRED_READ_DUPLICATES", counts.unpaired_duplicates)?;
        metrics.set_item("READ_PAIR_DUPLICATES", row.pair_duplicates)?;
        metrics.set_item("READ_PAIR_OPTICAL_DUPLICATES", counts.optical_pairs)?;
        metrics.set_item("PERCENT_DUPLICATION", row.percent)?;
        metrics.set_item("ESTIMATED_LIBRARY_SIZE", row.library_size)?;
        libraries.set_item(name, metrics)?;
    }
    Ok(libraries)
}

/// The options of `command` that take no value, by every name they answer to (`dna`,
/// `no-mixed`, `q`): the keywords that take only `True` or `False`.
#[pyfunction]
fn flag_options(command: &str) -> Vec<String> {
    seqfarm_cli::flag_options(command)
}

/// Has this process keep the memory a part frees for its next part (a Dask worker
/// process runs part after part; see `seqfarm_farm::allocator`).
#[pyfunction]
fn keep_freed_memory() {
    seqfarm_farm::allocator::keep_freed_memory();
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The farms' threads start under an address-space limit too (see the function).
    seqfarm_farm::threads::fit_allocator_to_address_limit();
    errors::register(m)?;
    parts::register(m)?;
    depth_parts::register(m)?;
    m.add_function(wrap_pyfunction!(flagstat_json, m)?)?;
    m.add_function(wrap_pyfunction!(index::build_index, m)?)?;
    m.add_function(wrap_pyfunction!(flag_options, m)?)?;
    m.add_function(wrap_pyfunction!(keep_freed_memory, m)?)?;
    m.add_function(wrap_pyfunction!(markdup_metrics, m)?)?;
    tables::register(m)?;
    m.add_class::<index::NativeIndex>()?;
    m.add_class::<align::NativeAligner>()?;
    m.add_class::<bam::BamReader>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
