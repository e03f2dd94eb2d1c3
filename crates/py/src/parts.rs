//! The native half of `seqfarm.dask`: commands cut into parts (planned by the client,
//! run by the workers) whose results put together in order are the command's output.

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyBytes, PyDict};
use seqfarm::api::parts::align;
use seqfarm::api::parts::search::SearchPart;
use seqfarm::api::parts::snp_pileup::{self, SnpPileupMerge};
use seqfarm::api::parts::snp_pileup_walk as walk;
use seqfarm::api::parts::{count, flagstat, search, RegionPlan};
use seqfarm::cmd::align::AlignOptions;
use seqfarm::cmd::search::SearchOptions;
use seqfarm_regions::FlagstatFormat;

use crate::errors::run_native;
use crate::tables::{count_columns, pileup_columns, search_results};

/// The output's header bytes (BGZF blocks for BAM); `@PG CL:` is `seqfarm` and `argv`
/// (less its thread options).
#[pyfunction]
fn align_header<'py>(py: Python<'py>, argv: Vec<String>) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = run_native(py, || {
        let program = std::iter::once("seqfarm".to_string());
        let command_line = seqfarm::cmd::align::command_line(program.chain(argv.iter().cloned()));
        align::align_header(&align_options(&argv)?, &command_line)
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// The output's last bytes (BGZF's end-of-file block for BAM, nothing for SAM).
#[pyfunction]
fn align_trailer<'py>(py: Python<'py>, argv: Vec<String>) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = run_native(py, || Ok(align::align_trailer(&align_options(&argv)?)))?;
    Ok(PyBytes::new(py, &bytes))
}

/// The alignment summary (as printed on standard error) of the parts' counts added up.
#[pyfunction]
fn align_summary(py: Python<'_>, argv: Vec<String>, counts: Vec<u64>) -> PyResult<String> {
    run_native(py, || align::align_summary(&align_options(&argv)?, &counts))
}

/// `(range size, groups)` of the flagstat work plan of a BAM spread over `parts` parts.
#[pyfunction]
fn flagstat_plan(py: Python<'_>, path: PathBuf, parts: usize) -> PyResult<(u64, usize)> {
    run_native(py, || flagstat::flagstat_plan(&path, parts))
}

/// The flag counts (a flat list) of groups `first..last` of the flagstat work plan.
#[pyfunction]
#[pyo3(signature = (path, unit, first, last, threads=None))]
fn flagstat_groups(
    py: Python<'_>,
    path: PathBuf,
    unit: u64,
    first: usize,
    last: usize,
    threads: Option<usize>,
) -> PyResult<Vec<u64>> {
    run_native(py, || {
        let counts = flagstat::flagstat_groups(&path, unit, first..last, threads)?;
        Ok(flagstat::flag_counts_to_vec(&counts))
    })
}

/// The flagstat report (`"default"`, `"json"` or `"tsv"`) of flag counts added up.
#[pyfunction]
fn flagstat_render(py: Python<'_>, counts: Vec<u64>, format: String) -> PyResult<String> {
    run_native(py, || {
        let format = match format.as_str() {
            "default" => FlagstatFormat::Default,
            "json" => FlagstatFormat::Json,
            "tsv" => FlagstatFormat::Tsv,
            other => anyhow::bail!("unknown format {other:?} (default, json or tsv)"),
        };
        flagstat::flagstat_render(&counts, format)
    })
}

/// A part of a [`count_plan`] or [`snp_pileup_plan`]: `(first task, last task, start)`.
type PartOfPlan<'py> = (usize, usize, Bound<'py, PyBytes>);

/// A region job's plan as Python takes it: `(task size in BAM bytes, parts)`.
fn plan_to_python(py: Python<'_>, plan: RegionPlan) -> (u64, Vec<PartOfPlan<'_>>) {
    let parts = (plan.parts.iter())
        .map(|p| (p.tasks.start, p.tasks.end, PyBytes::new(py, &p.start)))
        .collect();
    (plan.task_bytes, parts)
}

/// `(task size in BAM bytes, parts)` of a `count` command line cut into at most `parts`
/// parts, each part `(first task, last task, start)`: `start` (bytes) is where the part
/// reads the BED (or the windows) from.
#[pyfunction]
fn count_plan<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    parts: usize,
) -> PyResult<(u64, Vec<PartOfPlan<'py>>)> {
    let plan = run_native(py, || count::count_plan(&count_options(&argv)?, parts))?;
    Ok(plan_to_python(py, plan))
}

/// `count`'s rows of tasks `first..last` of a [`count_plan`] whose part starts at `start`
/// (bytes; with `columns`, the dict `count_table` returns).
#[pyfunction]
#[pyo3(signature = (argv, task_bytes, first, last, start, threads=None, columns=false))]
#[allow(clippy::too_many_arguments)]
fn count_tasks<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    task_bytes: u64,
    first: usize,
    last: usize,
    start: PyBackedBytes,
    threads: Option<usize>,
    columns: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let options = run_native(py, || count_options(&argv))?;
    if columns {
        let table = run_native(py, || {
            count::count_task_table(&options, task_bytes, first..last, &start, threads)
        })?;
        return Ok(count_columns(py, table)?.into_any());
    }
    let bytes = run_native(py, || {
        count::count_tasks(&options, task_bytes, first..last, &start, threads)
    })?;
    Ok(PyBytes::new(py, &bytes).into_any())
}

