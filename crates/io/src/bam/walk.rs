//! Walking records: through a virtual-offset range (one worker, one range) or across
//! consecutive inflated blocks handed over in order (stitching).

use std::ops::ControlFlow;

use super::{BamFile, Record, RecordError, MAX_RECORD_SIZE};
use crate::bgzf::{BlockInfo, InflateBuffer, Inflater, VirtualOffset, VirtualRange};
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
            "implausible record length {block_size} (a BAM record takes {} bytes to {})",
            super::record::FIXED_SIZE,
            crate::input::human_size(MAX_RECORD_SIZE)
        )));
    }
    Ok(())
}

/// Reads the records of virtual-offset ranges of one [`BamFile`]: inflates the blocks
/// the range needs (and the following ones while a record straddles them) into a reused
/// buffer. One per worker.
///
/// The block a walk ended in is kept, so a next walk that starts in it (consecutive
/// regions share their boundary block) copies it instead of inflating it again. The kept
/// block is known by its offset, compressed size and gzip footer (CRC32 and size of its
/// inflated bytes), so a reader used on several files never takes one file's block for
/// another's.
#[derive(Debug, Default)]
pub struct RangeReader {
    inflater: Inflater,
    buf: InflateBuffer,
    blocks: u64,
    /// The last block of the previous walk, its gzip footer, and its inflated bytes.
    last: Option<(BlockInfo, [u8; 8])>,
    last_data: InflateBuffer,
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
        self.for_each_at(bam, range, |_, record| f(record))
    }

    /// As [`for_each`](Self::for_each), with each record's virtual offset.
    pub fn for_each_at<F>(&mut self, bam: &BamFile, range: VirtualRange, mut f: F) -> Result<u64>
    where
        F: FnMut(VirtualOffset, Record<'_>) -> ControlFlow<()>,
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
            let info = match self.last {
                Some((last, footer))
                    if is_block(file, last, footer) && last.offset == block_offset =>
                {
                    self.buf.extend_from_slice(self.last_data.as_slice());
                    last
                }
                _ => {
                    self.blocks += 1;
                    self.inflater
                        .inflate_block(file, block_offset, &mut self.buf)
                        .map_err(|e| bam.bgzf_error(e))?
                }
            };
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
                    self.keep(file, block_lo, info);
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
                if f(here, record).is_break() {
                    self.keep(file, block_lo, info);
                    return Ok(count);
                }
                cursor += 4 + block_size;
            }
        }
    }
}

impl RangeReader {
    /// Keeps the block at `buf[lo..]` for the next walk.
    fn keep(&mut self, file: &[u8], lo: usize, info: BlockInfo) {
        let Some(footer) = footer(file, info) else {
            return;
        };
        if self.last != Some((info, footer)) {
            self.last_data.clear();
            self.last_data
                .extend_from_slice(&self.buf.as_slice()[lo..lo + info.inflated_size]);
            self.last = Some((info, footer));
        }
    }
}

/// The gzip footer (CRC32 and inflated size) of block `info` of `file`.
fn footer(file: &[u8], info: BlockInfo) -> Option<[u8; 8]> {
    let end = usize::try_from(info.end()).ok()?;
    file.get(end.checked_sub(8)?..end)?.try_into().ok()
}

