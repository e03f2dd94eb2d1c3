//! The native half of `seqfarm.dask.align`: the reads planned into parts (by byte
//! ranges the workers count, or read by the planner when workers cannot read them at an
//! offset), and a part aligned on a worker.

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use seqfarm::api::parts::align::ranges::{
    self, PartSize, ReadAccess, ReadLayout, ReadRange, ReadStorage,
};
use seqfarm::api::parts::align::sorted;
use seqfarm::api::parts::align::{self, AlignPart, PartFile, PartReads};
use seqfarm_io::reads::RangeRecords;

use crate::errors::run_native;
use crate::parts::align_options;

/// One file's share of a part as Python holds it: `(path, offset, access point or None,
/// records to skip, records or None)`.
type FileTuple<'py> = (
    PathBuf,
    u64,
    Option<usize>,
    u64,
    Option<Bound<'py, PyBytes>>,
);

/// A part as Python holds it: `(source, first_fragment, records_before_1,
/// records_before_2, fragments, [file, ...])`.
type PartTuple<'py> = (usize, u64, u64, u64, u64, Vec<FileTuple<'py>>);

/// A part's unplaced records of one strand in its spill file as Python holds it:
/// `(reverse, offset, length, records)`.
type UnplacedTuple = (bool, u64, u64, u64);

/// A range as Python holds it: `(path, start, end, access point or None)`.
type RangeTuple = (PathBuf, u64, u64, Option<usize>);

/// How a file is read from its middle as Python holds it: `("plain", length, None)` or
/// `("gzip", inflated length, [access points' inflated offsets])`.
type AccessTuple = (String, u64, Option<Vec<u64>>);
/// A counted range: the range, then its records and the offsets of every 1024th.
type CountedTuple = (RangeTuple, (u64, Vec<u64>));

fn part_tuple<'py>(py: Python<'py>, part: &AlignPart) -> PartTuple<'py> {
    let files = part
        .files
        .iter()
        .map(|f| match &f.reads {
            PartReads::Carried(data) => (f.path.clone(), 0, None, 0, Some(PyBytes::new(py, data))),
            PartReads::InFile {
                offset,
                point,
                skip,
            } => (f.path.clone(), *offset, *point, *skip, None),
        })
        .collect();
    (
        part.source,
        part.first_fragment,
        part.records_before[0],
        part.records_before[1],
        part.fragments,
        files,
    )
}

fn part_of(part: PartTuple<'_>) -> AlignPart {
    let (source, first_fragment, before1, before2, fragments, files) = part;
    AlignPart {
        source,
        first_fragment,
        records_before: [before1, before2],
        fragments,
        files: files
            .into_iter()
            .map(|(path, offset, point, skip, data)| PartFile {
                path,
                reads: match data {
                    Some(d) => PartReads::Carried(d.as_bytes().to_vec()),
                    None => PartReads::InFile {
                        offset,
                        point,
                        skip,
                    },
                },
            })
            .collect(),
    }
}

fn access_of(access: Vec<AccessTuple>) -> Vec<ReadAccess> {
    access
        .into_iter()
        .map(|(kind, length, points)| match (kind.as_str(), points) {
            ("gzip", Some(points)) => ReadAccess::Gzip { points, length },
            _ => ReadAccess::Plain { len: length },
        })
        .collect()
}

fn range_of((path, start, end, point): RangeTuple) -> ReadRange {
    ReadRange {
        path,
        start,
        end,
        point,
    }
}

/// Cuts the reads of an `align` command line into parts of `tasks_per_part` of the
/// command's tasks (the client's side of `seqfarm.dask.align`).
#[pyclass(module = "seqfarm._native")]
pub struct AlignPlanner {
    planner: Mutex<align::AlignPlanner>,
}

#[pymethods]
impl AlignPlanner {
    #[new]
    fn new(py: Python<'_>, argv: Vec<String>, tasks_per_part: usize) -> PyResult<Self> {
        let planner = run_native(py, || {
            align::AlignPlanner::new(&align_options(&argv)?, tasks_per_part)
        })?;
        Ok(Self {
            planner: Mutex::new(planner),
        })
    }

