//! `seqfarm align --sort` in parts: each part's records sorted by coordinate and spilled
//! into its worker process's file on the shared filesystem ([`PartSpill`]), grouped by
//! genomic range ([`sort_range`](seqfarm_io::bam_writer::sort_range)), followed by a
//! table of where each 1 Mbp cell ([`range_and_cell`]) lies; one task per range (or per
//! run of its cells, for a range holding many of the reads) merges every part's records
//! of it ([`merge_cells`]) into the BGZF blocks the command writes for it (the command
//! starts a block at each range and cell), with its index entries; the ranges' bytes
//! placed end to end are the command's BAM, and the index built from the ranges' entries
//! ([`sorted_index`]) is its index. The unplaced reads, often the largest range by far,
//! need no merging (they keep the input's order, forward strand first): they are written
//! in pieces of whole runs of [`UNPLACED_RUN`](seqfarm_io::bam_writer::UNPLACED_RUN)
//! records ([`write_unplaced`]), where the command starts blocks too.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use anyhow::Context;
use seqfarm_io::bam_sort::{index_beside, sort_key, BatchSort};
use seqfarm_io::bam_writer::{index_of_ranges, range_and_cell, IndexedBamWriter, UNPLACED_RANGE};
use seqfarm_io::output::{write_pieces_at, Output};

use self::cells::CellTable;
pub use self::cells::{span_in_table, CellSizes};
use self::spill::OpenFiles;
pub use self::spill::{read_groups, write_group, PartSpill};
use super::{cached_index, run_part, AlignPart};
use crate::cmd::align::{peek_contig_lengths, AlignOptions, BAM_LEVEL};
use crate::common::worker_threads;

mod cells;
mod spill;

/// Where one genomic range's records of a part lie in its spill file (the unplaced
/// range's records of each strand apart).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeSegment {
    /// The range ([`sort_range`](seqfarm_io::bam_writer::sort_range)).
    pub range: u64,
    /// Whether these are the unplaced records flagged reverse (0x10), which the command
    /// writes after every part's others.
    pub reverse: bool,
    /// Offset and length of its records in the spill file, and their number.
    pub offset: u64,
    pub len: u64,
    pub records: u64,
}

/// What aligning a part for sorted output gives: where its spill lies, where its ranges
/// lie in the spill file, and the summary's counts.
pub struct SortedPart {
    pub spill: PartSpill,
    pub segments: Vec<RangeSegment>,
    /// The bytes of each of the part's cells of placed records (they travel as
    /// [`CellSizes::to_bytes`]).
    pub cell_sizes: CellSizes,
    pub counts: Vec<u64>,
}

impl SortedPart {
    /// The part's segments of unplaced records (forward strand, then reverse), which the
    /// client cuts into pieces by their records.
    pub fn unplaced(&self) -> impl Iterator<Item = &RangeSegment> {
        self.segments.iter().filter(|s| s.range == UNPLACED_RANGE)
    }
}

/// Aligns `part` on `threads` workers, sorts its records by coordinate (input order
/// breaking ties, as the command sorts) and writes them, range after range, from where
/// they lie (the part is held once, with 32 bytes per record to sort it), then its table
/// of cells, into a range of this process's spill file in `spill_dir` reserved for the
/// part.
pub fn align_part_sorted(
    options: &AlignOptions,
    part: &AlignPart,
    threads: Option<usize>,
    spill_dir: &Path,
) -> anyhow::Result<SortedPart> {
    let aligned = run_part(options, part, threads, true)?;
    let mut sort = BatchSort::default();
    let records: Vec<&[u8]> = sort.sorted_records(&aligned.out).collect();
    let mut segments: Vec<RangeSegment> = Vec::new();
    // Where each cell holding placed records starts (the merge of a range that holds
    // many of the reads is cut at cells).
    let mut table = CellTable::default();
    let mut at = 0;
    for record in &records {
        let (key, reverse) = sort_key(record);
        let ((range, cell), len) = (range_and_cell(key), record.len() as u64);
        let reverse = range == UNPLACED_RANGE && reverse;
        let segment = match segments.last_mut() {
            Some(last) if last.range == range && last.reverse == reverse => last,
            _ => {
                segments.push(RangeSegment {
                    range,
                    reverse,
                    offset: at,
                    len: 0,
                    records: 0,
                });
                segments.last_mut().expect("just pushed")
            }
        };
        if range != UNPLACED_RANGE {
            table.add(range, cell, at, len);
        }
        segment.len += len;
        segment.records += 1;
        at += len;
    }
    // The records, then the table, in the range reserved for the part.
    let table_len = table.byte_len();
    let (file, base) = spill::reserve(spill_dir, at + table_len)?;
    for segment in &mut segments {
        segment.offset += base;
    }
    let cell_sizes = table.sizes();
    let table = table.to_bytes(base);
    let pieces = records.iter().copied().chain(std::iter::once(&table[..]));
    write_pieces_at(&file, base, pieces)?;
    Ok(SortedPart {
        spill: PartSpill {
            file,
            table: (base + at, table_len),
        },
        segments,
        cell_sizes,
        counts: aligned.counts,
    })
}

