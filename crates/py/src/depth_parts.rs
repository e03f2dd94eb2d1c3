//! The native half of `seqfarm.dask.depth`: the steps of a depth run in parts
//! (`seqfarm::api::parts::depth`), each a function of bytes, so that Dask moves the
//! parts' results between workers and keeps them off the client.

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use seqfarm::api::parts::depth::{self, DepthCollector};
use seqfarm::api::parts::PartBytes;
use seqfarm::cmd::depth::DepthOptions;
use seqfarm_io::bgzf_writer::placed::SpanOffsets;

use crate::errors::run_native;

/// The BAM, the output prefix and the options of a `depth` command line (the command
/// first).
pub(crate) fn depth_args(argv: &[String]) -> anyhow::Result<(PathBuf, PathBuf, DepthOptions)> {
    match argv.split_first() {
        Some((first, args)) if first == "depth" => seqfarm_cli::depth_options(args),
        _ => anyhow::bail!("not a depth command line: {argv:?}"),
    }
}

/// Runs a `depth` command line (the command first) in this process, as `seqfarm depth`
/// runs it, writing its files.
#[pyfunction]
fn depth_files(py: Python<'_>, argv: Vec<String>) -> PyResult<()> {
    crate::errors::run_interruptible(py, || {
        let (bam, prefix, options) = depth_args(&argv)?;
        seqfarm::cmd::depth::run(&bam, &prefix, &options)
    })
}

/// Tasks `first..last` of a plan (`DepthWalk.plan`): the part's rows and figures, as bytes.
#[pyfunction]
#[pyo3(signature = (argv, task_bytes, first, last, threads=None))]
fn depth_tasks<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    task_bytes: u64,
    first: usize,
    last: usize,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let part = run_native(py, || {
        let (bam, _, options) = depth_args(&argv)?;
        depth::depth_tasks(&bam, &options, task_bytes, first..last, threads)
    })?;
    part_bytes(py, &part)
}

/// A part's result as a Python bytes object, written straight into it (without the GIL):
/// a part's rows are its largest result, and each copy of them costs fresh pages.
fn part_bytes<'py>(py: Python<'py>, part: &PartBytes) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, part.len(), |buffer| {
        py.detach(|| part.write_into(buffer));
        Ok(())
    })
}

/// Runs `step` on bytes and returns its bytes.
fn bytes_step<'py>(
    py: Python<'py>,
    step: impl FnOnce() -> anyhow::Result<Vec<u8>> + Send,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = run_native(py, step)?;
    Ok(PyBytes::new(py, &bytes))
}

/// What the client learns of a part: its figures, edge runs and sizes.
#[pyfunction]
fn depth_part_summary<'py>(py: Python<'py>, part: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    bytes_step(py, || depth::depth_part_summary(part))
}

/// A part compressed as its plan (from `DepthWalk.finish`) places it.
#[pyfunction]
fn depth_compress<'py>(py: Python<'py>, part: &[u8], plan: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let compressed = run_native(py, || depth::depth_compress(part, plan))?;
    part_bytes(py, &compressed)
}

/// The compressed sizes of a compressed part's inner blocks, by output.
#[pyfunction]
fn depth_inner_sizes(py: Python<'_>, compressed: &[u8]) -> PyResult<Vec<u64>> {
    run_native(py, || depth::depth_inner_sizes(compressed))
}

/// A compressed part's pieces of the seams.
#[pyfunction]
fn depth_pieces<'py>(py: Python<'py>, compressed: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    bytes_step(py, || depth::depth_pieces(compressed))
}

/// Seam block `block` of output `stream`, compressed from `header` and the parts' pieces.
#[pyfunction]
fn depth_seam<'py>(
    py: Python<'py>,
    stream: usize,
    block: u64,
    header: &[u8],
    pieces: Vec<Vec<u8>>,
) -> PyResult<Bound<'py, PyBytes>> {
    bytes_step(py, || {
        let pieces: Vec<&[u8]> = pieces.iter().map(Vec::as_slice).collect();
        depth::depth_seam(stream, block, header, &pieces)
    })
}

/// Writes a compressed part's inner blocks into `paths` (by output) at `offsets` (by
/// output: `(head, inner, after)` from `DepthWalk.place`); its line groups, as bytes.
#[pyfunction]
fn depth_write<'py>(
    py: Python<'py>,
    compressed: &[u8],
    paths: Vec<Option<PathBuf>>,
    offsets: Vec<Option<(u64, u64, u64)>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let offsets: Vec<Option<SpanOffsets>> = offsets
        .into_iter()
        .map(|o| o.map(|(head, inner, after)| SpanOffsets { head, inner, after }))
        .collect();
    bytes_step(py, || depth::depth_write(compressed, &paths, &offsets))
}