    /// The next part as a tuple (see the module), `None` at the end of the input.
    fn next_part<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let mut planner = self.planner.lock().unwrap_or_else(|e| e.into_inner());
        let planner = &mut *planner;
        let Some(part) = run_native(py, || planner.next_part())? else {
            return Ok(None);
        };
        let tuple = part_tuple(py, &part);
        Ok(Some(tuple.into_pyobject(py)?.into_any()))
    }
}

/// Aligns one part on `threads` threads: `(output bytes, summary counts)`.
#[pyfunction]
#[pyo3(signature = (argv, part, threads=None))]
fn align_part<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    part: PartTuple<'py>,
    threads: Option<usize>,
) -> PyResult<(Bound<'py, PyBytes>, Vec<u64>)> {
    let part = part_of(part);
    let aligned = run_native(py, || {
        align::align_part(&align_options(&argv)?, &part, threads)
    })?;
    Ok((PyBytes::new(py, &aligned.out), aligned.counts))
}

/// The read files of an `align` command line, each `(path, "plain" | "gzip" |
/// "other", length of a plain file)`; `None` when its reads cannot be cut by ranges.
#[pyfunction]
fn align_read_files(
    py: Python<'_>,
    argv: Vec<String>,
) -> PyResult<Option<Vec<(PathBuf, String, u64)>>> {
    run_native(py, || {
        let options = align_options(&argv)?;
        align::refuse_in_parts(&options)?;
        let Some(layout) = ReadLayout::new(&options) else {
            return Ok(None);
        };
        let mut files = Vec::new();
        for path in layout.files() {
            let (kind, len) = match ranges::read_storage(&path) {
                ReadStorage::Plain { len } => ("plain", len),
                ReadStorage::Gzip => ("gzip", 0),
                ReadStorage::Other => ("other", 0),
            };
            files.push((path, kind.to_string(), len));
        }
        Ok(Some(files))
    })
}

/// Runs on a worker: the access points of the gzip file `path`, a read file of an
/// `align` command line, made and kept beside it when it has none (about one per `span`
/// inflated bytes), as an access tuple; with the file's records as one counted range
/// when the index holds them.
#[pyfunction]
fn gzip_access(
    py: Python<'_>,
    argv: Vec<String>,
    path: PathBuf,
    span: u64,
) -> PyResult<(AccessTuple, Option<CountedTuple>)> {
    run_native(py, || {
        let (access, counted) = ranges::gzip_access(&align_options(&argv)?, &path, span)?;
        let access = match access {
            ReadAccess::Gzip { points, length } => ("gzip".to_string(), length, Some(points)),
            ReadAccess::Plain { len } => ("plain".to_string(), len, None),
        };
        let counted = counted.map(|(range, records)| {
            let range = (range.path, range.start, range.end, range.point);
            (range, (records.records, records.anchors))
        });
        Ok((access, counted))
    })
}

/// The ranges workers count records in, from each read file's access tuple.
#[pyfunction]
fn align_ranges(
    py: Python<'_>,
    argv: Vec<String>,
    access: Vec<AccessTuple>,
    range_bytes: u64,
) -> PyResult<Vec<RangeTuple>> {
    run_native(py, || {
        Ok(range_layout(&argv)?
            .ranges(&access_of(access), range_bytes)
            .into_iter()
            .map(|r| (r.path, r.start, r.end, r.point))
            .collect())
    })
}

/// Runs on a worker: `(records, offsets of every 1024th)` of a range.
#[pyfunction]
fn align_count_range(
    py: Python<'_>,
    argv: Vec<String>,
    range: RangeTuple,
) -> PyResult<(u64, Vec<u64>)> {
    run_native(py, || {
        let counted = ranges::count_range(&align_options(&argv)?, &range_of(range))?;
        Ok((counted.records, counted.anchors))
    })
}

/// The layout of an `align` command line's reads, for cutting them by ranges.
fn range_layout(argv: &[String]) -> anyhow::Result<ReadLayout> {
    ReadLayout::new(&align_options(argv)?)
        .ok_or_else(|| anyhow::anyhow!("these reads cannot be cut by ranges"))
}

/// Ranges and their counts as the library takes them.
fn counts_of(counted: Vec<CountedTuple>) -> Vec<(ReadRange, RangeRecords)> {
    counted
        .into_iter()
        .map(|(range, (records, anchors))| (range_of(range), RangeRecords { records, anchors }))
        .collect()
}

