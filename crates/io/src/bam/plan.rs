//! Cutting a whole BAM into work units of about equal compressed size.

use std::ops::Range;

use std::path::Path;

use super::{BamFile, BamIndex, Record, RecordError, RecordStitcher};
use crate::bgzf::{BgzfError, BlockScanner, InflateBuffer, Inflater, VirtualOffset, VirtualRange};
use crate::Error;

/// How a whole BAM is split for a parallel pass.
///
/// * `ranges`: virtual-offset ranges that start and end at record starts named by the
///   index, each about `unit_bytes` of compressed data, covering every record from the
///   first one to [`WorkPlan::tail_start`] exactly once. A worker reads one with a
///   [`RangeReader`](super::RangeReader), on its own.
/// * the tail, from `tail_start` to the EOF marker: the unplaced unmapped reads after the
///   last indexed record, or the whole file when there is no index. No record start is
///   known inside it, so it is cut at BGZF block boundaries: workers inflate the batches,
///   and a [`RecordStitcher`] walks them in order.
///
/// [`WorkPlan::units`] hands out both kinds in file order, and also turns ranges the
/// index could not cut finely enough into block batches, so every unit stays small.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkPlan {
    /// Self-contained ranges, in file order.
    pub ranges: Vec<VirtualRange>,
    /// Where the part without known record starts begins.
    pub tail_start: VirtualOffset,
    /// File offset of the EOF marker.
    pub data_end: u64,
    /// The unit size the plan was made for.
    pub unit_bytes: u64,
}

impl WorkPlan {
    /// Plans a pass over `bam` with units of about `unit_bytes` compressed bytes,
    /// through `index` when there is one.
    pub fn new(bam: &BamFile, index: Option<&BamIndex>, unit_bytes: u64) -> Self {
        let unit_bytes = unit_bytes.max(1);
        let start = bam.records_start();
        let mut ranges = Vec::new();
        let tail_start = match index {
            None => start,
            Some(index) => {
                let end = index.indexed_end();
                let mut from = start;
                for &cut in index.record_starts() {
                    if cut > from && cut < end && cut.compressed() - from.compressed() >= unit_bytes
                    {
                        ranges.push(VirtualRange {
                            start: from,
                            end: cut,
                        });
                        from = cut;
                    }
                }
                if end > from {
                    ranges.push(VirtualRange { start: from, end });
                }
                end.max(start)
            }
        };
        Self {
            ranges,
            tail_start,
            data_end: bam.data_end(),
            unit_bytes,
        }
    }

    /// Every record of the BAM as a sequence of [`WorkUnit`]s, in file order: ranges of
    /// at most twice the unit size as they are, and the rest (ranges the index could not
    /// cut finely enough, such as deep coverage of a small region, and the tail) as
    /// batches of whole blocks of about `batch_bytes` compressed bytes (and at most about
    /// four times that inflated), walked by one
    /// [`RecordStitcher`] per segment.
    pub fn units<'a>(&self, bam: &'a BamFile, batch_bytes: u64) -> WorkUnits<'a> {
        let mut segments = Vec::with_capacity(self.ranges.len() + 1);
        for range in &self.ranges {
            let span = range.end.compressed() - range.start.compressed();
            segments.push((*range, span > 2 * self.unit_bytes));
        }
        if self.has_tail() {
            let end = VirtualOffset::new(self.data_end, 0);
            segments.push((
                VirtualRange {
                    start: self.tail_start,
                    end,
                },
                true,
            ));
        }
        WorkUnits {
            file: bam.bytes(),
            segments: segments.into_iter(),
            current: None,
            batch_bytes: batch_bytes.max(1),
        }
    }

    /// Bytes to skip in the first tail block before the first tail record.
    pub fn tail_skip(&self) -> usize {
        self.tail_start.uncompressed() as usize
    }

    /// Whether there are tail blocks to read.
    pub fn has_tail(&self) -> bool {
        self.tail_start.compressed() < self.data_end
    }

    /// The tail cut into batches of whole blocks of about `unit_bytes` each.
    pub fn tail_batches<'a>(&self, bam: &'a BamFile, unit_bytes: u64) -> BlockBatches<'a> {
        BlockBatches {
            scanner: BlockScanner::new(bam.bytes(), self.tail_start.compressed(), self.data_end),
            target: unit_bytes.max(1),
        }
    }
}

/// Consecutive byte ranges of whole BGZF blocks, each about `target` bytes (at least one
/// block). Found by reading block headers only.
#[derive(Debug, Clone)]
pub struct BlockBatches<'a> {
    scanner: BlockScanner<'a>,
    target: u64,
}

impl<'a> BlockBatches<'a> {
    /// Batches of the blocks of `file` in `[start, end)`.
    pub fn new(file: &'a [u8], start: u64, end: u64, target: u64) -> Self {
        Self {
            scanner: BlockScanner::new(file, start, end),
            target: target.max(1),
        }
    }
}

impl Iterator for BlockBatches<'_> {
    type Item = Result<Range<u64>, BgzfError>;

    fn next(&mut self) -> Option<Self::Item> {
        let start = self.scanner.position();
        if self.scanner.is_done() {
            return None;
        }
        while !self.scanner.is_done() && self.scanner.position() - start < self.target {
            if let Some(Err(e)) = self.scanner.next() {
                return Some(Err(e));
            }
        }
        Some(Ok(start..self.scanner.position()))
    }
}

