//! Coordinate sorting of BAM records in bounded memory, with the index built while the
//! sorted file is written.
//!
//! The farm's workers sort their own batches first ([`BatchSort`]). [`BamSorter`] takes
//! the batches (BAM-encoded records, each with its 4-byte length) in input order and keeps
//! them as bytes, plus a 16-byte sort entry per record. When the records and
//! entries reach half the memory budget, they are handed to a thread that merges the sorted batches (a
//! sort that finds the batches' ascending runs and merges them) and writes them as a run (a hidden BGZF file, level 1, beside the output), while the
//! other half of the budget fills; runs are deleted when read back or when the sorter is
//! dropped, whatever the exit path (`runs::RunFiles`). Runs are merged in a tree of
//! `MERGE_FAN_IN` runs per merge as they accumulate. [`BamSorter::finish`] sorts
//! what is left in memory and merges it with the runs (a binary heap) into the output
//! through [`IndexedBamWriter`], which compresses BGZF blocks on a few
//! threads and records every record's virtual offsets into a BAI (or, for a contig
//! longer than 2^29 - 1 bp, a CSI) built by noodles' indexer.
//!
//! The order is `samtools sort`'s: reference number (unplaced records, `-1`, last),
//! then `POS + 1`, then forward strand before reverse, then input order (samtools sorts
//! each buffer with a stable merge sort and breaks ties between its temporary files by
//! file number, which is input order too).

mod runs;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::path::{Path, PathBuf};

use seqfarm_farm::threads::{spawn_or_run, Job};

use self::runs::{RunFiles, RunReader};
use crate::bam_writer::{BamIndex, IndexedBamWriter};
use crate::{Error, Result};

/// The default memory budget: samtools sort's per-thread default (768 MiB).
pub const DEFAULT_SORT_MEMORY: usize = 768 << 20;
/// The least memory budget: samtools sort's minimum for `-m` (1 MiB). Less would write
/// a run every few records.
pub const MIN_SORT_MEMORY: usize = 1 << 20;
/// Runs merged into one at a time: when the newest runs of one level (0 for runs of
/// records from memory, one more for each merge) number this many, they become one run
/// of the next level. Each record is rewritten once per level (a logarithmic number of
/// times), and at most `MERGE_FAN_IN - 1` runs per level wait for the final merge.
const MERGE_FAN_IN: usize = 16;
/// Bytes of memory each buffered record costs besides its own bytes.
const ENTRY_BYTES: usize = std::mem::size_of::<Entry>();

/// The extension of the index of a BAM with references of `reference_lengths`: `bai`,
/// or `csi` when one is longer than 2^29 bp (beyond BAI's bins).
pub fn index_extension(reference_lengths: &[u64]) -> &'static str {
    if reference_lengths.iter().any(|&len| len > 1 << 29) {
        "csi"
    } else {
        "bai"
    }
}

/// The index written beside the BAM `bam`: `BAM.bai`, or `BAM.csi` when a reference of
/// `reference_lengths` is longer than BAI's bins reach ([`index_extension`]).
pub fn index_beside(bam: &Path, reference_lengths: &[u64]) -> PathBuf {
    let mut path = bam.as_os_str().to_os_string();
    path.push(".");
    path.push(index_extension(reference_lengths));
    PathBuf::from(path)
}

/// The sort position of a record: `(tid as u32) << 32 | (pos + 1) as u32` (so unplaced
/// records, tid `-1`, come last), as samtools compares them.
pub fn sort_key(record: &[u8]) -> (u64, bool) {
    let tid = i32::from_le_bytes(record[4..8].try_into().unwrap_or_default());
    let pos = i32::from_le_bytes(record[8..12].try_into().unwrap_or_default());
    let flag = u16::from_le_bytes(record[18..20].try_into().unwrap_or_default());
    let key = u64::from(tid as u32) << 32 | u64::from(pos.wrapping_add(1) as u32);
    (key, flag & 0x10 != 0)
}

/// One buffered record: its sort key, then the reverse-strand flag and its offset in
/// the buffer (input order breaks ties).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    key: u64,
    /// Bit 63: reverse strand; the rest: the record's offset in the buffer.
    order: u64,
}

impl Entry {
    fn offset(&self) -> usize {
        (self.order & !(1 << 63)) as usize
    }
}

/// The length of the BAM record starting at `bytes[0]`, its 4-byte length included;
/// `None` when `bytes` does not hold a whole record.
pub fn record_len(bytes: &[u8]) -> Option<usize> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize + 4;
    // A record has at least its 32 fixed bytes besides the length.
    (len >= 36 && len <= bytes.len()).then_some(len)
}

