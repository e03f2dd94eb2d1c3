//! Running a caller's analysis over every region or window of indexed BAMs, in parallel.
//!
//! This is mmbam's scatter/gather pattern as a library call: [`RegionMap`] holds the
//! regions, [`RegionMap::run`] hands them to a farm of workers, each worker reads a
//! region's records in place (from the memory-mapped BAMs, through the index, out of its
//! own reused inflate buffer: no allocation per record) and calls the caller's closure
//! once per region, and the results come back in region order whatever the thread count.
//!
//! ```no_run
//! use seqfarm_io::bam::{BamSet, RegionMap};
//!
//! let bams = BamSet::open(&["tumor.bam".into(), "normal.bam".into()])?;
//! // Mean MAPQ of the reads overlapping each 10 kb window, per window.
//! let means = RegionMap::new(&bams).windows(10_000).run(4, |_region, records| {
//!     let (mut n, mut sum) = (0u64, 0u64);
//!     records.for_each(|_bam, record| {
//!         n += 1;
//!         sum += u64::from(record.mapq());
//!     });
//!     sum as f64 / n.max(1) as f64
//! })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Which records belong to a region**: those of its reference whose alignment overlaps
//! it, as `samtools view BAM chr:from-to` selects them: a record at 0-based `pos` with
//! end [`Record::alignment_end`] (htslib's `bam_endpos`: `pos + 1` for an unmapped or
//! zero-length record) belongs to `[start, end)` when `pos < end` and
//! `alignment_end > start`. A record overlapping several regions is seen once in each;
//! unplaced reads (no reference) belong to no region. The BAMs must be sorted by
//! coordinate, as their indexes require.
//!
//! Consecutive regions of a worker's task that follow each other on a reference (windows)
//! are read as one pass: a region's walk starts where the walk of the region before found
//! the first record that may overlap it, and the block it ended in is reused, so each
//! BGZF block is inflated about once.

use std::ops::ControlFlow;

use seqfarm_farm::{FarmConfig, FarmError, Fill};

use super::{BamSet, RangeReader, Record};
use crate::bgzf::{VirtualOffset, VirtualRange};
use crate::{Error, Result};

/// Regions per task, at most.
const MAX_TASK_REGIONS: usize = 4096;
/// Tasks per worker the regions are cut into, about.
const TASKS_PER_WORKER: u64 = 16;
/// Compressed BAM bytes per task, at least and at most.
const TASK_BYTES: std::ops::RangeInclusive<u64> = (1 << 18)..=(16 << 20);

/// A genomic region: a reference (its index in the BAM header) and a 0-based, half-open
/// interval of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region {
    /// Index of the reference in the header.
    pub ref_id: usize,
    /// First base, 0-based.
    pub start: u64,
    /// One past the last base.
    pub end: u64,
}

impl Region {
    /// The region `[start, end)` of reference `ref_id`.
    pub fn new(ref_id: usize, start: u64, end: u64) -> Self {
        Self { ref_id, start, end }
    }

    /// Whether a record at 0-based `pos` of reference `ref_id`, ending at `end`
    /// (exclusive), overlaps the region (an empty region overlaps nothing).
    #[inline]
    pub fn overlaps(&self, ref_id: i32, pos: i64, end: i64) -> bool {
        i64::from(ref_id) == self.ref_id as i64
            && pos < self.end as i64
            && end > self.start as i64
            && self.start < self.end
    }
}

/// Regions of a [`BamSet`] to run an analysis over, in the order their results come back.
#[derive(Debug, Clone)]
pub struct RegionMap<'a> {
    bams: &'a BamSet,
    regions: Vec<Region>,
}

impl<'a> RegionMap<'a> {
    /// A map over `bams` with no regions yet (add them with [`windows`](Self::windows) or
    /// [`regions`](Self::regions)).
    pub fn new(bams: &'a BamSet) -> Self {
        Self {
            bams,
            regions: Vec::new(),
        }
    }

    /// Adds consecutive windows of `size` bases (at least 1) over every reference of the
    /// header, in header order; the last window of a reference is shorter.
    pub fn windows(mut self, size: u64) -> Self {
        let size = size.max(1);
        if let Some(header) = self.bams.header() {
            for (ref_id, reference) in header.references.iter().enumerate() {
                let length = u64::from(reference.length);
                let mut start = 0;
                while start < length {
                    let end = (start + size).min(length);
                    self.regions.push(Region::new(ref_id, start, end));
                    start = end;
                }
            }
        }
        self
    }

    /// Adds `regions`, in the order given (they may overlap and need not be sorted).
    pub fn regions(mut self, regions: impl IntoIterator<Item = Region>) -> Self {
        self.regions.extend(regions);
        self
    }