/// Bytes of a segment read from its file at a time (at most): a file opened once per
/// 256 KiB of a merge's input, whatever filesystem holds it.
const PIECE: u64 = 1 << 18;

/// One part's records of a range, read in order a piece at a time. The file is open only
/// while a piece is read: a merge of thousands of parts holds no file open (`ulimit -n`),
/// and a piece is no longer than what is left of the segment.
struct SegmentReader<'a> {
    path: &'a Path,
    /// Where the next piece starts in the file, and the segment's bytes after it.
    next: u64,
    left: u64,
    piece: Vec<u8>,
    /// Bytes of `piece` already taken.
    taken: usize,
    record: Vec<u8>,
}

impl<'a> SegmentReader<'a> {
    fn new(path: &'a Path, offset: u64, len: u64) -> Self {
        Self {
            path,
            next: offset,
            left: len,
            piece: Vec::new(),
            taken: 0,
            record: Vec::new(),
        }
    }

    /// The segment's bytes not yet taken.
    fn remaining(&self) -> u64 {
        self.left + (self.piece.len() - self.taken) as u64
    }

    /// [`next`](Self::next), its error naming the file.
    fn next_record(&mut self) -> anyhow::Result<bool> {
        self.next()
            .with_context(|| format!("cannot read {}", self.path.display()))
    }

    /// Reads the next record; `false` at the segment's end (an error if the file ends
    /// first).
    fn next(&mut self) -> std::io::Result<bool> {
        if self.remaining() == 0 {
            return Ok(false);
        }
        self.record.clear();
        self.take(4)?;
        let body = u32::from_le_bytes(self.record[..4].try_into().expect("4 bytes"));
        if u64::from(body) > self.remaining() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "a record longer than its range's records (changed since it was written?)",
            ));
        }
        self.take(body as usize)?;
        Ok(true)
    }

    /// Appends the segment's next `n` bytes to the record.
    fn take(&mut self, mut n: usize) -> std::io::Result<()> {
        while n > 0 {
            if self.taken == self.piece.len() {
                self.read_piece()?;
            }
            let k = n.min(self.piece.len() - self.taken);
            self.record
                .extend_from_slice(&self.piece[self.taken..self.taken + k]);
            self.taken += k;
            n -= k;
        }
        Ok(())
    }

    fn read_piece(&mut self) -> std::io::Result<()> {
        let file = File::open(self.path)?;
        self.read_piece_from(&file)
    }

    /// Reads the next piece from `file`, the segment's file opened.
    fn read_piece_from(&mut self, file: &File) -> std::io::Result<()> {
        let len = self.left.min(PIECE);
        if len == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        self.taken = 0;
        self.piece.resize(len as usize, 0);
        let read = file.read_exact_at(&mut self.piece, self.next);
        if let Err(e) = read {
            self.piece.clear();
            return Err(e);
        }
        self.next += len;
        self.left -= len;
        Ok(())
    }
}

