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
mod tests {
    use super::*;
    use crate::bgzf_writer::BgzfWriter;
    use noodles_core::region::Interval;
    use noodles_csi::BinningIndex;

    #[test]
    fn queries_find_the_chunks_of_overlapping_lines() {
        let names = ["chr1", "chr2"];
        let mut indexer = BedIndexer::new(names, 1_000_000);
        let mut writer = BgzfWriter::new(Vec::new(), 1);
        let mut lines = Vec::new();
        let head = b"#chrom\tstart\tend\n";
        let at = writer.virtual_position();
        writer.write_all(head).unwrap();
        indexer
            .add_line(0, head, at, writer.virtual_position())
            .unwrap();
        for (ref_id, name) in names.iter().enumerate() {
            for start in (0..900_000u64).step_by(500) {
                let line = format!("{name}\t{start}\t{}\t1.00\n", start + 500);
                let at = writer.virtual_position();
                writer.write_all(line.as_bytes()).unwrap();
                let end = writer.virtual_position();
                indexer.add_line(ref_id, line.as_bytes(), at, end).unwrap();
                lines.push((ref_id, start, at, end));
            }
        }
        let mut file = Vec::new();
        indexer.write(names.len(), &mut file).unwrap();
        let index = noodles_csi::io::Reader::new(&file[..])
            .read_index()
            .unwrap();
        let names: Vec<_> = index
            .header()
            .unwrap()
            .reference_sequence_names()
            .iter()
            .collect();
        assert_eq!(names, ["chr1", "chr2"]);
        let interval: Interval = "300001-300600".parse().unwrap();
        let chunks = index.query(1, interval).unwrap();
        for &(_, start, at, end) in lines.iter().filter(|l| l.0 == 1) {
            let overlaps = start < 300_600 && start + 500 > 300_000;
            let covered = chunks
                .iter()
                .any(|c| u64::from(c.start()) <= at && end <= u64::from(c.end()));
            if overlaps {
                assert!(covered, "line at {start} not in {chunks:?}");
            }
        }
    }

    #[test]
    fn the_parallel_writer_writes_the_file_and_index_of_the_serial_one() {
        let names = ["chr1", "chr2", "chr3"];
        let head = b"#chrom\tstart\tend\tdepth\n";
        // Batches of 1,000 lines, as a collector gets them from its tasks.
        let mut text = Vec::new();
        for (ref_id, name) in names.iter().enumerate() {
            let starts: Vec<u64> = (0..(ref_id as u64 + 1) * 400_000).step_by(50).collect();
            for batch in starts.chunks(1000) {
                let lines: String = batch
                    .iter()
                    .map(|s| format!("{name}\t{s}\t{}\t{}\n", s + 50, s % 7))
                    .collect();
                text.push((ref_id, lines.into_bytes()));
            }
        }
        let mut serial = BgzfWriter::new(Vec::new(), 6);
        let mut indexer = BedIndexer::new(names, 1_200_000);
        serial.write_all(head).unwrap();
        for (ref_id, lines) in &text {
            for line in lines.split_inclusive(|&b| b == b'\n') {
                let at = serial.virtual_position();
                serial.write_all(line).unwrap();
                let end = serial.virtual_position();
                indexer.add_line(*ref_id, line, at, end).unwrap();
            }
        }
        let file = serial.finish().unwrap();
        let mut index = Vec::new();
        indexer.write(names.len(), &mut index).unwrap();
        for threads in [1, 3] {
            let indexer = BedIndexer::new(names, 1_200_000);
            let mut writer = IndexedBedWriter::new(Vec::new(), 6, threads, indexer).unwrap();
            writer.write_unindexed(head).unwrap();
            for (ref_id, lines) in &text {
                writer.write_lines(*ref_id, lines).unwrap();
            }
            let (parallel_file, indexer) = writer.finish().unwrap();
            let mut parallel_index = Vec::new();
            indexer.write(names.len(), &mut parallel_index).unwrap();
            assert!(parallel_file == file, "file at {threads} threads");
            assert!(parallel_index == index, "index at {threads} threads");
        }
    }

    proptest::proptest! {
        #[test]
        fn plain_lines_read_as_any_line_reads_them(
            name in "[a-z0-9]{0,3}",
            start in "[0-9]{0,21}|[0-9+ \r-]{0,4}",
            end in "[0-9]{0,21}|[0-9+ \r-]{0,4}",
            rest in "(\t[0-9. ]{0,3})?\n?",
            tab_separated in proptest::bool::weighted(0.9),
        ) {
            let line = [name, start, end].join(if tab_separated { "\t" } else { " " }) + &rest;
            let line = line.as_bytes();
            if let Some(plain) = plain_columns(line) {
                proptest::prop_assert_eq!(Ok(plain), any_columns(line));
            }
        }
    }

