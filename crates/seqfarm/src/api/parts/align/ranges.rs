//! Parts of `align` planned without the planner reading the reads: the read files, on a
//! filesystem every worker mounts, are cut into byte ranges of their (inflated) streams;
//! workers count each range's records ([`count_range`]), and the counts place every part
//! at a record of its files, found again there by the part's worker.
//! A gzip file (one member or BGZF) is entered at access points kept beside it
//! ([`seqfarm_io::gzip_index`]), made once by one worker ([`gzip_access`]).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use seqfarm_io::gzip_index::{GzipIndex, RecordCounting};
use seqfarm_io::input::{Compression, Input};
use seqfarm_io::reads::{
    file_record_format, records_in_range, skip_records, InputFormat, Layout, RangeRecords,
    RecordFormat,
};

use super::{AlignPart, PartFile, PartReads};
use crate::cmd::align::{AlignOptions, TASK_LIMITS};

/// Records between two anchors of a range (a part's worker skips fewer than this).
const ANCHOR_EVERY: u64 = TASK_LIMITS.max_records as u64;

/// How a read file is read from its middle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadAccess {
    /// A plain file of `len` bytes, read at any offset.
    Plain { len: u64 },
    /// A gzip file of `length` inflated bytes, entered at access points starting at
    /// the inflated offsets `points`.
    Gzip { points: Vec<u64>, length: u64 },
}

/// How a read file is stored, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadStorage {
    /// Uncompressed, `len` bytes.
    Plain {
        len: u64,
    },
    Gzip,
    /// Another compression, or not a regular file: read by the planner.
    Other,
}

/// A byte range of a read file's (inflated) stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadRange {
    pub path: PathBuf,
    pub start: u64,
    pub end: u64,
    /// The access point (of a gzip file) whose inflated offset is `start`.
    pub point: Option<usize>,
}

/// How big parts are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartSize {
    /// This many of the command's tasks (1024 fragments each) at most.
    Tasks(u64),
    /// This many parts in all, of as equal numbers of tasks as can be (fewer parts when
    /// the input has fewer tasks; more where a part would span read sources).
    About(usize),
}

/// Where parts end (fragment numbers, each at a task boundary).
enum PartEnds {
    /// Every so many fragments.
    Every(u64),
    /// At these, in order.
    At(Vec<u64>),
}

impl PartEnds {
    /// The first end after fragment `a`.
    fn after(&self, a: u64) -> u64 {
        match self {
            PartEnds::Every(n) => (a / n + 1) * n,
            PartEnds::At(ends) => ends
                .get(ends.partition_point(|&end| end <= a))
                .copied()
                .unwrap_or(u64::MAX),
        }
    }
}

/// A record a part can start reading at.
#[derive(Debug, Clone, Copy)]
struct Anchor {
    record: u64,
    offset: u64,
    point: Option<usize>,
}

/// The read files of an `align` run and how their records make fragments.
pub struct ReadLayout {
    sources: Vec<(Layout, Vec<PathBuf>)>,
    format: InputFormat,
    skip: u64,
    upto: Option<u64>,
}

impl ReadLayout {
    /// The layout of the run `options` ask for; `None` when its reads cannot be cut by
    /// ranges (standard input, reads on the command line, k-mers of FASTA, BAM).
    pub fn new(options: &AlignOptions) -> Option<Self> {
        let reads = &options.reads;
        if reads.check().is_err()
            || matches!(
                reads.format,
                InputFormat::CommandLine | InputFormat::KmerFasta { .. } | InputFormat::Bam { .. }
            )
        {
            return None;
        }
        let mut sources = reads.file_sources();
        if sources
            .iter()
            .flat_map(|(_, f)| f)
            .any(|p| p == Path::new("-"))
        {
            return None;
        }
        // Workers need not share the planner's working directory.
        for path in sources.iter_mut().flat_map(|(_, f)| f) {
            if let Ok(absolute) = std::path::absolute(&*path) {
                *path = absolute;
            }
        }
        Some(Self {
            sources,
            format: reads.format,
            skip: reads.skip,
            upto: reads.upto,
        })
    }

