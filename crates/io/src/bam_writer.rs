//! Writing sorted BAM records as BGZF blocks compressed on a few threads, with each
//! record's virtual offsets fed to noodles' BAM indexer as the blocks are placed. Used
//! by `bam_sort` for sorted output and by `cram` for a CRAM decoded into an indexed
//! BAM; it needs only [`bam`](crate::bam)'s records.
//!
//! Blocks are cut as htslib cuts them: a record that would overflow the current block
//! starts a new one (so records start at block boundaries unless larger than a block),
//! and a block is closed as soon as it is full; sorted output can also start a block at
//! each genomic range ([`IndexedBamWriter::range_blocks`]). A record's offsets are those a reader
//! sees: a position at the very end of a block is the start of the next one, as
//! `samtools index` records it.

use std::io::Write;
use std::path::{Path, PathBuf};

use noodles_bam::index::Indexer;
use noodles_core::Position;
use noodles_csi::binning_index::index::reference_sequence::bin::Chunk;
use seqfarm_farm::threads::spawn_scoped_or_run;

pub use self::range_index::index_of_ranges;
#[cfg(test)]
pub(crate) use self::range_index::GROUP_BYTES;
use self::range_index::{EntryGroups, IndexEntry};
use crate::bam::{flags, Record};
use crate::bgzf_writer::{BgzfCompressor, BLOCK_INPUT, EOF_MARKER};
use crate::{Error, Result};

/// Blocks compressed together per thread before they are written.
const BLOCKS_PER_THREAD: usize = 16;

/// Where a record lies on its reference: (reference, first base, last base, mapped).
pub(crate) type AlignmentContext = Option<(usize, Position, Position, bool)>;

/// The index of a sorted BAM: a BAI, or a CSI when a reference is too long for BAI.
pub struct BamIndex {
    pub(crate) index: noodles_bam::Index,
}

impl BamIndex {
    /// The index file's extension: `bai` or `csi`.
    pub fn extension(&self) -> &'static str {
        match self.index {
            noodles_bam::Index::Bai(_) => "bai",
            noodles_bam::Index::Csi(_) => "csi",
        }
    }

    /// Writes the index file's bytes to `out`.
    pub fn write(&self, out: impl Write) -> std::io::Result<()> {
        match &self.index {
            noodles_bam::Index::Bai(index) => {
                noodles_bam::bai::io::Writer::new(out).write_index(index)
            }
            noodles_bam::Index::Csi(index) => {
                let mut writer = noodles_csi::io::Writer::new(out);
                writer.write_index(index)?;
                writer.into_inner().finish().map(drop)
            }
        }
    }
}

/// A record written but not yet indexed: its start and end in `data`, and where it lies.
/// A record is indexed once the block its end lies in is closed, so that an end at a
/// block's end reads as the next block's start however blocks are flushed; the start of
/// one spanning a flush is kept as its virtual offset.
struct PendingRecord {
    start: usize,
    start_offset: Option<u64>,
    end: usize,
    context: AlignmentContext,
}

/// Sorted records are cut into genomic ranges of 2^23 bp (8 Mbp) of a reference, and
/// the unplaced records, by [`sort_range`].
const RANGE_SHIFT: u32 = 23;

/// The genomic range of a record (with its 4-byte length) in sorted order: ascending as
/// records are sorted, the unplaced ones last.
pub fn sort_range(record: &[u8]) -> u64 {
    crate::bam_sort::sort_key(record).0 >> RANGE_SHIFT
}

/// A range is cut into cells of 2^20 bp (1 Mbp), where sorted output starts a block too,
/// so that a range holding many of the reads can be written in pieces of whole cells.
const CELL_SHIFT: u32 = 20;

/// The cells of a range.
pub const RANGE_CELLS: usize = 1 << (RANGE_SHIFT - CELL_SHIFT);