/// `(task size in BAM bytes, parts)` of a `snp-pileup` command line cut into at most
/// `parts` parts, each part `(first task, last task, start)`: `start` (bytes) is where
/// the part reads the VCF from.
#[pyfunction]
fn snp_pileup_plan<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    parts: usize,
) -> PyResult<(u64, Vec<PartOfPlan<'py>>)> {
    let plan = run_native(py, || {
        snp_pileup::snp_pileup_plan(&snp_pileup_options(&argv)?, parts)
    })?;
    Ok(plan_to_python(py, plan))
}

/// The findings of the tasks `first..last` of a [`snp_pileup_plan`] whose part starts at
/// `start`, as the client's walk and the workers' walks take them (bytes).
#[pyfunction]
#[pyo3(signature = (argv, task_bytes, first, last, start, threads=None))]
fn snp_pileup_tasks<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    task_bytes: u64,
    first: usize,
    last: usize,
    start: PyBackedBytes,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = run_native(py, || {
        let options = snp_pileup_options(&argv)?;
        snp_pileup::snp_pileup_tasks(&options, task_bytes, first..last, &start, threads)
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// The arguments after the command word of `argv` (the command first), which must be
/// `command`.
fn args_of<'a>(argv: &'a [String], command: &str) -> anyhow::Result<&'a [String]> {
    match argv.split_first() {
        Some((first, args)) if first == command => Ok(args),
        _ => anyhow::bail!("not a {command} command line: {argv:?}"),
    }
}

/// The options of an `align` command line (the command first).
pub(crate) fn align_options(argv: &[String]) -> anyhow::Result<AlignOptions> {
    seqfarm_cli::align_options(args_of(argv, "align")?)
}

/// The options of a `count` command line (the command first).
pub(crate) fn count_options(argv: &[String]) -> anyhow::Result<seqfarm::cmd::count::CountOptions> {
    seqfarm_cli::count_options(args_of(argv, "count")?)
}

/// The options of a `search` command line (the command first).
fn search_options(argv: &[String]) -> anyhow::Result<SearchOptions> {
    seqfarm_cli::search_options(args_of(argv, "search")?)
}

/// The options of a `snp-pileup` command line (the command first).
pub(crate) fn snp_pileup_options(
    argv: &[String],
) -> anyhow::Result<seqfarm::cmd::snp_pileup::SnpPileupOptions> {
    seqfarm_cli::snp_pileup_options(args_of(argv, "snp-pileup")?)
}

/// The client's side of `seqfarm.dask.snp_pileup` into a DataFrame: walks the parts'
/// findings in VCF order, the rows kept as values.
#[pyclass(module = "seqfarm._native")]
pub struct SnpPileupWalk {
    merge: Mutex<Option<SnpPileupMerge>>,
}

#[pymethods]
impl SnpPileupWalk {
    #[new]
    fn new(py: Python<'_>, argv: Vec<String>) -> PyResult<Self> {
        let merge = run_native(py, || SnpPileupMerge::start(&snp_pileup_options(&argv)?))?;
        Ok(Self {
            merge: Mutex::new(Some(merge)),
        })
    }

    /// Walks the next part's findings.
    fn add(&self, py: Python<'_>, part: Vec<u8>) -> PyResult<()> {
        let mut slot = self.merge.lock().unwrap_or_else(|e| e.into_inner());
        let mut merge = slot.take();
        let added = run_native(py, || match merge.as_mut() {
            Some(m) => m.add(part),
            None => anyhow::bail!("snp-pileup: the walk has already ended"),
        });
        *slot = merge;
        added
    }

    /// Ends the walk: `(columns, warnings)`, the rows' columns (as `snp_pileup_table`
    /// gives them) and the warnings about the VCF sites skipped, which the command
    /// prints on standard error.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyDict>, Vec<String>)> {
        let merge = self.merge.lock().unwrap_or_else(|e| e.into_inner()).take();
        let (table, warnings) = run_native(py, || match merge {
            Some(m) => m.finish(),
            None => anyhow::bail!("snp-pileup: the walk has already ended"),
        })?;
        Ok((pileup_columns(py, table)?, warnings))
    }
}

/// The header of a `snp-pileup` run in parts walked by the workers, and the carry its
/// first part's walk starts from: `(header, carry)` (see
/// `seqfarm::api::parts::snp_pileup_walk`).
#[pyfunction]
fn snp_pileup_walk_start<'py>(
    py: Python<'py>,
    argv: Vec<String>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let (header, carry) = run_native(py, || {
        walk::snp_pileup_walk_start(&snp_pileup_options(&argv)?)
    })?;
    Ok((PyBytes::new(py, &header), PyBytes::new(py, &carry)))
}