    /// Every read file once (made absolute), in the order they are read.
    pub fn files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = Vec::new();
        for path in self.sources.iter().flat_map(|(_, f)| f) {
            if !files.contains(path) {
                files.push(path.clone());
            }
        }
        files
    }

    /// The ranges workers count records in: plain files cut every `range_bytes`, gzip
    /// files at the first access point after every `range_bytes`; `access` in
    /// [`ReadLayout::files`]' order.
    pub fn ranges(&self, access: &[ReadAccess], range_bytes: u64) -> Vec<ReadRange> {
        let range_bytes = range_bytes.max(1);
        let mut ranges = Vec::new();
        for (path, access) in self.files().into_iter().zip(access) {
            match access {
                ReadAccess::Plain { len } => {
                    let mut start = 0;
                    loop {
                        let end = (start + range_bytes).min(*len);
                        ranges.push(ReadRange {
                            path: path.clone(),
                            start,
                            end,
                            point: None,
                        });
                        if end == *len {
                            break;
                        }
                        start = end;
                    }
                }
                ReadAccess::Gzip { points, length } => {
                    let mut first = 0;
                    for i in 1..=points.len() {
                        let end = points.get(i).copied().unwrap_or(*length);
                        if end - points[first] >= range_bytes || i == points.len() {
                            ranges.push(ReadRange {
                                path: path.clone(),
                                start: points[first],
                                end,
                                point: Some(first),
                            });
                            first = i;
                        }
                    }
                }
            }
        }
        ranges
    }

    /// Records per fragment in a source of kind `layout`.
    fn records_per_fragment(&self, layout: Layout) -> u64 {
        let tabbed = matches!(self.format, InputFormat::Tab5 | InputFormat::Tab6);
        if layout == Layout::Interleaved && !tabbed {
            2
        } else {
            1
        }
    }

    /// Whether `counted`, the records of a first run of each file's ranges (as
    /// [`ReadLayout::ranges`] gave them from `access`, in its order within each file),
    /// place every part of the run: each file is counted to its end, or the files of
    /// the source where `--upto` stops are counted past its last fragment (the command
    /// reads no further, and finds no missing mate beyond it). [`ReadLayout::parts`]
    /// then takes these counts as it takes every range's.
    pub fn counts_suffice(
        &self,
        access: &[ReadAccess],
        counted: &[(ReadRange, RangeRecords)],
    ) -> bool {
        let window_end = self.upto.map_or(u64::MAX, |n| self.skip.saturating_add(n));
        let files = self.files();
        let mut first_of_source = 0u64;
        for (layout, paths) in &self.sources {
            let per = self.records_per_fragment(*layout);
            let mut complete = true;
            let mut known = u64::MAX;
            let mut first_file = 0;
            for (k, path) in paths.iter().enumerate() {
                let length = match files.iter().position(|f| f == path).map(|i| &access[i]) {
                    Some(ReadAccess::Plain { len }) => *len,
                    Some(ReadAccess::Gzip { length, .. }) => *length,
                    None => return false,
                };
                let of_file = counted.iter().filter(|(range, _)| range.path == *path);
                let records: u64 = of_file.clone().map(|(_, c)| c.records).sum();
                let end = of_file.map(|(range, _)| range.end).max().unwrap_or(0);
                complete &= end >= length;
                known = known.min(records / per);
                if k == 0 {
                    first_file = records;
                }
            }
            if !complete {
                // Past it, not at it: the totals of files not counted to their ends
                // must never be taken for a missing mate.
                return first_of_source.saturating_add(known) > window_end;
            }
            first_of_source += first_file / per;
            if first_of_source >= window_end {
                return true;
            }
        }
        true
    }

    /// The parts, from the ranges' records (`counted`, as [`ReadLayout::ranges`] gave
    /// the ranges from `access`, all of them or as many as [`ReadLayout::counts_suffice`]
    /// asks for): `split` says how big.
    pub fn parts(
        &self,
        access: &[ReadAccess],
        counted: &[(ReadRange, RangeRecords)],
        split: PartSize,
    ) -> anyhow::Result<Vec<AlignPart>> {
        let files = self.files();
        let mut anchors: HashMap<&Path, (Vec<Anchor>, u64)> = HashMap::new();
        for (range, records) in counted {
            let points = match files
                .iter()
                .position(|f| *f == range.path)
                .map(|i| &access[i])
            {
                Some(ReadAccess::Gzip { points, .. }) => Some(points),
                _ => None,
            };
            let (list, total) = anchors.entry(range.path.as_path()).or_default();
            for (k, &offset) in records.anchors.iter().enumerate() {
                list.push(Anchor {
                    record: *total + k as u64 * ANCHOR_EVERY,
                    offset,
                    // The last access point before the record.
                    point: points.map(|p| p.partition_point(|&out| out <= offset).max(1) - 1),
                });
            }
            *total += records.records;
        }
        let window_end = self.upto.map_or(u64::MAX, |n| self.skip.saturating_add(n));
        let ends = match split {
            PartSize::Tasks(n) => PartEnds::Every(n.max(1) * ANCHOR_EVERY),
            PartSize::About(parts) => {
                let all: u64 = self
                    .sources
                    .iter()
                    .map(|(layout, files)| {
                        anchors.get(files[0].as_path()).map_or(0, |a| a.1)
                            / self.records_per_fragment(*layout)
                    })
                    .sum();
                let first = self.skip / ANCHOR_EVERY;
                let tasks = all
                    .min(window_end)
                    .div_ceil(ANCHOR_EVERY)
                    .saturating_sub(first);
                // As many tasks in each part as can be: the workers end together.
                let parts = (parts as u64).clamp(1, tasks.max(1));
                PartEnds::At(
                    (1..parts)
                        .map(|k| (first + tasks * k / parts) * ANCHOR_EVERY)
                        .collect(),
                )
            }
        };
        let mut parts = Vec::new();
        let mut first_of_source = 0u64;
        for (source, (layout, files)) in self.sources.iter().enumerate() {
            let per = self.records_per_fragment(*layout);
            let totals: Vec<u64> = files
                .iter()
                .map(|f| anchors.get(f.as_path()).map_or(0, |a| a.1))
                .collect();
            let fragments = totals[0] / per;
            // The command finds a missing mate only if it reads past the shorter file's
            // last fragment (it stops reading once `--upto` fragments are read).
            let shortest = totals.iter().min().map_or(0, |&n| n / per);
            if self.upto != Some(0) && window_end > first_of_source + shortest {
                check_totals(files, &totals, per)?;
            }
            let lo = first_of_source.max(self.skip);
            let hi = (first_of_source + fragments).min(window_end);
            let mut a = lo;
            while a < hi {
                let b = ends.after(a).min(hi);
                let record = (a - first_of_source) * per;
                let files = files
                    .iter()
                    .map(|path| {
                        let list = &anchors[path.as_path()].0;
                        let i = list.partition_point(|x| x.record <= record);
                        let anchor =
                            *i.checked_sub(1).and_then(|i| list.get(i)).ok_or_else(|| {
                                anyhow::anyhow!(
                                    "{}: no record {record} in the counts",
                                    path.display()
                                )
                            })?;
                        Ok(PartFile {
                            path: path.clone(),
                            reads: PartReads::InFile {
                                offset: anchor.offset,
                                point: anchor.point,
                                skip: record - anchor.record,
                            },
                        })
                    })
                    .collect::<anyhow::Result<_>>()?;
                parts.push(AlignPart {
                    source,
                    first_fragment: a,
                    records_before: [record, record],
                    fragments: b - a,
                    files,
                });
                a = b;
            }
            first_of_source += fragments;
        }
        Ok(parts)
    }
}