/// Whether the ranges counted so far (a first run of each file's ranges) place every
/// part: the client stops counting there (`-u` reads the start of large files).
#[pyfunction]
fn align_counts_suffice(
    py: Python<'_>,
    argv: Vec<String>,
    access: Vec<AccessTuple>,
    counted: Vec<CountedTuple>,
) -> PyResult<bool> {
    run_native(py, || {
        Ok(range_layout(&argv)?.counts_suffice(&access_of(access), &counts_of(counted)))
    })
}

/// The parts from the ranges and their counts: of `tasks_per_part` tasks, or `parts`
/// in all.
#[pyfunction]
#[pyo3(signature = (argv, access, counted, parts, tasks_per_part=None))]
fn align_parts_by_range<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    access: Vec<AccessTuple>,
    counted: Vec<CountedTuple>,
    parts: usize,
    tasks_per_part: Option<u64>,
) -> PyResult<Vec<PartTuple<'py>>> {
    let parts = run_native(py, || {
        let split = tasks_per_part.map_or(PartSize::About(parts), PartSize::Tasks);
        range_layout(&argv)?.parts(&access_of(access), &counts_of(counted), split)
    })?;
    Ok(parts.iter().map(|p| part_tuple(py, p)).collect())
}

/// Where a sorted part's spill lies as Python holds it: `(file, table offset, table
/// length)`.
type SpillTuple = (PathBuf, u64, u64);

/// What aligning a sorted part gives Python: `(spill, cell sizes, unplaced, counts)`.
type SortedPartTuple<'py> = (
    SpillTuple,
    Bound<'py, PyBytes>,
    Vec<UnplacedTuple>,
    Vec<u64>,
);

/// Runs on a worker: aligns a part for sorted output, its records sorted and written,
/// with its table of cells, into this process's spill file in `spill_dir`; returns
/// `(spill, cell sizes, unplaced, summary counts)`: where the part's spill lies, the
/// compressed bytes of each cell's records (added up by `align_add_cell_sizes`, read by
/// `align_cell_sizes`) and the segments of unplaced records, forward strand first.
#[pyfunction]
#[pyo3(signature = (argv, part, spill_dir, threads=None))]
fn align_part_sorted<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    part: PartTuple<'_>,
    spill_dir: PathBuf,
    threads: Option<usize>,
) -> PyResult<SortedPartTuple<'py>> {
    let part = part_of(part);
    let sorted = run_native(py, || {
        sorted::align_part_sorted(&align_options(&argv)?, &part, threads, &spill_dir)
    })?;
    let unplaced = sorted
        .unplaced()
        .map(|s| (s.reverse, s.offset, s.len, s.records))
        .collect();
    let sizes = sorted.cell_sizes.to_bytes();
    let spill = (
        sorted.spill.file,
        sorted.spill.table.0,
        sorted.spill.table.1,
    );
    Ok((spill, PyBytes::new(py, &sizes), unplaced, sorted.counts))
}

/// Writes where the spills of a group of consecutive sorted parts lie (`align_part_sorted`'s
/// first items, in input order) as group `group` of `spill_dir`, which the merges read.
#[pyfunction]
fn align_write_spill_group(
    py: Python<'_>,
    spill_dir: PathBuf,
    group: usize,
    parts: Vec<SpillTuple>,
) -> PyResult<()> {
    let parts: Vec<sorted::PartSpill> = parts
        .into_iter()
        .map(|(file, at, len)| sorted::PartSpill {
            file,
            table: (at, len),
        })
        .collect();
    run_native(py, || sorted::write_group(&spill_dir, group, &parts))
}

/// The cell sizes of several sorted parts (`align_part_sorted`'s first item, or sums of
/// them) added up, as bytes of the same kind.
#[pyfunction]
fn align_add_cell_sizes<'py>(
    py: Python<'py>,
    sizes: Vec<Vec<u8>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let sum = run_native(py, || {
        let all = sizes.iter().map(|b| sorted::CellSizes::from_bytes(b));
        Ok(sorted::CellSizes::sum(all.collect::<anyhow::Result<Vec<_>>>()?).to_bytes())
    })?;
    Ok(PyBytes::new(py, &sum))
}