/// Whether `file` holds block `info` with `footer` at its offset.
fn is_block(file: &[u8], info: BlockInfo, footer: [u8; 8]) -> bool {
    crate::bgzf::block_at(file, info.offset).is_ok_and(|b| b == info)
        && self::footer(file, info) == Some(footer)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bam::test_bam;
    use crate::bgzf::{BlockScanner, VirtualRange};

    /// A BAM of 40 records compressed in blocks of `chunk` bytes (records straddle
    /// blocks), with an empty block spliced in after every third block.
    fn tiny_bam(chunk: usize) -> (tempfile::TempDir, BamFile) {
        let mut data = test_bam::header("", &[("c", 1000)]);
        for i in 0..40i32 {
            let seq = vec![b'A'; (i as usize * 7) % 50];
            data.extend(test_bam::record(
                &format!("r{i}"),
                0,
                0,
                i,
                9,
                &[],
                &seq,
                -1,
            ));
        }
        let packed = test_bam::bgzf(&data, chunk);
        let empty = test_bam::bgzf(b"", 1);
        let empty_block = &empty[..empty.len() - 28];
        let mut file = Vec::new();
        let blocks: Vec<_> = BlockScanner::new(&packed, 0, packed.len() as u64)
            .map(|b| b.unwrap())
            .collect();
        for (i, b) in blocks.iter().enumerate() {
            file.extend_from_slice(&packed[b.offset as usize..b.end() as usize]);
            if i % 3 == 2 && i + 1 < blocks.len() {
                file.extend_from_slice(empty_block);
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tiny.bam");
        std::fs::write(&path, &file).unwrap();
        let bam = BamFile::open(&path).unwrap();
        (dir, bam)
    }

    fn names(bam: &BamFile, range: VirtualRange) -> Vec<String> {
        let mut out = Vec::new();
        RangeReader::new()
            .for_each(bam, range, |r| {
                out.push(String::from_utf8_lossy(r.read_name()).into_owned());
                ControlFlow::Continue(())
            })
            .unwrap();
        out
    }

    #[test]
    fn ranges_between_any_record_starts_partition_the_records() {
        for chunk in [7, 33, 100_000] {
            let (_dir, bam) = tiny_bam(chunk);
            let end = VirtualOffset::new(bam.data_end(), 0);
            let whole = VirtualRange {
                start: bam.records_start(),
                end,
            };
            let all = names(&bam, whole);
            assert_eq!(all.len(), 40, "chunk {chunk}");
            // Find every record's virtual offset by stopping after k records.
            let mut starts = vec![bam.records_start()];
            for k in 1..40 {
                let mut seen = 0;
                let mut next = None;
                let mut reader = RangeReader::new();
                // The start of record k is where a range from it yields record k first:
                // search the block offsets for it.
                for b in BlockScanner::new(bam.bytes(), 0, bam.data_end()) {
                    let b = b.unwrap();
                    for u in 0..=b.inflated_size.min(65535) {
                        let v = VirtualOffset::new(b.offset, u as u16);
                        if v <= starts[k - 1] || next.is_some() {
                            continue;
                        }
                        let mut first = None;
                        let got = reader.for_each(&bam, VirtualRange { start: v, end }, |r| {
                            first = Some(String::from_utf8_lossy(r.read_name()).into_owned());
                            ControlFlow::Break(())
                        });
                        if got.is_ok() && first.as_deref() == Some(all[k].as_str()) {
                            next = Some(v);
                        }
                        seen += 1;
                    }
                }
                assert!(seen > 0);
                starts.push(next.expect("record start found"));
            }
            // Any cut at record starts gives every record exactly once.
            for cut in [1usize, 5, 17, 39] {
                let mut got = names(
                    &bam,
                    VirtualRange {
                        start: starts[0],
                        end: starts[cut],
                    },
                );
                got.extend(names(
                    &bam,
                    VirtualRange {
                        start: starts[cut],
                        end,
                    },
                ));
                assert_eq!(got, all, "chunk {chunk} cut {cut}");
            }
            // A stitcher fed one block at a time sees the same records.
            let mut inflater = Inflater::new();
            let mut stitched = Vec::new();
            let mut stitcher = RecordStitcher::new(1, bam.records_start().uncompressed() as usize);
            for b in BlockScanner::new(
                bam.bytes(),
                bam.records_start().compressed(),
                bam.data_end(),
            ) {
                let b = b.unwrap();
                let mut buf = InflateBuffer::new();
                inflater
                    .inflate_block(bam.bytes(), b.offset, &mut buf)
                    .unwrap();
                stitcher
                    .feed(buf.as_slice(), |r| {
                        stitched.push(String::from_utf8_lossy(r.read_name()).into_owned())
                    })
                    .unwrap();
            }
            stitcher.finish().unwrap();
            assert_eq!(stitched, all, "chunk {chunk}");
        }
    }

    #[test]
    fn a_reader_used_on_two_files_reads_each_ones_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let open = |prefix: &str| {
            let mut data = test_bam::header("", &[("c", 1000)]);
            for i in 0..5 {
                let name = format!("{prefix}{i}");
                data.extend(test_bam::record(&name, 0, 0, i, 9, &[], b"ACGT", -1));
            }
            let path = dir.path().join(format!("{prefix}.bam"));
            std::fs::write(&path, test_bam::bgzf(&data, 100_000)).unwrap();
            BamFile::open(&path).unwrap()
        };
        let (a, b) = (open("a"), open("b"));
        assert_eq!(a.records_start(), b.records_start());
        let mut reader = RangeReader::new();
        for (bam, want) in [(&a, "a0"), (&b, "b0"), (&a, "a0")] {
            let whole = VirtualRange {
                start: bam.records_start(),
                end: VirtualOffset::new(bam.data_end(), 0),
            };
            let mut first = String::new();
            reader
                .for_each(bam, whole, |r| {
                    first = String::from_utf8_lossy(r.read_name()).into_owned();
                    ControlFlow::Break(())
                })
                .unwrap();
            assert_eq!(first, want);
        }
        assert_eq!(reader.blocks_inflated(), 3);
    }
}