/// Fails as the command would on records that do not make whole fragments.
fn check_totals(files: &[PathBuf], totals: &[u64], per: u64) -> anyhow::Result<()> {
    if let [first, second] = totals {
        if first != second {
            anyhow::bail!(
                "{} holds {first} records but its mate file {} holds {second}: \
                 each record of a -1 file needs its mate in the -2 file",
                files[0].display(),
                files[1].display()
            );
        }
    }
    if !totals[0].is_multiple_of(per) {
        anyhow::bail!(
            "{}: record {} is the last of an interleaved file and has no mate: an \
             interleaved file holds an even number of records, mate 1 then mate 2",
            files[0].display(),
            totals[0]
        );
    }
    Ok(())
}

/// How `path` is stored, from its first bytes; `Other` for what is not a regular file
/// (a named pipe cannot be read at an offset).
pub fn read_storage(path: &Path) -> ReadStorage {
    match seqfarm_io::input::regular_file(path) {
        Some((len, Compression::None)) => ReadStorage::Plain { len },
        Some((_, Compression::Gzip)) => ReadStorage::Gzip,
        Some((_, Compression::Bzip2)) | None => ReadStorage::Other,
    }
}

/// The access points of the gzip file `path`, a read file of the run `options` ask for
/// (made and kept beside it by the first caller, about one per `span` inflated bytes),
/// and its records counted as [`count_range`] counts them, the whole file as one range,
/// when the pass that made the index counted them (it counts as the run reads them; a
/// BGZF file, indexed without inflating it, has none).
pub fn gzip_access(
    options: &AlignOptions,
    path: &Path,
    span: u64,
) -> anyhow::Result<(ReadAccess, Option<(ReadRange, RangeRecords)>)> {
    let counting = RecordCounting {
        format: format_of(options, path)?,
        every: ANCHOR_EVERY,
    };
    let index = GzipIndex::open_or_build(path, span, Some(counting))
        .with_context(|| format!("cannot index {}", path.display()))?;
    let whole = ReadRange {
        path: path.to_path_buf(),
        start: 0,
        end: index.length,
        point: Some(0),
    };
    let counted = index.records(&counting).map(|r| (whole, r.clone()));
    let access = ReadAccess::Gzip {
        points: index.points.iter().map(|p| p.out).collect(),
        length: index.length,
    };
    Ok((access, counted))
}