/// The lengths of the references of the run `options` ask for, from the index file's
/// header (a worker that runs no part need not load the index).
fn reference_lengths(options: &AlignOptions) -> anyhow::Result<Vec<u64>> {
    match peek_contig_lengths(&options.index_file()) {
        Some(lengths) => Ok(lengths),
        None => Ok(cached_index(options)?
            .contigs()
            .iter()
            .map(|c| c.len)
            .collect()),
    }
}

/// Merges the records of one or more consecutive ranges (or cells of one) from the
/// parts' spill files (`segments`: each part's file, offset and length, in input order)
/// into the BGZF blocks the command writes for them; returns the bytes and their index
/// entries.
pub fn merge_range(
    options: &AlignOptions,
    segments: &[(PathBuf, u64, u64)],
    threads: Option<usize>,
) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    merge_segments(options, segments, threads, OpenFiles::default())
}

/// [`merge_range`], the first piece of each segment read through `files`, in order of
/// their files (a file opened once for all the segments it holds: those of a merge of
/// one cell are mostly shorter than a piece).
fn merge_segments(
    options: &AlignOptions,
    segments: &[(PathBuf, u64, u64)],
    threads: Option<usize>,
    mut files: OpenFiles,
) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    let mut readers: Vec<_> = segments
        .iter()
        .map(|(path, offset, len)| SegmentReader::new(path, *offset, *len))
        .collect();
    for i in by_file(segments.len(), |i| &segments[i].0) {
        let reader = &mut readers[i];
        if reader.left == 0 {
            continue;
        }
        let file = files.get(reader.path)?;
        reader
            .read_piece_from(file)
            .with_context(|| format!("cannot read {}", reader.path.display()))?;
    }
    // Later pieces (of segments longer than one) open their file each.
    drop(files);
    // The command's order: coordinate, forward strand first, then input order (the
    // parts are in input order, each sorted in it).
    let mut heap = BinaryHeap::new();
    for (i, reader) in readers.iter_mut().enumerate() {
        if reader.next_record()? {
            heap.push(Reverse((sort_key(&reader.record), i)));
        }
    }
    written_range(options, threads, |writer| {
        while let Some(Reverse((_, i))) = heap.pop() {
            let reader = &mut readers[i];
            writer.write_record(&reader.record)?;
            if reader.next_record()? {
                heap.push(Reverse((sort_key(&reader.record), i)));
            }
        }
        Ok(())
    })
}

/// Merges cells `cells` of range `range` from every part's spill (`parts`, in input
/// order), each part's records of them found in its table of cells: the BGZF bytes and
/// index entries, as [`merge_range`] gives them. Each spill file is opened once,
/// however many parts it holds.
pub fn merge_cells(
    options: &AlignOptions,
    parts: &[PartSpill],
    range: u64,
    cells: Range<usize>,
    threads: Option<usize>,
) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    let mut files = OpenFiles::default();
    let mut spans = vec![(0, 0); parts.len()];
    for i in by_file(parts.len(), |i| &parts[i].file) {
        let part = &parts[i];
        let file = files.get(&part.file)?;
        spans[i] = span_in_table(file, part.table, range, cells.clone())
            .with_context(|| format!("cannot read {}", part.file.display()))?;
    }
    let segments: Vec<_> = (parts.iter().zip(spans))
        .filter(|(_, (_, len))| *len > 0)
        .map(|(part, (offset, len))| (part.file.clone(), offset, len))
        .collect();
    merge_segments(options, &segments, threads, files)
}

/// The numbers `0..n` in the order of the paths `path` gives them (in their order for
/// equal paths): a file asked for by many of them is asked for in one run.
fn by_file<'a>(n: usize, path: impl Fn(usize) -> &'a Path) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| path(i));
    order
}

