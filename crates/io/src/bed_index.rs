//! A CSI index of a BGZF-compressed BED file, built while the file is written, as
//! `tabix --csi -p bed` (and mosdepth, beside its `.bed.gz` outputs) would build it
//! afterwards: each data line is placed by its contig and `[start, end)` columns and
//! found again through its virtual offsets; lines starting with `#` are not indexed.
//! [`IndexedBedWriter`] writes such a file on a pool of compressing threads and indexes
//! each line once its virtual offsets are known.

use std::collections::VecDeque;
use std::io::{self, Write};

use noodles_core::Position;
use noodles_csi::binning_index::index::header::{self, ReferenceSequenceNames};
use noodles_csi::binning_index::index::reference_sequence::bin::Chunk;
use noodles_csi::binning_index::index::reference_sequence::index::BinnedIndex;
use noodles_csi::binning_index::index::reference_sequence::{Metadata, ReferenceSequence};
use noodles_csi::binning_index::indexer::AddRecordError;
use noodles_csi::binning_index::{BinningIndex, Indexer, ReferenceSequence as _};

use crate::bgzf_writer::{BlockStarts, ParallelBgzfWriter};

/// CSI's smallest bin (16 kbp), as tabix and mosdepth use.
const MIN_SHIFT: u8 = 14;

/// Builds the CSI index of a BED file from its lines and their virtual offsets.
pub struct BedIndexer {
    indexer: Indexer<BinnedIndex>,
    depth: u8,
    /// Lines joined and not yet added to `indexer`.
    group: Option<LineGroup>,
    /// The contig and start of the last line, whose order the next line must keep.
    last: Option<(usize, Position)>,
    /// Lines indexed per contig: the index's record counts.
    lines: Vec<u64>,
}

/// Consecutive lines of one contig whose intervals lie in one bin and whose chunks join
/// (each starts in the file where the one before ends, so the index would merge their
/// chunks anyway), added to the index as one record over their union. The union lies in
/// the same bin, its chunk is the merged one and starts where the first line does, so
/// the bins, the offsets and the positions of the index are those of the lines one by
/// one; only the record count is set right when the index is built
/// ([`BedIndexer::write`]). Adding a record costs a hashed look-up per level of bins,
/// and a bin of 16 kbp holds dozens of windows or thousands of per-base runs.
struct LineGroup {
    ref_id: usize,
    bin: usize,
    first: Position,
    last: Position,
    start: u64,
    end: u64,
}