/// Walks consecutive parts' findings from `carry`: `(piece, carry)`, the parts' piece of
/// the output stream and the carry of the next parts' walk.
#[pyfunction]
fn snp_pileup_walk<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    parts: Vec<PyBackedBytes>,
    carry: &[u8],
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let (piece, carry) = run_native(py, || {
        let parts: Vec<&[u8]> = parts.iter().map(|p| &**p).collect();
        walk::snp_pileup_walk(&snp_pileup_options(&argv)?, &parts, carry)
    })?;
    Ok((PyBytes::new(py, &piece), PyBytes::new(py, &carry)))
}

/// The bytes a walk writes into the output, from its piece: the piece itself (the same
/// object) for a plain output.
#[pyfunction]
fn snp_pileup_blocks<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    piece: Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyBytes>> {
    let piece_bytes = piece.as_bytes();
    let blocks = run_native(py, || {
        Ok(walk::snp_pileup_blocks(
            &snp_pileup_options(&argv)?,
            piece_bytes,
        ))
    })?;
    Ok(blocks.map_or(piece, |blocks| PyBytes::new(py, &blocks)))
}

/// What the client writes after the parts, from the last part's carry.
#[pyfunction]
fn snp_pileup_trailer<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    carry: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = run_native(py, || {
        walk::snp_pileup_trailer(&snp_pileup_options(&argv)?, carry)
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// The warnings about the VCF sites skipped, from the last part's carry (the command
/// prints them on standard error).
#[pyfunction]
fn snp_pileup_warnings(py: Python<'_>, argv: Vec<String>, carry: &[u8]) -> PyResult<Vec<String>> {
    run_native(py, || {
        walk::snp_pileup_warnings(&snp_pileup_options(&argv)?, carry)
    })
}

/// Writes `data` at `offset` of the existing file `path` and waits until it is on the
/// filesystem: a part of a job's output, placed by the client and written by the worker
/// that made it. Writing the same bytes again (a part recomputed, a write retried)
/// leaves the same file.
#[pyfunction]
fn write_at(py: Python<'_>, path: PathBuf, offset: u64, data: &[u8]) -> PyResult<u64> {
    run_native(py, || {
        seqfarm_io::output::write_at(&path, offset, data)?;
        Ok(data.len() as u64)
    })
}

/// The number of database chunks of a `search` command line.
#[pyfunction]
fn search_plan(py: Python<'_>, argv: Vec<String>) -> PyResult<usize> {
    run_native(py, || search::search_plan(&search_options(&argv)?))
}

/// Scans chunks `first..last` of a `search` command line's database; the part comes
/// back as bytes for [`search_finish`].
#[pyfunction]
#[pyo3(signature = (argv, first, last, threads=None))]
fn search_chunks<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    first: usize,
    last: usize,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let part = run_native(py, || {
        search::search_chunks(&search_options(&argv)?, first..last, threads)
    })?;
    Ok(PyBytes::new(py, &part.to_bytes()))
}

/// Writes the output file of a `search` command line from its parts, in database order;
/// with `keep`, writes nothing and returns the results as `search_table` does.
#[pyfunction]
#[pyo3(signature = (argv, parts, threads=None, keep=false))]
fn search_finish<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    parts: Vec<Vec<u8>>,
    threads: Option<usize>,
    keep: bool,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let results = run_native(py, || {
        let parts = parts
            .iter()
            .map(|bytes| SearchPart::from_bytes(bytes))
            .collect::<anyhow::Result<Vec<_>>>()?;
        search::search_finish(&search_options(&argv)?, parts, threads, keep)
    })?;
    results
        .map(|results| search_results(py, results))
        .transpose()
}

/// Adds the parts' functions and classes to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::align_parts::register(m)?;
    crate::parts_output::register(m)?;
    m.add_function(wrap_pyfunction!(write_at, m)?)?;
    m.add_function(wrap_pyfunction!(align_header, m)?)?;
    m.add_function(wrap_pyfunction!(align_trailer, m)?)?;
    m.add_function(wrap_pyfunction!(align_summary, m)?)?;
    m.add_function(wrap_pyfunction!(flagstat_plan, m)?)?;
    m.add_function(wrap_pyfunction!(flagstat_groups, m)?)?;
    m.add_function(wrap_pyfunction!(flagstat_render, m)?)?;
    m.add_function(wrap_pyfunction!(count_plan, m)?)?;
    m.add_function(wrap_pyfunction!(count_tasks, m)?)?;
    m.add_function(wrap_pyfunction!(snp_pileup_plan, m)?)?;
    m.add_function(wrap_pyfunction!(snp_pileup_tasks, m)?)?;
    m.add_class::<SnpPileupWalk>()?;
    m.add_function(wrap_pyfunction!(snp_pileup_walk_start, m)?)?;
    m.add_function(wrap_pyfunction!(snp_pileup_walk, m)?)?;
    m.add_function(wrap_pyfunction!(snp_pileup_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(snp_pileup_trailer, m)?)?;
    m.add_function(wrap_pyfunction!(snp_pileup_warnings, m)?)?;
    m.add_function(wrap_pyfunction!(search_plan, m)?)?;
    m.add_function(wrap_pyfunction!(search_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(search_finish, m)?)?;
    Ok(())
}