/// The cells of cell sizes' bytes: `[(range, cell, bytes), ...]` in the genome's order,
/// cells without records left out.
#[pyfunction]
fn align_cell_sizes(py: Python<'_>, sizes: &[u8]) -> PyResult<Vec<(u64, usize, u64)>> {
    let sizes = run_native(py, || sorted::CellSizes::from_bytes(sizes))?;
    Ok(sizes.cells().collect())
}

/// Runs on a worker: the BGZF bytes and index entries of cells `lo..hi` of range
/// `range`, merged from every part's spill, the parts found in groups `0..groups` of
/// `spill_dir` (`align_write_spill_group`), each part's records of the cells in its
/// table.
#[pyfunction]
#[pyo3(signature = (argv, spill_dir, groups, range, lo, hi, threads=None))]
#[allow(clippy::too_many_arguments)]
fn align_merge_cells<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    spill_dir: PathBuf,
    groups: usize,
    range: u64,
    lo: usize,
    hi: usize,
    threads: Option<usize>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let (bytes, entries) = run_native(py, || {
        let parts = sorted::read_groups(&spill_dir, groups)?;
        sorted::merge_cells(&align_options(&argv)?, &parts, range, lo..hi, threads)
    })?;
    Ok((PyBytes::new(py, &bytes), PyBytes::new(py, &entries)))
}

/// Runs on a worker: the BGZF bytes and index entries of one or more consecutive
/// ranges, merged from the parts' `(spill file, offset, length)` in input order; with
/// `unplaced=(skip, records)`, a piece of the unplaced range, from its segments in the
/// command's order (`write_unplaced`).
#[pyfunction]
#[pyo3(signature = (argv, segments, threads=None, unplaced=None))]
fn align_merge_range<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    segments: Vec<(PathBuf, u64, u64)>,
    threads: Option<usize>,
    unplaced: Option<(u64, u64)>,
) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
    let (bytes, entries) = run_native(py, || {
        let options = align_options(&argv)?;
        match unplaced {
            None => sorted::merge_range(&options, &segments, threads),
            Some((skip, records)) => {
                sorted::write_unplaced(&options, &segments, skip, records, threads)
            }
        }
    })?;
    Ok((PyBytes::new(py, &bytes), PyBytes::new(py, &entries)))
}

/// The sorted output's index bytes from each range's file offset and index entries.
#[pyfunction]
fn align_sorted_index<'py>(
    py: Python<'py>,
    argv: Vec<String>,
    placed: Vec<(u64, Vec<u8>)>,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = run_native(py, || sorted::sorted_index(&align_options(&argv)?, &placed))?;
    Ok(PyBytes::new(py, &bytes))
}

/// Adds the align parts' functions and classes to the native module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AlignPlanner>()?;
    m.add_function(wrap_pyfunction!(align_part, m)?)?;
    m.add_function(wrap_pyfunction!(align_read_files, m)?)?;
    m.add_function(wrap_pyfunction!(gzip_access, m)?)?;
    m.add_function(wrap_pyfunction!(align_ranges, m)?)?;
    m.add_function(wrap_pyfunction!(align_count_range, m)?)?;
    m.add_function(wrap_pyfunction!(align_counts_suffice, m)?)?;
    m.add_function(wrap_pyfunction!(align_parts_by_range, m)?)?;
    m.add_function(wrap_pyfunction!(align_part_sorted, m)?)?;
    m.add_function(wrap_pyfunction!(align_add_cell_sizes, m)?)?;
    m.add_function(wrap_pyfunction!(align_cell_sizes, m)?)?;
    m.add_function(wrap_pyfunction!(align_merge_cells, m)?)?;
    m.add_function(wrap_pyfunction!(align_write_spill_group, m)?)?;
    m.add_function(wrap_pyfunction!(align_merge_range, m)?)?;
    m.add_function(wrap_pyfunction!(align_sorted_index, m)?)?;
    m.add("UNPLACED_RANGE", seqfarm_io::bam_writer::UNPLACED_RANGE)?;
    m.add("UNPLACED_RUN", seqfarm_io::bam_writer::UNPLACED_RUN)?;
    m.add("RANGE_CELLS", seqfarm_io::bam_writer::RANGE_CELLS)?;
    Ok(())
}
