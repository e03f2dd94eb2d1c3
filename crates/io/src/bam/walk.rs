//! Walking records: through a virtual-offset range (one worker, one range) or across
//! consecutive inflated blocks handed over in order (stitching).

use std::ops::ControlFlow;

use super::{BamFile, Record, RecordError, MAX_RECORD_SIZE};
use crate::bgzf::{InflateBuffer, Inflater, VirtualOffset, VirtualRange};
use crate::Result;

#[inline(always)]
fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize
}

/// Checks a record length and the record's reference indices against `n_ref`.
#[inline(always)]
fn checked(bytes: &[u8], n_ref: i32) -> std::result::Result<Record<'_>, RecordError> {
    let record = Record::new(bytes)?;
    let (r, m) = (record.ref_id(), record.next_ref_id());
    if r < -1 || r >= n_ref || m < -1 || m >= n_ref {
        return Err(RecordError(format!(
            "reference index {r} or mate reference index {m} outside the header's {n_ref} references"
        )));
    }
    Ok(record)
}

fn check_length(block_size: usize) -> std::result::Result<(), RecordError> {
    if !(super::record::FIXED_SIZE..=MAX_RECORD_SIZE).contains(&block_size) {
        return Err(RecordError(format!(
            "implausible record length {block_size}"
        )));
    }
    Ok(())
}

/// Reads the records of virtual-offset ranges of one [`BamFile`]: inflates the blocks
/// the range needs (and the following ones while a record straddles them) into a reused
/// buffer. One per worker.
#[derive(Debug, Default)]
pub struct RangeReader {
    inflater: Inflater,
    buf: InflateBuffer,
    blocks: u64,
}

impl RangeReader {
    /// A reader with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Blocks inflated so far (a cost measure).
    pub fn blocks_inflated(&self) -> u64 {
        self.blocks
    }

    /// Calls `f` with each record whose first byte lies in `range`, in file order, until
    /// `f` breaks. Returns the number of records visited.
    pub fn for_each<F>(&mut self, bam: &BamFile, range: VirtualRange, mut f: F) -> Result<u64>
    where
        F: FnMut(Record<'_>) -> ControlFlow<()>,
    {
        let file = bam.bytes();
        let n_ref = bam.header().references.len() as i32;
        let end = range.end;
        let mut next_block = range.start.compressed();
        let mut skip = range.start.uncompressed() as usize;
        let mut carried = range.start;
        let mut cursor = 0usize;
        let mut count = 0u64;
        self.buf.clear();
        loop {
            self.buf.consume(cursor);
            cursor = 0;
            if next_block >= bam.data_end() {
                if self.buf.is_empty() {
                    return Ok(count);
                }
                return Err(bam.error_at(
                    carried.compressed(),
                    format!("the data ends inside the record at virtual offset {carried}"),
                ));
            }
            let block_offset = next_block;
            let block_lo = self.buf.len();
            let info = self
                .inflater
                .inflate_block(file, block_offset, &mut self.buf)
                .map_err(|e| bam.bgzf_error(e))?;
            self.blocks += 1;
            next_block = info.end();
            if skip > 0 {
                if skip > info.inflated_size {
                    return Err(bam.error_at(
                        block_offset,
                        format!(
                            "virtual offset {} points past its block's {} bytes",
                            range.start, info.inflated_size
                        ),
                    ));
                }
                cursor = block_lo + skip;
                skip = 0;
            }
            let data = self.buf.as_slice();
            let filled = data.len();
            loop {
                let here = if cursor < block_lo {
                    carried
                } else if cursor - block_lo < info.inflated_size {
                    VirtualOffset::new(block_offset, (cursor - block_lo) as u16)
                } else {
                    VirtualOffset::new(next_block, 0)
                };
                if here >= end {
                    return Ok(count);
                }
                if cursor + 4 > filled {
                    carried = here;
                    break;
                }
                let block_size = u32_at(data, cursor);
                let at_record = |e: RecordError| {
                    bam.error_at(here.compressed(), format!("{e} (at virtual offset {here})"))
                };
                check_length(block_size).map_err(at_record)?;
                if cursor + 4 + block_size > filled {
                    carried = here;
                    break;
                }
                let record = checked(&data[cursor + 4..cursor + 4 + block_size], n_ref)
                    .map_err(at_record)?;
                count += 1;
                if f(record).is_break() {
                    return Ok(count);
                }
                cursor += 4 + block_size;
            }
        }
    }
}

/// Walks records across consecutive inflated data handed over in file order: a record
/// cut by a block (or batch) boundary is carried over and completed by the next feed.
#[derive(Debug)]
pub struct RecordStitcher {
    carry: InflateBuffer,
    skip: usize,
    n_ref: i32,
    records: u64,
    fed: u64,
}

impl RecordStitcher {
    /// A stitcher for a BAM with `n_ref` references that first skips `skip` bytes (the
    /// offset of the first record inside the first block it will be fed).
    pub fn new(n_ref: usize, skip: usize) -> Self {
        Self {
            carry: InflateBuffer::new(),
            skip,
            n_ref: n_ref.min(i32::MAX as usize) as i32,
            records: 0,
            fed: 0,
        }
    }