/// Writes `records` records of the unplaced range, from the parts' unplaced records in
/// the command's order (`segments`: each part's forward-strand records in input order,
/// then each part's reverse-strand ones; each `(file, offset, length)`, those from the
/// one holding the piece's first record on), the first `skip` records of the first
/// segment left out, into the BGZF blocks the command writes for them (the piece starts
/// at a multiple of [`UNPLACED_RUN`](seqfarm_io::bam_writer::UNPLACED_RUN) of the range).
/// Returns the bytes and the index entries, as [`merge_range`] does.
pub fn write_unplaced(
    options: &AlignOptions,
    segments: &[(PathBuf, u64, u64)],
    mut skip: u64,
    records: u64,
    threads: Option<usize>,
) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    written_range(options, threads, |writer| {
        let mut left = records;
        for (path, offset, len) in segments {
            let mut reader = SegmentReader::new(path, *offset, *len);
            while left > 0 && reader.next_record()? {
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                writer.write_record(&reader.record)?;
                left -= 1;
            }
        }
        if left > 0 {
            anyhow::bail!("the parts' unplaced records end {left} records short of the piece's");
        }
        Ok(())
    })
}

/// One or more ranges written apart, their records given to the writer by `write`: the
/// BGZF bytes and the index entries.
fn written_range(
    options: &AlignOptions,
    threads: Option<usize>,
    write: impl FnOnce(&mut IndexedBamWriter<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<(Vec<u8>, Vec<u8>)> {
    let lengths = reference_lengths(options)?;
    let mut out = Vec::new();
    let threads = worker_threads(threads);
    let mut writer =
        IndexedBamWriter::for_range(&mut out, &options.output, BAM_LEVEL, threads, &lengths)?;
    write(&mut writer)?;
    let entries = writer.finish_range()?;
    Ok((out, entries))
}

/// The index of the sorted output from its ranges' index entries, each with the file
/// offset its bytes were placed at (in file order): the bytes of the file the command
/// writes beside the BAM.
pub fn sorted_index(options: &AlignOptions, placed: &[(u64, Vec<u8>)]) -> anyhow::Result<Vec<u8>> {
    let lengths = reference_lengths(options)?;
    let index = index_of_ranges(
        &options.output,
        &lengths,
        placed.iter().map(|(o, e)| (*o, e.as_slice())),
    )?;
    let mut bytes = Vec::new();
    index.write(&mut bytes)?;
    Ok(bytes)
}

/// Opens the index output of a sorted run (`BAM.bai`, or `.csi`), as the command opens
/// it: replaced once committed, written through a temporary file beside it.
pub fn sorted_index_output(options: &AlignOptions) -> anyhow::Result<Output> {
    let path = index_beside(&options.output, &reference_lengths(options)?);
    Ok(Output::create(&path, options.overwrite())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records of 4-byte length and body, one longer than a piece.
    fn records() -> Vec<Vec<u8>> {
        [10usize, 0, (PIECE as usize) + 100, 7, 300]
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let mut record = (n as u32).to_le_bytes().to_vec();
                record.extend(std::iter::repeat_n(i as u8, n));
                record
            })
            .collect()
    }

    #[test]
    fn a_segment_is_read_record_by_record_across_pieces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spill");
        let records = records();
        let mut file = b"before".to_vec();
        records.iter().for_each(|r| file.extend_from_slice(r));
        std::fs::write(&path, &file).unwrap();
        let len = records.iter().map(Vec::len).sum::<usize>() as u64;
        let mut reader = SegmentReader::new(&path, 6, len);
        for record in &records {
            assert!(reader.next().unwrap());
            assert_eq!(&reader.record, record);
        }
        assert!(!reader.next().unwrap());
    }

    #[test]
    fn files_are_asked_for_in_runs() {
        let paths = ["b", "a", "b", "c", "a"].map(Path::new);
        assert_eq!(by_file(paths.len(), |i| paths[i]), [1, 4, 0, 2, 3]);
    }

    #[test]
    fn a_segment_cut_short_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spill");
        let records = records();
        std::fs::write(&path, records.concat()).unwrap();
        // The segment claims the first record and part of the long one.
        let mut reader = SegmentReader::new(&path, 0, records[0].len() as u64 + 4 + 50);
        assert!(reader.next().unwrap());
        assert!(reader.next().unwrap() && reader.record.len() == 4);
        let e = reader.next().unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        // The file shorter than the segment it is read as.
        let mut reader = SegmentReader::new(&path, 0, records.concat().len() as u64 + 10);
        let e = (0..records.len() + 1)
            .find_map(|_| reader.next().err())
            .unwrap();
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
    }
}
