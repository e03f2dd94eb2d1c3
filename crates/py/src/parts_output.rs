//! The output files of a command line run in parts: opened by the client as the command
//! opens them, written by the client or (at offsets) by the workers, renamed into place
//! together once the job has succeeded.

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::prelude::*;
use seqfarm::api::parts::{align, count, depth};
use seqfarm_io::output::Output;

use crate::errors::run_native;

/// The name of a run's main output (`align`'s BAM or SAM, `count`'s table).
const MAIN: &str = "";
/// The name of a sorted BAM's index.
const INDEX: &str = "index";

/// The outputs of an `align`, `count` or `depth` command line run in parts, each opened
/// as the command opens it (its rule for an existing file, never an input nor another
/// output) through a temporary file beside it, and known by a name: `""` for the main
/// output, `"index"` for a sorted BAM's index, a depth file's suffix
/// (`.regions.bed.gz`, `.regions.bed.gz.csi`, `.mosdepth.summary.txt`...). `commit`
/// renames them all into place; `discard`, or dropping them uncommitted, removes the
/// temporary files.
#[pyclass(module = "seqfarm._native")]
pub struct PartsOutput {
    outputs: Mutex<Option<Vec<(String, Output)>>>,
}

/// The outputs of `argv` (the command first), named.
fn open_outputs(argv: &[String]) -> anyhow::Result<Vec<(String, Output)>> {
    match argv.first().map(String::as_str) {
        Some("align") => {
            let options = crate::parts::align_options(argv)?;
            let mut outputs = vec![(MAIN.to_string(), align::align_output(&options)?)];
            if options.sort {
                let index = align::sorted::sorted_index_output(&options)?;
                outputs.push((INDEX.to_string(), index));
            }
            Ok(outputs)
        }
        Some("count") => {
            let options = crate::parts::count_options(argv)?;
            Ok(vec![(MAIN.to_string(), count::count_output(&options)?)])
        }
        Some("snp-pileup") => {
            let options = crate::parts::snp_pileup_options(argv)?;
            let output = seqfarm::cmd::snp_pileup::open_output(&options)?;
            Ok(vec![(MAIN.to_string(), output)])
        }
        Some("depth") => {
            let (bam, prefix, options) = crate::depth_parts::depth_args(argv)?;
            depth::depth_outputs(&bam, &prefix, &options)
        }
        other => {
            anyhow::bail!(
                "no output written from parts for {other:?} (align, count, depth or snp-pileup)"
            )
        }
    }
}

impl PartsOutput {
    /// Runs `f` on the output named `name`.
    fn with<T>(
        &self,
        name: &str,
        f: impl FnOnce(&mut Output) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let mut slot = self.outputs.lock().unwrap_or_else(|e| e.into_inner());
        let outputs = slot
            .as_mut()
            .ok_or_else(|| anyhow::anyhow!("the outputs are already closed"))?;
        match outputs.iter_mut().find(|(n, _)| n == name) {
            Some((_, output)) => f(output),
            None => anyhow::bail!("no output {name:?} in this run"),
        }
    }
}

#[pymethods]
impl PartsOutput {
    #[new]
    fn new(py: Python<'_>, argv: Vec<String>) -> PyResult<Self> {
        let outputs = run_native(py, || open_outputs(&argv))?;
        Ok(Self {
            outputs: Mutex::new(Some(outputs)),
        })
    }

    /// Appends `data` to the output named `name`.
    #[pyo3(signature = (data, name=MAIN))]
    fn write(&self, py: Python<'_>, data: &[u8], name: &str) -> PyResult<()> {
        run_native(py, || self.with(name, |output| Ok(output.put(data)?)))
    }

    /// Writes the bytes appended so far to the output named `name`.
    #[pyo3(signature = (name=MAIN))]
    fn flush(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        run_native(py, || {
            self.with(name, |output| {
                use std::io::Write as _;
                output.flush().map_err(|e| output.error(e).into())
            })
        })
    }

    /// The temporary file the output named `name` is written to until the commit (an
    /// absolute path: the workers do not share the client's working directory), where
    /// parts can write their bytes themselves (`write_at`); none for standard output.
    #[pyo3(signature = (name=MAIN))]
    fn temporary_path(&self, py: Python<'_>, name: &str) -> PyResult<Option<PathBuf>> {
        run_native(py, || {
            self.with(name, |output| {
                Ok(output
                    .temporary_path()
                    .map(std::path::absolute)
                    .transpose()?)
            })
        })
    }

    /// Renames every output into place, as one set.
    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        let outputs = self
            .outputs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        run_native(py, || match outputs {
            Some(outputs) => Ok(Output::commit_together(
                outputs.into_iter().map(|(_, output)| output).collect(),
            )?),
            None => anyhow::bail!("the outputs are already closed"),
        })
    }

    /// Gives the outputs up: their temporary files are removed, existing files left as
    /// they were.
    fn discard(&self) {
        drop(
            self.outputs
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take(),
        );
    }
}

/// Adds the class to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PartsOutput>()?;
    let eof = pyo3::types::PyBytes::new(m.py(), &seqfarm_io::bgzf_writer::EOF_MARKER);
    m.add("BGZF_EOF", eof)?;
    Ok(())
}