impl BedIndexer {
    /// An indexer for a BED file over contigs `names` (in the order their lines come)
    /// no longer than `max_length`.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>, max_length: u64) -> Self {
        // Levels enough for the longest contig, at least BAI's five.
        let mut depth = 5u8;
        while (1u64 << (MIN_SHIFT + 3 * depth)) < max_length.saturating_add(1) {
            depth += 1;
        }
        let names: ReferenceSequenceNames =
            names.into_iter().map(|n| n.as_bytes().into()).collect();
        let indexer = Indexer::new(MIN_SHIFT, depth)
            .expect("a shift and depth within CSI's limits")
            .set_header(bed_header(names));
        Self {
            indexer,
            depth,
            group: None,
            last: None,
            lines: Vec::new(),
        }
    }

    /// Adds one line of contig number `ref_id` that starts at virtual offset `start` and
    /// ends before `end`. A line starting with `#` is skipped.
    pub fn add_line(
        &mut self,
        ref_id: usize,
        line: &[u8],
        start: u64,
        end: u64,
    ) -> Result<(), String> {
        match interval(line) {
            None => Ok(()),
            Some(interval) => self.add_interval(ref_id, interval?, start, end),
        }
    }

    /// Adds a line of contig number `ref_id` covering `interval` (see [`interval`]) from
    /// virtual offset `start` to `end`.
    fn add_interval(
        &mut self,
        ref_id: usize,
        (first, last): (Position, Position),
        start: u64,
        end: u64,
    ) -> Result<(), String> {
        // Only a line the index takes as it is joins a group, so an error names its line.
        let ordered = match self.last {
            Some((r, previous)) if r == ref_id => {
                if first < previous {
                    self.flush()?;
                    return Err(AddRecordError::OutOfOrderStartPosition {
                        start: first,
                        prev_start_position: previous,
                    }
                    .to_string());
                }
                true
            }
            Some((r, _)) => r < ref_id,
            None => true,
        };
        let max_position = 1usize << (u32::from(MIN_SHIFT) + 3 * u32::from(self.depth));
        let valid = ordered && first <= last && usize::from(last) <= max_position;
        let bin = valid.then(|| bin_of(first, last, self.depth));
        match (&mut self.group, bin) {
            (Some(group), Some(bin))
                if group.ref_id == ref_id && group.bin == bin && start <= group.end =>
            {
                group.last = group.last.max(last);
                group.end = end;
            }
            _ => {
                self.flush()?;
                let Some(bin) = bin else {
                    // The index refuses the line and says why.
                    return self.add_record(ref_id, first, last, start, end);
                };
                self.group = Some(LineGroup {
                    ref_id,
                    bin,
                    first,
                    last,
                    start,
                    end,
                });
            }
        }
        self.count(ref_id);
        self.last = Some((ref_id, first));
        Ok(())
    }

    /// Counts a line of contig `ref_id` as indexed.
    fn count(&mut self, ref_id: usize) {
        if self.lines.len() <= ref_id {
            self.lines.resize(ref_id + 1, 0);
        }
        self.lines[ref_id] += 1;
    }

    /// Adds the group of lines waiting, if any, to the index.
    fn flush(&mut self) -> Result<(), String> {
        match self.group.take() {
            Some(g) => self.add_record(g.ref_id, g.first, g.last, g.start, g.end),
            None => Ok(()),
        }
    }

    /// Adds one record to the index (a line the index refuses is not counted).
    fn add_record(
        &mut self,
        ref_id: usize,
        first: Position,
        last: Position,
        start: u64,
        end: u64,
    ) -> Result<(), String> {
        let chunk = Chunk::new(start.into(), end.into());
        self.indexer
            .add_record(Some((ref_id, first, last, true)), chunk)
            .map_err(|e| e.to_string())
    }

    /// Writes the index (BGZF-compressed, as CSI files are) for `reference_count` contigs.
    pub fn write(mut self, reference_count: usize, out: impl Write) -> std::io::Result<()> {
        self.flush().map_err(io::Error::other)?;
        let built = self.indexer.build(reference_count);
        // A group was one record: each contig's record count is its count of lines.
        let reference_sequences = built
            .reference_sequences()
            .iter()
            .enumerate()
            .map(|(ref_id, reference)| {
                let metadata = reference.metadata().map(|m| {
                    Metadata::new(
                        m.start_position(),
                        m.end_position(),
                        self.lines.get(ref_id).copied().unwrap_or(0),
                        m.unmapped_record_count(),
                    )
                });
                ReferenceSequence::new(
                    reference.bins().clone(),
                    reference.index().clone(),
                    metadata,
                )
            })
            .collect();
        let mut index = noodles_csi::binning_index::Index::builder()
            .set_min_shift(built.min_shift())
            .set_depth(built.depth())
            .set_reference_sequences(reference_sequences);
        if let Some(header) = built.header() {
            index = index.set_header(header.clone());
        }
        if let Some(count) = built.unplaced_unmapped_record_count() {
            index = index.set_unplaced_unmapped_record_count(count);
        }
        let index = index.build();
        let mut writer = noodles_csi::io::Writer::new(out);
        writer.write_index(&index)?;
        writer.into_inner().finish().map(drop)
    }
}

/// The tabix header of a BED file's index over contigs `names`.
fn bed_header(names: ReferenceSequenceNames) -> header::Header {
    header::Builder::bed()
        .set_reference_sequence_names(names)
        .build()
}

/// The CSI bin of the 1-based inclusive interval `first..=last`: the smallest bin, of
/// 2^14 bases at the lowest of `depth` levels, that holds it (CSI's `reg2bin`).
fn bin_of(first: Position, last: Position, depth: u8) -> usize {
    let (begin, end) = (usize::from(first) - 1, usize::from(last) - 1);
    let mut shift = u32::from(MIN_SHIFT);
    let mut level_first = ((1usize << (3 * u32::from(depth))) - 1) / 7;
    for level in (1..=depth).rev() {
        if begin >> shift == end >> shift {
            return level_first + (begin >> shift);
        }
        shift += 3;
        level_first -= 1 << (3 * u32::from(level - 1));
    }
    0
}

/// The 1-based inclusive interval a BED line covers, read from its start and end columns
/// (an empty one covers the base after it); `None` for a `#` line, which is not indexed.
fn interval(line: &[u8]) -> Option<Result<(Position, Position), String>> {
    (line.first() != Some(&b'#')).then(|| columns(line))
}

/// The interval of a data line (see [`interval`]).
fn columns(line: &[u8]) -> Result<(Position, Position), String> {
    let (begin, finish) = match plain_columns(line) {
        Some(columns) => columns,
        None => any_columns(line)?,
    };
    let first = Position::new(begin as usize + 1).ok_or("BED start out of range")?;
    let last = Position::new(finish.max(begin + 1) as usize).ok_or("BED end out of range")?;
    Ok((first, last))
}

/// The start and end columns of a line written as the commands write theirs
/// (`name<TAB>digits<TAB>digits`, then a tab, a line break or nothing), read without
/// splitting or UTF-8 checks: the collector indexes every line of its BED outputs, millions
/// for windows over a whole genome. `None` for any other line, which [`any_columns`] reads.
fn plain_columns(line: &[u8]) -> Option<(u64, u64)> {
    let tab = memchr::memchr(b'\t', line)?;
    let (begin, rest) = leading_number(&line[tab + 1..])?;
    let (finish, rest) = leading_number(rest.strip_prefix(b"\t")?)?;
    matches!(rest.first(), None | Some(b'\t' | b'\n')).then_some((begin, finish))
}