    /// Records completed so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Feeds the next inflated bytes; calls `f` with each record completed by them.
    /// Errors say how many decompressed bytes had been fed before the bad record.
    pub fn feed<F>(&mut self, data: &[u8], mut f: F) -> std::result::Result<(), RecordError>
    where
        F: FnMut(Record<'_>),
    {
        let mut data = data;
        let skipped = self.skip.min(data.len());
        data = &data[skipped..];
        self.skip -= skipped;
        // Stream position (in fed bytes) of `data[0]`.
        let mut pos = self.fed + skipped as u64;
        let n_ref = self.n_ref;
        let at = |e: RecordError, p: u64| {
            RecordError(format!("{} (at decompressed byte {p} of the walk)", e.0))
        };
        if !self.carry.is_empty() {
            let carry_start = pos - self.carry.len() as u64;
            let mut take = 0;
            if self.carry.len() < 4 {
                take = (4 - self.carry.len()).min(data.len());
                self.carry.extend_from_slice(&data[..take]);
                if self.carry.len() < 4 {
                    self.fed = pos + data.len() as u64;
                    return Ok(());
                }
            }
            let block_size = u32_at(self.carry.as_slice(), 0);
            check_length(block_size).map_err(|e| at(e, carry_start))?;
            let more = (4 + block_size - self.carry.len()).min(data.len() - take);
            self.carry.extend_from_slice(&data[take..take + more]);
            take += more;
            if self.carry.len() < 4 + block_size {
                self.fed = pos + data.len() as u64;
                return Ok(());
            }
            let record =
                checked(&self.carry.as_slice()[4..], n_ref).map_err(|e| at(e, carry_start))?;
            f(record);
            self.records += 1;
            self.carry.clear();
            data = &data[take..];
            pos += take as u64;
        }
        let mut cursor = 0usize;
        while cursor + 4 <= data.len() {
            let block_size = u32_at(data, cursor);
            check_length(block_size).map_err(|e| at(e, pos + cursor as u64))?;
            if cursor + 4 + block_size > data.len() {
                break;
            }
            let record = checked(&data[cursor + 4..cursor + 4 + block_size], n_ref)
                .map_err(|e| at(e, pos + cursor as u64))?;
            f(record);
            self.records += 1;
            cursor += 4 + block_size;
        }
        self.carry.extend_from_slice(&data[cursor..]);
        self.fed = pos + data.len() as u64;
        Ok(())
    }

    /// Checks that the data did not end inside a record.
    pub fn finish(&self) -> std::result::Result<(), RecordError> {
        if self.carry.is_empty() {
            Ok(())
        } else {
            Err(RecordError(format!(
                "the data ends inside a record ({} of its bytes present)",
                self.carry.len()
            )))
        }
    }
}