/// Writes the CSI index of output `stream` to `path` from the parts' line groups.
#[pyfunction]
fn depth_index(
    py: Python<'_>,
    argv: Vec<String>,
    stream: usize,
    path: PathBuf,
    groups: Vec<Vec<u8>>,
) -> PyResult<()> {
    run_native(py, || {
        let (bam, _, options) = depth_args(&argv)?;
        let groups: Vec<&[u8]> = groups.iter().map(Vec::as_slice).collect();
        depth::depth_index(&bam, &options, stream, &path, &groups)
    })
}

/// The client's walk of a depth run's parts: their summaries in order, then the layout
/// of the outputs and the places of the parts' and seams' blocks.
#[pyclass(module = "seqfarm._native")]
pub struct DepthWalk {
    collector: Mutex<DepthCollector>,
}

#[pymethods]
impl DepthWalk {
    #[new]
    fn new(py: Python<'_>, argv: Vec<String>) -> PyResult<Self> {
        let collector = run_native(py, || {
            let (bam, _, options) = depth_args(&argv)?;
            DepthCollector::new(&bam, &options)
        })?;
        Ok(Self {
            collector: Mutex::new(collector),
        })
    }

    /// `(task size in BAM bytes, tasks)` of the run spread over `parts` parts.
    fn plan(&self, py: Python<'_>, parts: usize) -> PyResult<(u64, usize)> {
        let collector = self.collector.lock().unwrap_or_else(|e| e.into_inner());
        let collector = &*collector;
        run_native(py, || collector.plan(parts))
    }

    /// Walks the next part's summary.
    fn add(&self, py: Python<'_>, summary: &[u8]) -> PyResult<()> {
        let mut collector = self.collector.lock().unwrap_or_else(|e| e.into_inner());
        let collector = &mut *collector;
        run_native(py, || collector.add(summary))
    }

    /// Ends the walk: a dict of `plans` (bytes per part), `seams` (per output, `(block,
    /// parts)`), `headers` (bytes per output), `written` (per output) and `texts` (the
    /// three text outputs).
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut collector = self.collector.lock().unwrap_or_else(|e| e.into_inner());
        let collector = &mut *collector;
        let layout = run_native(py, || collector.finish())?;
        let dict = PyDict::new(py);
        let plans: Vec<Bound<'py, PyBytes>> =
            layout.plans.iter().map(|p| PyBytes::new(py, p)).collect();
        dict.set_item("plans", plans)?;
        dict.set_item("seams", layout.seams)?;
        let headers: Vec<Bound<'py, PyBytes>> =
            layout.headers.iter().map(|h| PyBytes::new(py, h)).collect();
        dict.set_item("headers", headers)?;
        dict.set_item("written", layout.written)?;
        dict.set_item("texts", layout.texts.to_vec())?;
        Ok(dict)
    }

    /// Where output `stream`'s blocks go: `(parts' (head, inner, after) offsets, seams'
    /// offsets, end-of-file offset)`.
    #[allow(clippy::type_complexity)]
    fn place(
        &self,
        py: Python<'_>,
        stream: usize,
        inner: Vec<u64>,
        seams: Vec<u64>,
    ) -> PyResult<(Vec<(u64, u64, u64)>, Vec<u64>, u64)> {
        let collector = self.collector.lock().unwrap_or_else(|e| e.into_inner());
        let collector = &*collector;
        let placement = run_native(py, || collector.place(stream, &inner, &seams))?;
        let parts = placement
            .parts
            .iter()
            .map(|o| (o.head, o.inner, o.after))
            .collect();
        Ok((parts, placement.seams, placement.eof))
    }
}

/// Adds the depth parts' functions and classes to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(depth_files, m)?)?;
    m.add_function(wrap_pyfunction!(depth_tasks, m)?)?;
    m.add_function(wrap_pyfunction!(depth_part_summary, m)?)?;
    m.add_function(wrap_pyfunction!(depth_compress, m)?)?;
    m.add_function(wrap_pyfunction!(depth_inner_sizes, m)?)?;
    m.add_function(wrap_pyfunction!(depth_pieces, m)?)?;
    m.add_function(wrap_pyfunction!(depth_seam, m)?)?;
    m.add_function(wrap_pyfunction!(depth_write, m)?)?;
    m.add_function(wrap_pyfunction!(depth_index, m)?)?;
    m.add_class::<DepthWalk>()?;
    m.add("DEPTH_STREAMS", depth::STREAMS.to_vec())?;
    m.add("DEPTH_TEXTS", depth::TEXTS.to_vec())?;
    Ok(())
}