/// The decimal number at the start of `bytes` (1 to 19 digits, so that it fits a `u64`)
/// and the bytes after it.
fn leading_number(bytes: &[u8]) -> Option<(u64, &[u8])> {
    let digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 19 {
        return None;
    }
    let n = bytes[..digits]
        .iter()
        .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0'));
    Some((n, &bytes[digits..]))
}

/// The start and end columns of any line: the second and third tab-separated fields,
/// trailing white space allowed, or an error naming the one missing.
fn any_columns(line: &[u8]) -> Result<(u64, u64), String> {
    let mut fields = line.split(|&b| b == b'\t').skip(1);
    let mut column = |what: &str| -> Result<u64, String> {
        fields
            .next()
            .and_then(|f| std::str::from_utf8(f).ok()?.trim_end().parse().ok())
            .ok_or_else(|| format!("BED line without a {what} column to index"))
    };
    Ok((column("start")?, column("end")?))
}

/// A line written and not yet indexed (its virtual offsets are not known yet): its contig,
/// what [`interval`] read of it, and where it starts and ends in the uncompressed stream.
struct Unindexed {
    ref_id: usize,
    interval: Result<(Position, Position), String>,
    start: u64,
    end: u64,
}

/// Why a BED line could not be written and indexed.
#[derive(Debug)]
pub enum BedWriteError {
    /// Writing failed.
    Io(io::Error),
    /// The line at compressed `offset` could not be indexed (no start or end column, or
    /// out of order).
    Line { offset: u64, message: String },
}

/// Writes a BGZF BED file on a pool of compressing threads (the calling thread only cuts
/// blocks, as a farm's collector must stay light) and builds its CSI index as it goes:
/// each line waits, in a queue no longer than the blocks in flight, until the blocks
/// before it are written and its virtual offsets known, then is indexed. The file and the
/// index are byte for byte those of [`BgzfWriter`](crate::bgzf_writer::BgzfWriter) and
/// [`BedIndexer::add_line`] on the same lines.
pub struct IndexedBedWriter<W: Write> {
    writer: ParallelBgzfWriter<W>,
    indexer: BedIndexer,
    unindexed: VecDeque<Unindexed>,
}

impl<W: Write> IndexedBedWriter<W> {
    /// A writer to `inner`, compressing at libdeflate `level` on `threads` threads, that
    /// indexes with `indexer`.
    pub fn new(inner: W, level: i32, threads: usize, indexer: BedIndexer) -> io::Result<Self> {
        Ok(Self {
            writer: ParallelBgzfWriter::new(inner, level, threads)?,
            indexer,
            unindexed: VecDeque::new(),
        })
    }

    /// Writes `bytes`, which are not indexed (a header).
    pub fn write_unindexed(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.writer.write_all(bytes)
    }

    /// Writes `lines`, whole BED lines of contig number `ref_id`, and indexes those whose
    /// virtual offsets are known by now.
    pub fn write_lines(&mut self, ref_id: usize, lines: &[u8]) -> Result<(), BedWriteError> {
        let mut start = self.writer.stream_offset();
        self.writer.write_all(lines).map_err(BedWriteError::Io)?;
        for line in lines.split_inclusive(|&b| b == b'\n') {
            let end = start + line.len() as u64;
            if let Some(interval) = interval(line) {
                self.unindexed.push_back(Unindexed {
                    ref_id,
                    interval,
                    start,
                    end,
                });
            }
            start = end;
        }
        Self::index_resolved(
            &mut self.indexer,
            &mut self.unindexed,
            self.writer.block_starts(),
        )
    }

    /// Writes the last block and the EOF marker and indexes the lines left; returns the
    /// inner writer and the complete indexer, to write the index with.
    pub fn finish(mut self) -> Result<(W, BedIndexer), BedWriteError> {
        let (inner, starts) = self
            .writer
            .finish_with_block_starts()
            .map_err(BedWriteError::Io)?;
        Self::index_resolved(&mut self.indexer, &mut self.unindexed, &starts)?;
        Ok((inner, self.indexer))
    }

    /// Indexes the lines, in order, whose ends `starts` resolves.
    fn index_resolved(
        indexer: &mut BedIndexer,
        unindexed: &mut VecDeque<Unindexed>,
        starts: &BlockStarts,
    ) -> Result<(), BedWriteError> {
        while let Some(line) = unindexed.front() {
            let Some(end) = starts.virtual_position(line.end) else {
                break;
            };
            let start = starts
                .virtual_position(line.start)
                .expect("a line's start resolves before its end");
            let line = unindexed.pop_front().expect("the front line");
            line.interval
                .and_then(|interval| indexer.add_interval(line.ref_id, interval, start, end))
                .map_err(|message| BedWriteError::Line {
                    offset: start >> 16,
                    message,
                })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
