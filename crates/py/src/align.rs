//! `seqfarm._native.Aligner`: bowtie2 options parsed by `seqfarm align`'s own parser,
//! an index loaded once, reads aligned in memory or whole files aligned as the command
//! aligns them.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use seqfarm::api::align::{MemoryFragment, MemoryRead, ReadAligner};
use seqfarm::cmd::align::{command_line, AlignRun};

use crate::errors::{run_interruptible, run_native};
use crate::index::NativeIndex;

/// A read from Python: name, bases, qualities (or `None`).
type PyRead = (String, String, Option<String>);

/// An aligner on a loaded index with its options checked.
#[pyclass(module = "seqfarm._native", name = "Aligner", frozen)]
pub struct NativeAligner {
    aligner: ReadAligner,
    /// The options as given (`seqfarm align` arguments).
    options: Vec<String>,
    /// `-x PREFIX` of the loaded index.
    index: Vec<String>,
}

#[pymethods]
impl NativeAligner {
    /// An aligner on `index` with `options` (`seqfarm align` arguments without `-x`,
    /// reads or outputs).
    #[new]
    fn new(py: Python<'_>, index: &NativeIndex, options: Vec<String>) -> PyResult<Self> {
        let loaded = index.loaded.clone();
        let index = vec![
            "-x".to_string(),
            loaded.prefix().to_string_lossy().into_owned(),
        ];
        let aligner = run_native(py, || {
            let argv: Vec<String> = [&options[..], &index, &["-U".into(), "-".into()]].concat();
            let command = command_line(program().chain(options.iter().chain(&index).cloned()));
            ReadAligner::new(loaded, seqfarm_cli::align_options(&argv)?, &command)
        })?;
        Ok(Self {
            aligner,
            options,
            index,
        })
    }

    /// The SAM header of the records `align` returns.
    fn header(&self) -> String {
        self.aligner.header_text().to_string()
    }

    /// SAM records (no header) of `fragments`, each a list of one read (unpaired) or
    /// two (mates), a read being `(name, bases, qualities or None)`.
    fn align(&self, py: Python<'_>, fragments: Vec<Vec<PyRead>>) -> PyResult<Py<PyBytes>> {
        let fragments = fragments
            .into_iter()
            .map(|mut reads| match reads.len() {
                1 => Ok(MemoryFragment::Single(memory_read(reads.remove(0)))),
                2 => {
                    let second = memory_read(reads.remove(1));
                    Ok(MemoryFragment::Pair(memory_read(reads.remove(0)), second))
                }
                n => Err(crate::errors::InputError::new_err(format!(
                    "a fragment is one read or two mates, not {n}"
                ))),
            })
            .collect::<PyResult<Vec<_>>>()?;
        let records = run_native(py, || self.aligner.align(&fragments))?;
        Ok(PyBytes::new(py, &records).unbind())
    }

    /// Runs `seqfarm align OPTIONS MORE -x PREFIX INPUTS` on the loaded index; returns
    /// `(counts, summary text)`.
    fn align_files<'py>(
        &self,
        py: Python<'py>,
        more: Vec<String>,
        inputs: Vec<String>,
    ) -> PyResult<(Bound<'py, PyDict>, String)> {
        let summary = run_interruptible(py, || {
            let argv: Vec<String> = [&self.options[..], &more, &self.index, &inputs].concat();
            let args = seqfarm_cli::align_args(&argv)?;
            let run = AlignRun {
                command_line: command_line(program().chain(argv.iter().cloned())),
                index: Some(self.aligner.index()),
                print_summary: false,
            };
            args.execute(&run)
        })?;
        let c = &summary.counts;
        let counts = PyDict::new(py);
        counts.set_item("reads", c.fragments())?;
        counts.set_item("unpaired", c.unpaired.total())?;
        counts.set_item("unpaired_aligned_0", c.unpaired.zero)?;
        counts.set_item("unpaired_aligned_1", c.unpaired.once)?;
        counts.set_item("unpaired_aligned_more", c.unpaired.more)?;
        counts.set_item("paired", c.pairs())?;
        counts.set_item("concordant_0", c.concordant.zero)?;
        counts.set_item("concordant_1", c.concordant.once)?;
        counts.set_item("concordant_more", c.concordant.more)?;
        counts.set_item("discordant", c.discordant)?;
        counts.set_item("mates", c.mates.total())?;
        counts.set_item("mates_aligned_0", c.mates.zero)?;
        counts.set_item("mates_aligned_1", c.mates.once)?;
        counts.set_item("mates_aligned_more", c.mates.more)?;
        let rate = match c.reads() {
            0 => 0.0,
            reads => 100.0 * c.aligned_reads() as f64 / reads as f64,
        };
        counts.set_item("overall_alignment_rate", rate)?;
        Ok((counts, summary.text()))
    }
}

/// The program and command names that begin the `@PG CL:` command line.
fn program() -> impl Iterator<Item = String> {
    ["seqfarm", "align"].into_iter().map(String::from)
}

fn memory_read((name, bases, qualities): PyRead) -> MemoryRead {
    MemoryRead {
        name,
        bases,
        qualities,
    }
}
