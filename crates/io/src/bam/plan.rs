//! Cutting a whole BAM into work units of about equal compressed size.

use std::ops::Range;

use super::{BamFile, BamIndex};
use crate::bgzf::{BgzfError, BlockScanner, VirtualOffset, VirtualRange};

/// How a whole BAM is split for a parallel pass.
///
/// * `ranges`: virtual-offset ranges that start and end at record starts named by the
///   index, each about `unit_bytes` of compressed data, covering every record from the
///   first one to [`WorkPlan::tail_start`] exactly once. A worker reads one with a
///   [`RangeReader`](super::RangeReader), on its own.
/// * the tail, from `tail_start` to the EOF marker: the unplaced unmapped reads after the
///   last indexed record, or the whole file when there is no index. No record start is
///   known inside it, so it is cut at BGZF block boundaries ([`WorkPlan::tail_batches`]):
///   workers inflate the batches, and a [`RecordStitcher`](super::RecordStitcher) started
///   with [`WorkPlan::tail_skip`] walks them in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkPlan {
    /// Self-contained ranges, in file order.
    pub ranges: Vec<VirtualRange>,
    /// Where the part without known record starts begins.
    pub tail_start: VirtualOffset,
    /// File offset of the EOF marker.
    pub data_end: u64,
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