/// The genomic range ([`sort_range`]) of a record of sort key `key`
/// ([`sort_key`](crate::bam_sort::sort_key)) and its cell within the range
/// (`0..RANGE_CELLS`; 0 for the unplaced range, which is not cut into cells).
pub fn range_and_cell(key: u64) -> (u64, usize) {
    match key >> RANGE_SHIFT {
        UNPLACED_RANGE => (UNPLACED_RANGE, 0),
        range => (range, (key >> CELL_SHIFT) as usize & (RANGE_CELLS - 1)),
    }
}

/// The range of the unplaced records (no reference, no position): the reads a run of
/// sorted output ends with, as many as one in twenty of a genome's.
pub const UNPLACED_RANGE: u64 = (u32::MAX as u64) << 32 >> RANGE_SHIFT;

/// The unplaced range starts a block every `UNPLACED_RUN` records too (about 2.5 MB of
/// 2x150 reads), so that it can be written in pieces of whole runs, each by
/// [`IndexedBamWriter::for_range`], rather than by one thread whatever its size.
pub const UNPLACED_RUN: u64 = 1 << 13;

mod range_index;

/// The indexer of a BAM whose references have `reference_lengths` (BAI, or CSI when one
/// is too long for BAI's bins).
pub(crate) fn indexer_for(path: &Path, reference_lengths: &[u64]) -> Result<Indexer> {
    let longest = reference_lengths.iter().copied().max().unwrap_or(1).max(1);
    let max_position = Position::new(longest as usize)
        .ok_or_else(|| Error::format(path, 0, "reference length out of range"))?;
    Indexer::builder()
        .set_max_position_hint(max_position)
        .build()
        .map_err(|e| Error::format(path, 0, format!("cannot index: {e}")))
}

/// Writes BAM records after a header already written to `out`, builds their index, and
/// ends the file with the EOF marker.
pub struct IndexedBamWriter<'o> {
    out: &'o mut dyn Write,
    path: PathBuf,
    /// File offset of the first block in `data`.
    address: u64,
    /// Uncompressed bytes: the closed blocks, then the open one.
    data: Vec<u8>,
    /// End in `data` of each closed block.
    block_ends: Vec<usize>,
    records: Vec<PendingRecord>,
    compressors: Vec<BgzfCompressor>,
    compressed: Vec<Vec<u8>>,
    indexer: Indexer,
    reference_count: usize,
    written: u64,
    /// Each genomic range and each cell of one starts a block
    /// ([`IndexedBamWriter::range_blocks`]); the last record's range and cell.
    range_blocks: bool,
    last_cell: Option<(u64, usize)>,
    /// The unplaced records written so far.
    unplaced: u64,
    /// The index entries, grouped and encoded, kept instead of indexed (a range written
    /// apart).
    entries: Option<EntryGroups>,
}

impl<'o> IndexedBamWriter<'o> {
    /// A writer appending to `out` (`path` names it in errors), whose header took the
    /// first `header_len` bytes; blocks are compressed at `level` on `threads` threads.
    /// `reference_lengths` are the header's references (the longest chooses BAI or CSI).
    pub fn new(
        out: &'o mut dyn Write,
        path: &Path,
        header_len: u64,
        level: i32,
        threads: usize,
        reference_lengths: &[u64],
    ) -> Result<Self> {
        let indexer = indexer_for(path, reference_lengths)?;
        let threads = threads.max(1);
        Ok(Self {
            out,
            path: path.to_path_buf(),
            address: header_len,
            data: Vec::new(),
            block_ends: Vec::new(),
            records: Vec::new(),
            compressors: (0..threads).map(|_| BgzfCompressor::new(level)).collect(),
            compressed: vec![Vec::new(); threads],
            indexer,
            reference_count: reference_lengths.len(),
            written: 0,
            range_blocks: false,
            last_cell: None,
            unplaced: 0,
            entries: None,
        })
    }