    /// The regions, in result order.
    pub fn as_slice(&self) -> &[Region] {
        &self.regions
    }

    /// Runs `analyse` once per region on `threads` worker threads (0: one per core) and
    /// returns its results in region order. `analyse` gets the region and its
    /// [`Records`]. Fails with the first read error (naming the file and offset), or
    /// with the panic of `analyse`; a region outside the header is an error too.
    pub fn run<T, F>(&self, threads: usize, analyse: F) -> Result<Vec<T>, FarmError<Error>>
    where
        T: Send,
        F: Fn(&Region, &mut Records<'_>) -> T + Sync,
    {
        let mut results = Vec::with_capacity(self.regions.len());
        self.run_each(
            threads,
            |region, records| Ok(analyse(region, records)),
            |_, value| {
                results.push(value);
                Ok(())
            },
        )?;
        Ok(results)
    }

    /// As [`run`](Self::run), but each result is handed to `collect` (with the region's
    /// index) on the calling thread as soon as it and every earlier one are done, while
    /// the workers go on: for results too large to keep all at once. `analyse` and
    /// `collect` may fail with the caller's error type; the first failure stops the run.
    pub fn run_each<T, E, F, C>(
        &self,
        threads: usize,
        analyse: F,
        mut collect: C,
    ) -> Result<(), FarmError<E>>
    where
        T: Send,
        E: From<Error> + Send,
        F: Fn(&Region, &mut Records<'_>) -> Result<T, E> + Sync,
        C: FnMut(usize, T) -> Result<(), E>,
    {
        if let Some(bad) = self.regions.iter().find(|r| !self.is_valid(r)) {
            let path = self.bams.files().first().map(|(bam, _)| bam.path());
            return Err(FarmError::Failed {
                stage: seqfarm_farm::Stage::Emitter,
                source: E::from(Error::format(
                    path.unwrap_or(std::path::Path::new("")),
                    0,
                    format!(
                        "region {}:{}-{} is not in the header",
                        bad.ref_id, bad.start, bad.end
                    ),
                )),
            });
        }
        let threads = if threads == 0 {
            seqfarm_farm::available_cores()
        } else {
            threads
        };
        let config = FarmConfig::new(threads);
        let total: u64 = self.bams.files().iter().map(|(bam, _)| bam.len()).sum();
        let task_bytes = (total / (config.workers as u64 * TASKS_PER_WORKER))
            .clamp(*TASK_BYTES.start(), *TASK_BYTES.end());
        let mut next = 0usize;
        let mut emit = |task: &mut Task<T>| -> Result<Fill, E> {
            task.results.clear();
            task.first = next;
            let mut bytes = 0u64;
            while next < self.regions.len()
                && next - task.first < MAX_TASK_REGIONS
                && bytes < task_bytes
            {
                let r = self.regions[next];
                bytes += self
                    .bams
                    .bytes_between(r.ref_id, r.start as i64, r.end as i64)
                    .max(1);
                next += 1;
            }
            task.count = next - task.first;
            Ok(if task.count == 0 {
                Fill::End
            } else {
                Fill::Task
            })
        };
        let analyse = &analyse;
        let make_worker = |_| {
            let mut reader = RangeReader::new();
            let mut resume = vec![None; self.bams.len()];
            Ok(move |task: &mut Task<T>| -> Result<(), E> {
                let regions = &self.regions[task.first..task.first + task.count];
                for (i, region) in regions.iter().enumerate() {
                    let mut records = Records {
                        bams: self.bams,
                        region: *region,
                        next: regions.get(i + 1).copied(),
                        reader: &mut reader,
                        resume: &mut resume,
                        error: None,
                    };
                    let value = analyse(region, &mut records)?;
                    if let Some(e) = records.error {
                        return Err(E::from(e));
                    }
                    task.results.push(value);
                }
                Ok(())
            })
        };
        let mut collect_task = |task: &mut Task<T>| -> Result<(), E> {
            for (i, value) in task.results.drain(..).enumerate() {
                collect(task.first + i, value)?;
            }
            Ok(())
        };
        seqfarm_farm::run(
            &config,
            Task::default,
            &mut emit,
            make_worker,
            &mut collect_task,
        )?;
        Ok(())
    }

    fn is_valid(&self, region: &Region) -> bool {
        self.bams.header().is_some_and(|h| {
            h.references
                .get(region.ref_id)
                .is_some_and(|r| region.start <= region.end && region.end <= u64::from(r.length))
        })
    }
}

/// Consecutive regions and, once analysed, their results.
#[derive(Debug)]
struct Task<T> {
    first: usize,
    count: usize,
    results: Vec<T>,
}

impl<T> Default for Task<T> {
    fn default() -> Self {
        Self {
            first: 0,
            count: 0,
            results: Vec::new(),
        }
    }
}

/// The records of one region in every BAM of the set, read on demand by the worker that
/// analyses the region. Records are views into the worker's inflate buffer, valid during
/// the call that receives them.
pub struct Records<'w> {
    bams: &'w BamSet,
    region: Region,
    /// The region the worker analyses next, if any.
    next: Option<Region>,
    reader: &'w mut RangeReader,
    /// Per BAM, where a walk for `region` may start instead of where the index says.
    resume: &'w mut [Option<Resume>],
    error: Option<Error>,
}

/// A place to start reading a later region from: no record before `offset` overlaps
/// `region` (found while walking the region before it).
#[derive(Debug, Clone, Copy)]
struct Resume {
    region: Region,
    offset: VirtualOffset,
}

impl std::fmt::Debug for Records<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Records")
            .field("region", &self.region)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl Records<'_> {
    /// The region these are the records of.
    pub fn region(&self) -> Region {
        self.region
    }

