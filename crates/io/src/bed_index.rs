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
use noodles_csi::binning_index::Indexer;

use crate::bgzf_writer::{BlockStarts, ParallelBgzfWriter};
use crate::index_counts::with_record_counts;

pub use self::groups::PartLineGroups;
use self::groups::{LineGroup, LineGrouper};

mod groups;

/// CSI's smallest bin (16 kbp), as tabix and mosdepth use.
const MIN_SHIFT: u8 = 14;

/// Builds the CSI index of a BED file from its lines and their virtual offsets.
pub struct BedIndexer {
    indexer: Indexer<BinnedIndex>,
    /// The lines, grouped as the index takes them.
    grouper: LineGrouper,
    /// Lines indexed per contig: the index's record counts.
    lines: Vec<u64>,
}

impl BedIndexer {
    /// An indexer for a BED file over contigs `names` (in the order their lines come)
    /// no longer than `max_length`.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>, max_length: u64) -> Self {
        let grouper = LineGrouper::new(max_length);
        let names: ReferenceSequenceNames =
            names.into_iter().map(|n| n.as_bytes().into()).collect();
        let indexer = Indexer::new(MIN_SHIFT, grouper.depth)
            .expect("a shift and depth within CSI's limits")
            .set_header(bed_header(names));
        Self {
            indexer,
            grouper,
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
        let (indexer, lines) = (&mut self.indexer, &mut self.lines);
        self.grouper
            .add_line(ref_id, line, start, end, &mut |group| {
                add_group(indexer, lines, group)
            })
    }

    /// Adds a line of contig number `ref_id` covering `interval` (see [`interval`]) from
    /// virtual offset `start` to `end`.
    fn add_interval(
        &mut self,
        ref_id: usize,
        interval: (Position, Position),
        start: u64,
        end: u64,
    ) -> Result<(), String> {
        let (indexer, lines) = (&mut self.indexer, &mut self.lines);
        self.grouper
            .add(ref_id, interval, start, end, &mut |group| {
                add_group(indexer, lines, group)
            })
    }

    /// Adds the lines of a part of the file, grouped by [`PartLineGroups`], which follow
    /// the lines added so far: the index is the one their lines give one by one.
    pub fn add_part(&mut self, part: &PartLineGroups) -> Result<(), String> {
        let (indexer, lines) = (&mut self.indexer, &mut self.lines);
        self.grouper
            .add_groups(part, &mut |group| add_group(indexer, lines, group))
    }

    /// Writes the index (BGZF-compressed, as CSI files are) for `reference_count` contigs.
    pub fn write(mut self, reference_count: usize, out: impl Write) -> std::io::Result<()> {
        let (indexer, lines) = (&mut self.indexer, &mut self.lines);
        self.grouper
            .flush(&mut |group| add_group(indexer, lines, group))
            .map_err(io::Error::other)?;
        let built = self.indexer.build(reference_count);
        // A group was one record: each contig's record count is its count of lines.
        let lines = &self.lines;
        let index = with_record_counts(
            built,
            |ref_id, m| {
                (
                    lines.get(ref_id).copied().unwrap_or(0),
                    m.unmapped_record_count(),
                )
            },
            |n| n,
        );
        let mut writer = noodles_csi::io::Writer::new(out);
        writer.write_index(&index)?;
        writer.into_inner().finish().map(drop)
    }
}

/// Adds a group of lines to `indexer` as one record (its bin, its chunk) and counts its
/// lines in `lines`; a line the index refuses is added alone and its error returned.
fn add_group(
    indexer: &mut Indexer<BinnedIndex>,
    lines: &mut Vec<u64>,
    group: &LineGroup,
) -> Result<(), String> {
    let chunk = Chunk::new(group.start.into(), group.end.into());
    indexer
        .add_record(Some((group.ref_id, group.first, group.last, true)), chunk)
        .map_err(|e| e.to_string())?;
    if lines.len() <= group.ref_id {
        lines.resize(group.ref_id + 1, 0);
    }
    lines[group.ref_id] += group.lines;
    Ok(())
}

/// The tabix header of a BED file's index over contigs `names`.
fn bed_header(names: ReferenceSequenceNames) -> header::Header {
    header::Builder::bed()
        .set_reference_sequence_names(names)
        .build()
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