/// Gzip indexes loaded by this process, by path.
static GZIP_INDEXES: Mutex<Option<HashMap<PathBuf, Arc<GzipIndex>>>> = Mutex::new(None);

/// Gzip indexes this process keeps at most: each holds its index file open (its
/// windows are read from it), and a worker process may run jobs on many read files.
const GZIP_INDEXES_KEPT: usize = 64;

/// The index kept beside `path`, loaded once per process (again if `path` changed, or
/// after the indexes of [`GZIP_INDEXES_KEPT`] other files were loaded).
fn cached_gzip_index(path: &Path) -> anyhow::Result<Arc<GzipIndex>> {
    let mut cache = GZIP_INDEXES.lock().unwrap_or_else(|e| e.into_inner());
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some(known) = cache.get(path).filter(|index| index.is_current(path)) {
        return Ok(known.clone());
    }
    let index = GzipIndex::load(path).with_context(|| {
        format!(
            "cannot read the index of {} ({})",
            path.display(),
            GzipIndex::path_for(path).display()
        )
    })?;
    let index = Arc::new(index);
    if cache.len() >= GZIP_INDEXES_KEPT && !cache.contains_key(path) {
        cache.clear();
    }
    cache.insert(path.to_path_buf(), index.clone());
    Ok(index)
}

/// The (inflated) stream of `path` from `offset` on, entered at gzip access point
/// `point` when there is one.
fn stream_at(
    path: &Path,
    offset: u64,
    point: Option<usize>,
) -> anyhow::Result<Box<dyn Read + Send>> {
    let reading = || format!("cannot read {}", path.display());
    match point {
        None => {
            let mut file = File::open(path).with_context(reading)?;
            file.seek(SeekFrom::Start(offset)).with_context(reading)?;
            Ok(Box::new(file))
        }
        Some(point) => {
            let index = cached_gzip_index(path)?;
            let start = index.points.get(point).map_or(u64::MAX, |p| p.out);
            anyhow::ensure!(
                start <= offset,
                "{}: no access point {point} before byte {offset}",
                path.display()
            );
            let mut reader = index.reader_at(path, point).with_context(reading)?;
            let skipped = std::io::copy(
                &mut (&mut reader).take(offset - start),
                &mut std::io::sink(),
            )
            .with_context(reading)?;
            anyhow::ensure!(
                skipped == offset - start,
                "{} is shorter than it was (changed since it was planned?)",
                path.display()
            );
            Ok(Box::new(reader))
        }
    }
}

/// The record format of `path` under the run's input format.
fn format_of(options: &AlignOptions, path: &Path) -> anyhow::Result<RecordFormat> {
    Ok(file_record_format(
        options.reads.format,
        Input::open_head(path)?,
    )?)
}

/// Runs on a worker: the records of `range` (and where every 1024th starts).
pub fn count_range(options: &AlignOptions, range: &ReadRange) -> anyhow::Result<RangeRecords> {
    let format = format_of(options, &range.path)?;
    let stream = stream_at(&range.path, range.start, range.point)?;
    records_in_range(stream, format, range.start, range.end, ANCHOR_EVERY)
        .with_context(|| format!("cannot read {}", range.path.display()))
}

/// Runs on a part's worker: the stream of `file`'s share of the part, from its first
/// record on.
pub(super) fn part_stream(
    options: &AlignOptions,
    file: &PartFile,
) -> anyhow::Result<Box<dyn Read + Send>> {
    let (offset, point, skip) = match &file.reads {
        PartReads::Carried(data) => return Ok(Box::new(std::io::Cursor::new(data.clone()))),
        PartReads::InFile {
            offset,
            point,
            skip,
        } => (*offset, *point, *skip),
    };
    let mut reader = BufReader::with_capacity(1 << 16, stream_at(&file.path, offset, point)?);
    if skip > 0 {
        let format = format_of(options, &file.path)?;
        skip_records(&mut reader, format, skip)
            .with_context(|| format!("cannot read {}", file.path.display()))?;
    }
    Ok(Box::new(reader))
}

#[cfg(test)]
mod tests;
