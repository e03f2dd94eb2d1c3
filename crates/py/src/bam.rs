//! `seqfarm._native.BamReader`: an indexed BAM read by memory map, its records handed to
//! Python as NumPy columns, one batch per region. Native threads read and decode the
//! regions in parallel with the GIL released ([`RegionMap`]); the caller's Python function
//! runs on each batch in region order, on the calling thread (while the workers read on)
//! or on the worker threads, each taking the GIL in turn.

use std::path::PathBuf;

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use seqfarm_io::alignment_file::{open_by_region, ReadOptions};
use seqfarm_io::bam::{BamSet, Records, Region, RegionMap};

use crate::errors::{run_native, to_python};

/// The columns of one region's records.
#[derive(Debug, Default)]
struct Columns {
    tid: Vec<i32>,
    pos: Vec<i64>,
    end: Vec<i64>,
    flag: Vec<u16>,
    mapq: Vec<u8>,
    length: Vec<i32>,
}

impl Columns {
    /// Reads the records of the region (of the set's one BAM) into columns.
    fn read(records: &mut Records<'_>) -> Self {
        let mut c = Columns::default();
        records.for_each_in(0, |r| {
            c.tid.push(r.ref_id());
            c.pos.push(i64::from(r.pos()));
            c.end.push(r.alignment_end());
            c.flag.push(r.flag());
            c.mapq.push(r.mapq());
            c.length.push(r.l_seq() as i32);
        });
        c
    }

    /// The columns as a dict of NumPy arrays (the vectors are moved, not copied).
    fn into_dict(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("tid", self.tid.into_pyarray(py))?;
        d.set_item("pos", self.pos.into_pyarray(py))?;
        d.set_item("end", self.end.into_pyarray(py))?;
        d.set_item("flag", self.flag.into_pyarray(py))?;
        d.set_item("mapq", self.mapq.into_pyarray(py))?;
        d.set_item("length", self.length.into_pyarray(py))?;
        Ok(d)
    }
}

/// An indexed BAM, mapped once and shared by every call.
#[pyclass(frozen, module = "seqfarm._native")]
pub struct BamReader {
    bams: BamSet,
}

#[pymethods]
impl BamReader {
    /// Opens the BAM at `path` and its index (`.bai` or `.csi` beside it).
    #[new]
    fn new(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let bams = run_native(py, || Ok(open_by_region(&[path], &ReadOptions::default())?))?;
        Ok(Self { bams })
    }

    /// The references of the header: `(name, length)` in header order.
    fn references(&self) -> Vec<(String, u64)> {
        self.bams.header().map_or_else(Vec::new, |h| {
            h.references
                .iter()
                .map(|r| (r.name.clone(), u64::from(r.length)))
                .collect()
        })
    }

    /// The records overlapping `[start, end)` of reference `tid`, as a dict of NumPy
    /// arrays (`tid`, `pos`, `end`, `flag`, `mapq`, `length`).
    fn fetch<'py>(
        &self,
        py: Python<'py>,
        tid: usize,
        start: u64,
        end: u64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let columns = run_native(py, || {
            let map = RegionMap::new(&self.bams).regions([Region::new(tid, start, end)]);
            let mut batches = map
                .run(1, |_, records| Columns::read(records))
                .map_err(farm_error)?;
            Ok(batches.pop().unwrap_or_default())
        })?;
        columns.into_dict(py)
    }

    /// `func(batch)` for each region `(tid, start, end)`, results in region order;
    /// `threads`: reading threads (`None`: one per core); `in_workers`: call `func` on
    /// the reading threads instead of the calling one.
    #[pyo3(signature = (func, regions, threads=None, in_workers=false))]
    fn map_regions(
        &self,
        py: Python<'_>,
        func: Py<PyAny>,
        regions: Vec<(usize, u64, u64)>,
        threads: Option<usize>,
        in_workers: bool,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let map = RegionMap::new(&self.bams)
            .regions(regions.iter().map(|&(tid, s, e)| Region::new(tid, s, e)));
        let threads = threads.unwrap_or(0);
        let call = |columns: Columns| -> anyhow::Result<Py<PyAny>> {
            Python::attach(|py| Ok(func.call1(py, (columns.into_dict(py)?,))?))
        };
        run_native(py, || {
            let mut results = Vec::with_capacity(regions.len());
            let run = if in_workers {
                map.run_each(
                    threads,
                    |_, records| call(Columns::read(records)),
                    |_, value| {
                        results.push(value);
                        Ok(())
                    },
                )
            } else {
                map.run_each(
                    threads,
                    |_, records| Ok::<_, anyhow::Error>(Columns::read(records)),
                    |_, columns| {
                        results.push(call(columns)?);
                        Ok(())
                    },
                )
            };
            // A Python exception raised by `func` goes back to Python as it is.
            Ok(match run.map_err(farm_error) {
                Ok(()) => Ok(results),
                Err(e) => match e.downcast::<PyErr>() {
                    Ok(python) => Err(python),
                    Err(other) => Err(to_python(&other)),
                },
            })
        })?
    }
}

/// A farm's error as the error it stopped with (a panic or a failed start as a message).
fn farm_error<E>(error: seqfarm_farm::FarmError<E>) -> anyhow::Error
where
    E: Into<anyhow::Error> + std::fmt::Display,
{
    match error.into_source() {
        Ok(source) => source.into(),
        Err(other) => anyhow::anyhow!("{other}"),
    }
}