/// Sorts one batch of BAM records (each with its length, back to back) by coordinate in
/// place, input order breaking ties: the order [`BamSorter`] gives, so a worker can do
/// this part of the sorting on its own thread and the sorter only merges batches.
#[derive(Default)]
pub struct BatchSort {
    entries: Vec<Entry>,
    sorted: Vec<u8>,
}

impl BatchSort {
    /// Reorders the records of `records`; bytes after the last whole record (none, for
    /// records seqfarm wrote) stay at the end, for [`BamSorter::push`] to report.
    pub fn sort(&mut self, records: &mut Vec<u8>) {
        let whole = self.order(records);
        let mut sorted = std::mem::take(&mut self.sorted);
        sorted.clear();
        for record in self.in_order(records) {
            sorted.extend_from_slice(record);
        }
        sorted.extend_from_slice(&records[whole..]);
        self.sorted = std::mem::replace(records, sorted);
    }

    /// The whole records of `records` in sorted order, read where they lie: a batch
    /// written out sorted without a second copy of it in memory.
    pub fn sorted_records<'r>(&'r mut self, records: &'r [u8]) -> impl Iterator<Item = &'r [u8]> {
        self.order(records);
        self.in_order(records)
    }

    /// Sorts the entries of `records`' whole records; returns where they end.
    fn order(&mut self, records: &[u8]) -> usize {
        self.entries.clear();
        let mut at = 0;
        while let Some(len) = record_len(&records[at..]) {
            let (key, reverse) = sort_key(&records[at..at + len]);
            self.entries.push(Entry {
                key,
                order: u64::from(reverse) << 63 | at as u64,
            });
            at += len;
        }
        self.entries.sort_unstable();
        at
    }

    /// The records of the sorted entries, from `records`.
    fn in_order<'r>(&'r self, records: &'r [u8]) -> impl Iterator<Item = &'r [u8]> {
        self.entries.iter().map(move |entry| {
            let start = entry.offset();
            let len = record_len(&records[start..]).unwrap_or(0);
            &records[start..start + len]
        })
    }
}

/// Sorts BAM records by coordinate within a memory budget, spilling sorted runs to
/// hidden files beside the output.
pub struct BamSorter {
    output: PathBuf,
    budget: usize,
    buffer: Vec<u8>,
    entries: Vec<Entry>,
    runs: RunFiles,
    records: u64,
    /// The run being sorted and written on a thread of its own; it gives back its
    /// emptied buffers.
    spilling: Option<Job<Result<SpillBuffers>>>,
}

/// A buffer of records and its entries, handed to the spilling thread and back.
type SpillBuffers = (Vec<u8>, Vec<Entry>);

impl BamSorter {
    /// A sorter for the BAM `output` (its runs go beside it), holding at most about
    /// `budget` bytes of records in memory.
    pub fn new(output: &Path, budget: usize) -> Self {
        Self {
            output: output.to_path_buf(),
            budget: budget.max(1),
            buffer: Vec::new(),
            entries: Vec::new(),
            runs: RunFiles::new(output),
            records: 0,
            spilling: None,
        }
    }

    /// Records added so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Runs written to disk so far.
    pub fn spilled_runs(&self) -> usize {
        self.runs.created()
    }

    /// Adds `records` (BAM-encoded records, each with its length, back to back) in
    /// input order. When the records in memory reach half the budget they are sorted
    /// and written as a run on another thread, while the next half fills.
    pub fn push(&mut self, records: &[u8]) -> Result<()> {
        let mut at = 0;
        while at < records.len() {
            let len = record_len(&records[at..]).ok_or_else(|| {
                Error::format(&self.output, at as u64, "truncated BAM record to sort")
            })?;
            let record = &records[at..at + len];
            let (key, reverse) = sort_key(record);
            let offset = self.buffer.len() as u64;
            self.entries.push(Entry {
                key,
                order: u64::from(reverse) << 63 | offset,
            });
            self.buffer.extend_from_slice(record);
            self.records += 1;
            at += len;
            if self.buffer.len() + self.entries.len() * ENTRY_BYTES >= self.budget / 2 {
                self.spill()?;
            }
        }
        Ok(())
    }