    /// Number of BAMs in the set.
    pub fn bams(&self) -> usize {
        self.bams.len()
    }

    /// Calls `f` with the index of the BAM (in the set's order) and each record of that
    /// BAM overlapping the region: BAM by BAM, in file (position) order within each.
    /// Returns the number of records visited. Each call reads the records again.
    ///
    /// A read error stops the walk; the run then fails with it (whatever the closure
    /// returns), so a result computed from a partial walk is never returned.
    pub fn for_each<F>(&mut self, mut f: F) -> u64
    where
        F: FnMut(usize, Record<'_>),
    {
        let mut n = 0;
        for bam in 0..self.bams.len() {
            n += self.for_each_in(bam, |record| f(bam, record));
        }
        n
    }

    /// As [`for_each`](Self::for_each), for the records of BAM `bam` only.
    pub fn for_each_in<F>(&mut self, bam: usize, mut f: F) -> u64
    where
        F: FnMut(Record<'_>),
    {
        if self.error.is_some() {
            return 0;
        }
        let mut n = 0;
        if let Err(e) = self.walk(bam, |record| {
            n += 1;
            f(record)
        }) {
            self.error = Some(e);
        }
        n
    }

    fn walk<F>(&mut self, bam: usize, mut f: F) -> Result<()>
    where
        F: FnMut(Record<'_>),
    {
        let Some((file, index)) = self.bams.files().get(bam) else {
            return Ok(());
        };
        let region = self.region;
        if region.end <= region.start {
            return Ok(());
        }
        let limit = index.kind().max_position() as u64;
        let first = (region.start + 1).min(limit);
        let last = region.end.clamp(first, limit);
        let ref_id = region.ref_id as i32;
        let end = region.end as i64;
        // The records of a sorted BAM that overlap the region lie between the first one
        // the index names and the first one at or past its end: one walk reads them all,
        // each block once, where following the index's chunks one by one would inflate a
        // block again for each chunk that starts in it. When the walk of the region
        // before found a later start (consecutive windows), it starts there instead.
        let start = match self.resume[bam].take() {
            Some(r) if r.region == region => r.offset,
            _ => match index.query(region.ref_id, first, last)?.first() {
                Some(chunk) => chunk.start,
                None => return Ok(()),
            },
        };
        let range = VirtualRange {
            start,
            end: VirtualOffset::new(file.data_end(), 0),
        };
        // The next region can start at the first record that may overlap it, when it
        // starts at or after this one on the same reference (every record skipped before
        // this walk's start ends before this region's start).
        let next = self
            .next
            .filter(|n| n.ref_id == region.ref_id && n.start >= region.start);
        let mut found: Option<VirtualOffset> = None;
        self.reader.for_each_at(file, range, |at, record| {
            let pos = i64::from(record.pos());
            let stop = record.ref_id() != ref_id || pos >= end;
            let record_end = if stop { 0 } else { record.alignment_end() };
            if let Some(n) = next {
                if found.is_none() && (stop || record_end > n.start as i64) {
                    found = Some(at);
                }
            }
            if stop {
                return ControlFlow::Break(());
            }
            if region.overlaps(ref_id, pos, record_end) {
                f(record);
            }
            ControlFlow::Continue(())
        })?;
        if let Some(n) = next {
            // Without such a record the walk reached the end of the data.
            let offset = found.unwrap_or(range.end);
            self.resume[bam] = Some(Resume { region: n, offset });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