    /// Starts a block at each genomic range ([`sort_range`]) of sorted records and at each
    /// cell of one ([`range_and_cell`]), so that the file's bytes are its ranges' (or its
    /// cells') bytes put end to end, whoever wrote each ([`IndexedBamWriter::for_range`]).
    pub fn range_blocks(mut self) -> Self {
        self.range_blocks = true;
        self
    }

    /// A writer of one or more consecutive genomic ranges (or cells of one) of a sorted
    /// BAM apart from the rest, into `out` from its first byte: blocks as
    /// [`IndexedBamWriter::range_blocks`] cuts them, index entries kept for
    /// [`index_of_ranges`].
    pub fn for_range(
        out: &'o mut dyn Write,
        path: &Path,
        level: i32,
        threads: usize,
        reference_lengths: &[u64],
    ) -> Result<Self> {
        let mut writer = Self::new(out, path, 0, level, threads, reference_lengths)?.range_blocks();
        writer.entries = Some(EntryGroups::default());
        Ok(writer)
    }

    /// Writes the last block of a range written apart (no EOF marker); returns its
    /// index entries.
    pub fn finish_range(mut self) -> Result<Vec<u8>> {
        self.close_open_block();
        self.flush_blocks()?;
        Ok(self
            .entries
            .take()
            .map(EntryGroups::finish)
            .unwrap_or_default())
    }

    /// Closes the open block, if it holds anything.
    fn close_open_block(&mut self) {
        if self.data.len() > self.open_block_start() {
            self.block_ends.push(self.data.len());
        }
    }

    fn open_block_start(&self) -> usize {
        self.block_ends.last().copied().unwrap_or(0)
    }

    /// Appends one record (with its 4-byte length).
    pub fn write_record(&mut self, record: &[u8]) -> Result<()> {
        if self.range_blocks {
            let cell = range_and_cell(crate::bam_sort::sort_key(record).0);
            let unplaced = cell.0 == UNPLACED_RANGE;
            let run_starts = unplaced && self.unplaced.is_multiple_of(UNPLACED_RUN);
            if run_starts || self.last_cell.is_some_and(|c| c != cell) {
                self.close_open_block();
            }
            self.last_cell = Some(cell);
            self.unplaced += u64::from(unplaced);
        }
        let open = self.data.len() - self.open_block_start();
        if open > 0 && open + record.len() > BLOCK_INPUT {
            self.block_ends.push(self.data.len());
        }
        let start = self.data.len();
        self.data.extend_from_slice(record);
        while self.data.len() - self.open_block_start() >= BLOCK_INPUT {
            let end = self.open_block_start() + BLOCK_INPUT;
            self.block_ends.push(end);
        }
        let context = alignment_context(record)
            .map_err(|m| Error::record(&self.path, self.written + 1, m))?;
        self.written += 1;
        self.records.push(PendingRecord {
            start,
            start_offset: None,
            end: self.data.len(),
            context,
        });
        if self.block_ends.len() >= BLOCKS_PER_THREAD * self.compressors.len() {
            self.flush_blocks()?;
        }
        Ok(())
    }