    /// Hands the buffered records to a thread that sorts them and writes them as a
    /// run (after the previous run is written), and carries on with emptied buffers.
    fn spill(&mut self) -> Result<()> {
        let (mut buffer, mut entries) = self.wait_for_spill()?.unwrap_or_default();
        std::mem::swap(&mut buffer, &mut self.buffer);
        std::mem::swap(&mut entries, &mut self.entries);
        let mut run = self.runs.create()?;
        self.spilling = Some(spawn_or_run("seqfarm-sort-spill", move || {
            // Sorted batches make ascending runs: the stable sort merges them.
            entries.sort();
            for entry in &entries {
                let at = entry.offset();
                let len = record_len(&buffer[at..]).unwrap_or(0);
                run.write_record(&buffer[at..at + len])?;
            }
            run.finish()?;
            buffer.clear();
            entries.clear();
            Ok((buffer, entries))
        }));
        while self.runs.newest_of_one_level().0 >= MERGE_FAN_IN {
            self.wait_for_spill()?;
            self.merge_newest_runs()?;
        }
        Ok(())
    }

    /// Waits for the run being written; returns its emptied buffers.
    fn wait_for_spill(&mut self) -> Result<Option<SpillBuffers>> {
        let Some(spilling) = self.spilling.take() else {
            return Ok(None);
        };
        match spilling.join() {
            Ok(buffers) => buffers.map(Some),
            Err(_) => Err(Error::format(
                &self.output,
                0,
                "the thread writing a sort run stopped unexpectedly",
            )),
        }
    }

    /// Merges the newest [`MERGE_FAN_IN`] runs, all of one level, into one run of the
    /// next level in their place (all runs precede the records in memory).
    fn merge_newest_runs(&mut self) -> Result<()> {
        let (_, level) = self.runs.newest_of_one_level();
        let readers = self.runs.take_newest_readers(MERGE_FAN_IN)?;
        let readers = readers.into_iter().map(RecordSource::from).collect();
        let mut merged = self.runs.create_at_level(level + 1)?;
        merge(readers, |record| merged.write_record(record))?;
        merged.finish()
    }

    /// Sorts and merges everything into `writer` (which has written the header), then
    /// finishes it; returns the index. The runs are deleted.
    pub fn finish(mut self, mut writer: IndexedBamWriter<'_>) -> Result<BamIndex> {
        self.wait_for_spill()?;
        self.entries.sort();
        let mut sources: Vec<RecordSource> = self
            .runs
            .take_readers()?
            .into_iter()
            .map(RecordSource::from)
            .collect();
        let memory = MemoryRun {
            buffer: std::mem::take(&mut self.buffer),
            entries: std::mem::take(&mut self.entries),
            next: 0,
        };
        sources.push(RecordSource::Memory(memory));
        merge(sources, |record| writer.write_record(record))?;
        drop(self);
        writer.finish()
    }
}

impl Drop for BamSorter {
    /// Waits for a run being written, so that its file is deleted with the others.
    fn drop(&mut self) {
        let _ = self.wait_for_spill();
    }
}

/// The records in memory, sorted, as a run.
struct MemoryRun {
    buffer: Vec<u8>,
    entries: Vec<Entry>,
    /// The current entry plus one (0 before the first).
    next: usize,
}

/// A sorted stream of records: a run on disk or the records in memory.
enum RecordSource {
    Disk(RunReader),
    Memory(MemoryRun),
}

impl RecordSource {
    /// Moves to the next record; false at the end.
    fn advance(&mut self) -> Result<bool> {
        match self {
            RecordSource::Disk(reader) => reader.advance(),
            RecordSource::Memory(run) => {
                run.next += 1;
                Ok(run.next <= run.entries.len())
            }
        }
    }

    /// The record [`RecordSource::advance`] moved to (with its length).
    fn record(&self) -> &[u8] {
        match self {
            RecordSource::Disk(reader) => reader.record(),
            RecordSource::Memory(run) => {
                let at = run.entries[run.next - 1].offset();
                let len = record_len(&run.buffer[at..]).unwrap_or(0);
                &run.buffer[at..at + len]
            }
        }
    }
}

impl From<RunReader> for RecordSource {
    fn from(reader: RunReader) -> Self {
        RecordSource::Disk(reader)
    }
}

/// K-way merge of sorted `sources` (in input order: ties go to the earlier source) into
/// `emit`.
fn merge(mut sources: Vec<RecordSource>, mut emit: impl FnMut(&[u8]) -> Result<()>) -> Result<()> {
    let mut heap = BinaryHeap::with_capacity(sources.len());
    for (i, source) in sources.iter_mut().enumerate() {
        if source.advance()? {
            let (key, reverse) = sort_key(source.record());
            heap.push(Reverse((key, reverse, i)));
        }
    }
    while let Some(Reverse((_, _, i))) = heap.pop() {
        let source = &mut sources[i];
        emit(source.record())?;
        if source.advance()? {
            let (key, reverse) = sort_key(source.record());
            heap.push(Reverse((key, reverse, i)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