/// One piece of work of a [`WorkPlan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkUnit {
    /// Records whose first byte lies in the range: read on its own with a
    /// [`RangeReader`](super::RangeReader).
    Range(VirtualRange),
    /// Whole blocks of a segment with no known record starts inside.
    Blocks(BlockBatch),
}

/// Consecutive whole BGZF blocks of one stitched segment, and which part of their
/// inflated bytes belongs to the segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockBatch {
    /// File byte range of the blocks.
    pub blocks: Range<u64>,
    /// The segment's bytes in the batch's inflated data: `inflated[start..end]` (the
    /// first batch skips what precedes the segment's first record, the last one stops
    /// where the next segment begins).
    pub start: usize,
    /// See `start`.
    pub end: usize,
    /// The first batch of its segment: start a new stitcher.
    pub starts_segment: bool,
    /// The last batch of its segment: the walk must end on a record boundary.
    pub ends_segment: bool,
}

impl BlockBatch {
    /// A worker's part: inflates the batch's blocks of `bam` into `inflated` (cut at the
    /// segment's end), their pages read ahead and let go around it.
    pub fn inflate(
        &self,
        bam: &BamFile,
        inflater: &mut Inflater,
        inflated: &mut InflateBuffer,
    ) -> Result<(), BgzfError> {
        let blocks = self.blocks.clone();
        bam.prefetch(blocks.clone());
        inflated.clear();
        let bytes = &bam.bytes()[blocks.start as usize..blocks.end as usize];
        inflater.inflate_blocks(bytes, blocks.start, inflated)?;
        inflated.truncate(self.end);
        bam.release(blocks);
        Ok(())
    }

    /// The collector's part: walks the records of the batch's `inflated` bytes in order
    /// through `stitcher` (a new one, for `n_ref` references, at the segment's start;
    /// checked to end on a record boundary at its end). Errors name `path` and the
    /// batch's first block.
    pub fn stitch(
        &self,
        stitcher: &mut RecordStitcher,
        n_ref: usize,
        inflated: &[u8],
        path: &Path,
        each: impl FnMut(Record<'_>),
    ) -> Result<(), Error> {
        if self.starts_segment {
            *stitcher = RecordStitcher::new(n_ref, 0);
        }
        let data = inflated
            .get(self.start..self.end.min(inflated.len()))
            .unwrap_or_default();
        let at = self.blocks.start;
        let error = |e: RecordError| {
            Error::format(path, at, format!("{} (in the blocks from here on)", e.0))
        };
        stitcher.feed(data, each).map_err(error)?;
        if self.ends_segment {
            stitcher.finish().map_err(error)?;
        }
        Ok(())
    }
}

/// The units of a [`WorkPlan`], produced lazily (block headers are read as batches are
/// cut).
#[derive(Debug)]
pub struct WorkUnits<'a> {
    file: &'a [u8],
    segments: std::vec::IntoIter<(VirtualRange, bool)>,
    current: Option<Segment<'a>>,
    batch_bytes: u64,
}

/// A stitched segment being cut into batches.
#[derive(Debug)]
struct Segment<'a> {
    scanner: BlockScanner<'a>,
    end: VirtualOffset,
    skip: usize,
    first: bool,
}

impl Iterator for WorkUnits<'_> {
    type Item = Result<WorkUnit, BgzfError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(segment) = &mut self.current {
                if segment.scanner.is_done() {
                    self.current = None;
                    continue;
                }
                return Some(segment.batch(self.batch_bytes).map(WorkUnit::Blocks));
            }
            let (range, stitched) = self.segments.next()?;
            if !stitched {
                return Some(Ok(WorkUnit::Range(range)));
            }
            let (s, e) = (range.start, range.end);
            let stop = if e.uncompressed() > 0 {
                e.compressed() + 1
            } else {
                e.compressed()
            };
            self.current = Some(Segment {
                scanner: BlockScanner::new(self.file, s.compressed(), stop),
                end: e,
                skip: s.uncompressed() as usize,
                first: true,
            });
        }
    }
}

impl Segment<'_> {
    fn batch(&mut self, batch_bytes: u64) -> Result<BlockBatch, BgzfError> {
        let first_block = self.scanner.position();
        let mut inflated = 0usize;
        // Highly compressible data (no SEQ/QUAL) inflates to many times its size: cap
        // the inflated bytes too, so a batch's buffer stays small.
        while !self.scanner.is_done()
            && self.scanner.position() - first_block < batch_bytes
            && (inflated as u64) < 4 * batch_bytes
        {
            let Some(block) = self.scanner.next() else {
                break;
            };
            let block = block?;
            inflated += if block.offset == self.end.compressed() {
                (self.end.uncompressed() as usize).min(block.inflated_size)
            } else {
                block.inflated_size
            };
        }
        let start = if self.first {
            self.skip.min(inflated)
        } else {
            0
        };
        let batch = BlockBatch {
            blocks: first_block..self.scanner.position(),
            start,
            end: inflated,
            starts_segment: self.first,
            ends_segment: self.scanner.is_done(),
        };
        self.first = false;
        Ok(batch)
    }
}