    #[test]
    fn plain_columns_read_the_commands_lines() {
        assert_eq!(plain_columns(b"chr1\t0\t500\t1.00\n"), Some((0, 500)));
        assert_eq!(plain_columns(b"chr1\t12\t12"), Some((12, 12)));
        assert_eq!(plain_columns(b"chr1\t1\t18446744073709551615\n"), None);
        assert_eq!(plain_columns(b"chr1\t1\t2\r\n"), None);
        assert_eq!(any_columns(b"chr1\t1\t2\r\n"), Ok((1, 2)));
    }

    /// The index of `lines` (contig, text) written one BGZF stream after another, built
    /// by noodles one record per line, and by [`BedIndexer`].
    fn both_indexes(names: &[&str], max_length: u64, lines: &[(usize, String)]) -> [Vec<u8>; 2] {
        let depth = BedIndexer::new(names.iter().copied(), max_length).depth;
        let mut per_line = Indexer::<BinnedIndex>::new(MIN_SHIFT, depth)
            .unwrap()
            .set_header(bed_header(
                names.iter().map(|n| n.as_bytes().into()).collect(),
            ));
        let mut grouped = BedIndexer::new(names.iter().copied(), max_length);
        let mut writer = BgzfWriter::new(Vec::new(), 1);
        for (ref_id, line) in lines {
            let at = writer.virtual_position();
            writer.write_all(line.as_bytes()).unwrap();
            let end = writer.virtual_position();
            grouped.add_line(*ref_id, line.as_bytes(), at, end).unwrap();
            if let Some(interval) = interval(line.as_bytes()) {
                let (first, last) = interval.unwrap();
                let chunk = Chunk::new(at.into(), end.into());
                per_line
                    .add_record(Some((*ref_id, first, last, true)), chunk)
                    .unwrap();
            }
        }
        let mut expected = noodles_csi::io::Writer::new(Vec::new());
        expected.write_index(&per_line.build(names.len())).unwrap();
        let mut ours = Vec::new();
        grouped.write(names.len(), &mut ours).unwrap();
        [expected.into_inner().finish().unwrap(), ours]
    }

    #[test]
    fn lines_joined_in_their_bins_index_as_line_by_line() {
        let names = ["chr1", "chr2", "chr3"];
        let mut rng = 7u64;
        let mut next = || {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            rng >> 33
        };
        let mut lines = vec![(0, "#chrom\tstart\tend\n".to_string())];
        for (ref_id, name) in names.iter().enumerate() {
            let (mut pos, mut previous) = (0u64, 0u64);
            while pos < 3_000_000 {
                // Per-base runs, windows, empty intervals, lines across bins of every
                // level, and overlapping lines.
                let len = match next() % 10 {
                    0..=5 => 1 + next() % 20,
                    6 | 7 => 500,
                    8 => 0,
                    _ => next() % 300_000,
                };
                let start = if next() % 50 == 0 {
                    pos.saturating_sub(100).max(previous)
                } else {
                    pos
                };
                previous = start;
                lines.push((
                    ref_id,
                    format!("{name}\t{start}\t{}\t{}\n", start + len, next() % 9),
                ));
                pos = pos.max(start + len);
            }
        }
        let [expected, ours] = both_indexes(&names, 3_000_000, &lines);
        assert!(ours == expected, "the indexes differ");
    }

    #[test]
    fn bins_are_csis() {
        let p = |n: usize| Position::new(n).unwrap();
        // BAI's layout (depth 5): level 5 starts at bin 4681, level 4 at 585.
        assert_eq!(bin_of(p(1), p(1), 5), 4681);
        assert_eq!(bin_of(p(16_385), p(16_385), 5), 4682);
        assert_eq!(bin_of(p(16_384), p(16_385), 5), 585);
        assert_eq!(bin_of(p(1), p(1 << 29), 5), 0);
        assert_eq!(bin_of(p(1), p(1), 6), 37_449);
    }

    #[test]
    fn an_out_of_order_line_is_an_error_at_that_line() {
        let mut indexer = BedIndexer::new(["chr1", "chr2"], 100_000);
        indexer.add_line(0, b"chr1\t0\t500\n", 0, 10).unwrap();
        indexer.add_line(0, b"chr1\t500\t900\n", 10, 20).unwrap();
        let error = indexer
            .add_line(0, b"chr1\t100\t200\n", 20, 30)
            .unwrap_err();
        assert!(error.contains("out of order"), "{error}");
        indexer.add_line(1, b"chr2\t0\t500\n", 30, 40).unwrap();
        assert!(indexer.add_line(0, b"chr1\t900\t950\n", 40, 50).is_err());
    }

    #[test]
    fn a_line_without_coordinates_is_an_error() {
        let mut indexer = BedIndexer::new(["chr1"], 100);
        assert!(indexer.add_line(0, b"chr1\tx\t5\n", 0, 10).is_err());
        assert!(indexer.add_line(0, b"chr1\n", 0, 10).is_err());
    }
}
