//! `seqfarm._native.Index`: an FM-index loaded once (memory-mapped) and queried as
//! `seqfarm locate` queries it; `build_index`, an index built as `seqfarm index` builds
//! it.

use std::path::PathBuf;
use std::sync::Arc;

use pyo3::prelude::*;
use seqfarm::api::index::{build_index as build, parse_size, IndexOptions, LoadedIndex};
use seqfarm::OptionValueError;

use crate::errors::{run_interruptible, run_native};

/// Builds the index of `fasta` into `PREFIX.sfi` (`seqfarm index -o PREFIX`); `memory`
/// is bytes or a size such as `"2G"`; `None` takes the command's default.
#[pyfunction]
#[pyo3(signature = (fasta, prefix, threads=None, memory=None, sa_rate=None, kmer=None, stats=None, force=false))]
#[allow(clippy::too_many_arguments)]
pub fn build_index(
    py: Python<'_>,
    fasta: PathBuf,
    prefix: PathBuf,
    threads: Option<usize>,
    memory: Option<Bound<'_, PyAny>>,
    sa_rate: Option<u32>,
    kmer: Option<u32>,
    stats: Option<PathBuf>,
    force: bool,
) -> PyResult<()> {
    let memory = match memory {
        None => Ok(None),
        Some(value) => match value.extract::<u64>() {
            Ok(bytes) => Ok(Some(bytes)),
            Err(_) => parse_size(&value.str()?.to_string()).map(Some),
        },
    };
    let options = IndexOptions {
        threads,
        sa_rate: sa_rate.unwrap_or(IndexOptions::default().sa_rate),
        kmer,
        stats,
        force,
        ..IndexOptions::default()
    };
    run_interruptible(py, move || {
        let memory = memory.map_err(|message| OptionValueError(format!("memory: {message}")))?;
        build(&fasta, Some(&prefix), &IndexOptions { memory, ..options })?;
        Ok(())
    })
}

/// A hit as Python receives it: contig, 1-based position, strand.
type PyHit = (String, u64, String);

/// An index file `PREFIX.sfi`, loaded once; aligners built on it share it.
#[pyclass(module = "seqfarm._native", name = "Index", frozen)]
pub struct NativeIndex {
    pub(crate) loaded: Arc<LoadedIndex>,
}

#[pymethods]
impl NativeIndex {
    /// Loads `PREFIX.sfi`.
    #[new]
    fn new(py: Python<'_>, prefix: PathBuf) -> PyResult<Self> {
        let loaded = run_native(py, || LoadedIndex::open(&prefix))?;
        Ok(Self {
            loaded: Arc::new(loaded),
        })
    }

    /// The prefix the index was loaded from.
    #[getter]
    fn prefix(&self) -> PathBuf {
        self.loaded.prefix().to_path_buf()
    }

    /// The contigs as `(name, length)`, in FASTA order.
    fn contigs(&self) -> Vec<(String, u64)> {
        self.loaded
            .contigs()
            .into_iter()
            .map(|c| (c.name, c.len))
            .collect()
    }

    /// Occurrences of each pattern on both strands (`seqfarm locate --max-hits 0`).
    fn count(&self, py: Python<'_>, patterns: Vec<String>) -> PyResult<Vec<u64>> {
        run_native(py, || self.loaded.count(&patterns))
    }

    /// `(count, hits)` of `pattern`: the first `max_hits` hits in genome order as
    /// `(contig, 1-based position, "+" or "-")`.
    fn locate(
        &self,
        py: Python<'_>,
        pattern: String,
        max_hits: usize,
    ) -> PyResult<(u64, Vec<PyHit>)> {
        let (count, hits) = run_native(py, || self.loaded.locate(&pattern, max_hits))?;
        let hits = hits
            .into_iter()
            .map(|hit| (hit.contig, hit.position, hit.strand.to_string()))
            .collect();
        Ok((count, hits))
    }
}