    /// Compresses and writes the closed blocks, and indexes the records they hold.
    fn flush_blocks(&mut self) -> Result<()> {
        let n = self.block_ends.len();
        if n == 0 {
            return Ok(());
        }
        let bounds: Vec<(usize, usize)> = (0..n)
            .map(|b| {
                let start = if b == 0 { 0 } else { self.block_ends[b - 1] };
                (start, self.block_ends[b])
            })
            .collect();
        let per_thread = n.div_ceil(self.compressors.len());
        let data = &self.data;
        let mut sizes = vec![0usize; n];
        let work = bounds
            .chunks(per_thread)
            .zip(sizes.chunks_mut(per_thread))
            .zip(self.compressors.iter_mut().zip(self.compressed.iter_mut()));
        if per_thread >= n {
            for item in work {
                compress_blocks(data, item);
            }
        } else {
            std::thread::scope(|scope| {
                for item in work {
                    spawn_scoped_or_run(scope, "seqfarm-bam-compress", move || {
                        compress_blocks(data, item)
                    });
                }
            });
        }
        let mut addresses = Vec::with_capacity(n + 1);
        addresses.push(self.address);
        for size in &sizes {
            addresses.push(addresses[addresses.len() - 1] + *size as u64);
        }
        for out in self.compressed.iter().take(n.div_ceil(per_thread)) {
            self.out
                .write_all(out)
                .map_err(|e| Error::io(&self.path, e))?;
        }
        let block_ends = &self.block_ends;
        let offset = |p: usize| {
            let b = block_ends.partition_point(|&e| e <= p);
            let start = if b == 0 { 0 } else { block_ends[b - 1] };
            noodles_bgzf::VirtualPosition::from(addresses[b] << 16 | (p - start) as u64)
        };
        let consumed = self.block_ends[n - 1];
        let closed = self.records.partition_point(|r| r.end <= consumed);
        for record in self.records.drain(..closed) {
            let start = record
                .start_offset
                .map_or_else(|| offset(record.start), Into::into);
            if let Some(entries) = self.entries.as_mut() {
                entries.add(IndexEntry {
                    context: record.context,
                    start: start.into(),
                    end: offset(record.end).into(),
                });
                continue;
            }
            let chunk = Chunk::new(start, offset(record.end));
            self.indexer
                .add_record(record.context, chunk)
                .map_err(|e| {
                    Error::format(&self.path, addresses[0], format!("cannot index: {e}"))
                })?;
        }
        // The records ending in the open block wait for it to close.
        for record in &mut self.records {
            if record.start_offset.is_none() && record.start < consumed {
                record.start_offset = Some(offset(record.start).into());
            }
            record.start = record.start.saturating_sub(consumed);
            record.end -= consumed;
        }
        self.data.drain(..consumed);
        self.block_ends.clear();
        self.address = addresses[n];
        Ok(())
    }

    /// Writes the last blocks and the EOF marker; returns the index.
    pub fn finish(mut self) -> Result<BamIndex> {
        self.close_open_block();
        self.flush_blocks()?;
        self.out
            .write_all(&EOF_MARKER)
            .map_err(|e| Error::io(&self.path, e))?;
        Ok(BamIndex {
            index: self.indexer.build(self.reference_count),
        })
    }
}

/// One thread's share of a batch: block bounds in the data, their compressed sizes (out),
/// its compressor and its output buffer.
type BlockShare<'a> = (
    (&'a [(usize, usize)], &'a mut [usize]),
    (&'a mut BgzfCompressor, &'a mut Vec<u8>),
);

/// Compresses a share of blocks of `data` into its buffer, noting each block's size.
fn compress_blocks(data: &[u8], ((blocks, sizes), (compressor, out)): BlockShare<'_>) {
    out.clear();
    for (&(start, end), size) in blocks.iter().zip(sizes.iter_mut()) {
        let before = out.len();
        compressor.compress(&data[start..end], out);
        *size = out.len() - before;
    }
}

/// Where a BAM record (with its 4-byte length) lies, as htslib indexes it: unplaced
/// records (no reference) are only counted; an unmapped record placed beside its mate
/// covers one base.
fn alignment_context(record: &[u8]) -> std::result::Result<AlignmentContext, String> {
    let record = record
        .get(4..)
        .ok_or_else(|| "BAM record too short".to_string())
        .and_then(|bytes| Record::new(bytes).map_err(|e| e.0))?;
    let (tid, pos) = (record.ref_id(), record.pos());
    if tid < 0 || pos < 0 {
        return Ok(None);
    }
    let position = |p: i64| Position::new(p as usize).ok_or_else(|| "bad position".to_string());
    Ok(Some((
        tid as usize,
        position(i64::from(pos) + 1)?,
        position(record.alignment_end())?,
        record.flag() & flags::UNMAPPED == 0,
    )))
}
