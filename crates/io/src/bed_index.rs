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

/// CSI's smallest bin (16 kbp), as tabix and mosdepth use.
const MIN_SHIFT: u8 = 14;

/// Builds the CSI index of a BED file from its lines and their virtual offsets.
pub struct BedIndexer {
    indexer: Indexer<BinnedIndex>,
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
        let header = header::Builder::bed()
            .set_reference_sequence_names(names)
            .build();
        let indexer = Indexer::new(MIN_SHIFT, depth)
            .expect("a shift and depth within CSI's limits")
            .set_header(header);
        Self { indexer }
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
        let chunk = Chunk::new(start.into(), end.into());
        self.indexer
            .add_record(Some((ref_id, first, last, true)), chunk)
            .map_err(|e| e.to_string())
    }

    /// Writes the index (BGZF-compressed, as CSI files are) for `reference_count` contigs.
    pub fn write(self, reference_count: usize, out: impl Write) -> std::io::Result<()> {
        let index = self.indexer.build(reference_count);
        let mut writer = noodles_csi::io::Writer::new(out);
        writer.write_index(&index)?;
        writer.into_inner().finish().map(drop)
    }
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

    #[test]
    fn a_line_without_coordinates_is_an_error() {
        let mut indexer = BedIndexer::new(["chr1"], 100);
        assert!(indexer.add_line(0, b"chr1\tx\t5\n", 0, 10).is_err());
        assert!(indexer.add_line(0, b"chr1\n", 0, 10).is_err());
    }
}
