//! Where a sorted part's records of each 1 Mbp cell lie in its spill, kept in the spill
//! file after the part's records rather than sent to the client. A merge task reads from
//! each part's table only where its own cells start and end; the client learns the bytes
//! of each cell summed over many parts ([`CellSizes`], summed on the workers). What
//! passes through the client grows with the parts plus the cells, not with their product
//! (every part holds records in nearly every cell of a genome once the parts are many).

use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;

use seqfarm_io::bam_writer::RANGE_CELLS;

use crate::api::parts::wire::{packed, Unpacker, WireReader, WireWriter};

/// A cell's place in the genome's order: its range's number times the cells of a range,
/// plus the cell.
fn cell_key(range: u64, cell: usize) -> u64 {
    range * RANGE_CELLS as u64 + cell as u64
}

/// Bytes of one entry of a table file: a cell's key and where it starts, little-endian.
const ENTRY: u64 = 16;

/// Where each cell holding placed records starts in a part's spill, in the spill's
/// (genomic) order, and where the placed records end (the unplaced ones follow).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellTable {
    starts: Vec<(u64, u64)>,
    end: u64,
}

impl CellTable {
    /// Adds a placed record of cell `cell` of range `range`, `len` bytes at `at` in the
    /// spill: the records come in the spill's order, the unplaced ones (left out) last.
    pub(super) fn add(&mut self, range: u64, cell: usize, at: u64, len: u64) {
        let key = cell_key(range, cell);
        if self.starts.last().is_none_or(|&(last, _)| last != key) {
            self.starts.push((key, at));
        }
        self.end = at + len;
    }

    /// The length of [`CellTable::to_bytes`].
    pub(super) fn byte_len(&self) -> u64 {
        (self.starts.len() as u64 + 1) * ENTRY
    }

    /// The table as bytes, for records placed `base` bytes into the file: its entries,
    /// then one of key `u64::MAX` at the end of the placed records, so that every cell's
    /// end is the next entry's start.
    pub(super) fn to_bytes(&self, base: u64) -> Vec<u8> {
        let last = (u64::MAX, self.end);
        let mut out = Vec::with_capacity((self.starts.len() + 1) * ENTRY as usize);
        for &(key, start) in self.starts.iter().chain(std::iter::once(&last)) {
            out.extend_from_slice(&key.to_le_bytes());
            out.extend_from_slice(&(base + start).to_le_bytes());
        }
        out
    }

    /// The bytes of each of the part's cells.
    pub fn sizes(&self) -> CellSizes {
        let ends = self.starts.iter().skip(1).map(|s| s.1).chain([self.end]);
        CellSizes(
            self.starts
                .iter()
                .zip(ends)
                .map(|(&(key, start), end)| (key, end - start))
                .collect(),
        )
    }
}

/// Where cells `cells` of range `range` lie in `file`, whose table of cells lies at
/// `table` (offset and length): their offset and length (0 for none). The table is
/// searched with a few reads of an entry each, since a merge reads it in every part's
/// table.
pub fn span_in_table(
    file: &File,
    table: (u64, u64),
    range: u64,
    cells: Range<usize>,
) -> anyhow::Result<(u64, u64)> {
    let (at, len) = table;
    if len == 0 || len % ENTRY != 0 {
        anyhow::bail!("not a table of cells ({len} bytes)");
    }
    let entry = |i: u64| -> std::io::Result<(u64, u64)> {
        let mut bytes = [0u8; ENTRY as usize];
        file.read_exact_at(&mut bytes, at + i * ENTRY)?;
        let word = |k: usize| u64::from_le_bytes(bytes[k..k + 8].try_into().expect("8 bytes"));
        Ok((word(0), word(8)))
    };
    // The first entry whose key is at least `key` (the last, `u64::MAX`, is).
    let first_from = |key: u64| -> std::io::Result<(u64, u64)> {
        let (mut lo, mut hi) = (0, len / ENTRY - 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if entry(mid)?.0 < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        entry(lo)
    };
    let (_, start) = first_from(cell_key(range, cells.start))?;
    let (_, end) = first_from(cell_key(range, cells.end))?;
    if end < start {
        anyhow::bail!("its cells are out of order");
    }
    Ok((start, end - start))
}

/// The bytes of each cell holding records (`(key, bytes)` by key), of a part or summed
/// over parts: what the client cuts the merges by.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellSizes(Vec<(u64, u64)>);

impl CellSizes {
    /// The sizes as the bytes they travel as: keys as differences, compressed.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out: WireWriter = WireWriter::default();
        out.number(self.0.len() as u64);
        let mut previous = 0;
        for &(key, bytes) in &self.0 {
            out.number(key - previous).number(bytes);
            previous = key;
        }
        packed(&out.0)
    }

    /// The sizes of [`CellSizes::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<Self> {
        let mut unpacker = Unpacker::default();
        let mut input = WireReader::new(unpacker.unpack(bytes, "a sorted part's cell sizes")?);
        let mut key = 0u64;
        let sizes = (0..input.number()?)
            .map(|_| {
                key = key.wrapping_add(input.number()?);
                Ok((key, input.number()?))
            })
            .collect::<anyhow::Result<_>>()?;
        Ok(Self(sizes))
    }

    /// The sizes of `all` added up cell by cell.
    pub fn sum(all: impl IntoIterator<Item = Self>) -> Self {
        let mut summed = std::collections::BTreeMap::new();
        for sizes in all {
            for (key, bytes) in sizes.0 {
                *summed.entry(key).or_insert(0) += bytes;
            }
        }
        Self(summed.into_iter().collect())
    }

    /// `(range, cell, bytes)` of each cell, in the genome's order.
    pub fn cells(&self) -> impl Iterator<Item = (u64, usize, u64)> + '_ {
        let per_range = RANGE_CELLS as u64;
        self.0
            .iter()
            .map(move |&(key, bytes)| (key / per_range, (key % per_range) as usize, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A spill of range 0's cells 0, 2, 6 (two records) and 7, then range 5's cell 7,
    /// then 70 bytes of unplaced records (not in the table).
    fn table() -> CellTable {
        let mut table = CellTable::default();
        let records = [
            (0, 0, 0, 10),
            (0, 2, 10, 30),
            (0, 6, 40, 20),
            (0, 6, 60, 30),
            (0, 7, 90, 10),
            (5, 7, 100, 30),
        ];
        for (range, cell, at, len) in records {
            table.add(range, cell, at, len);
        }
        table
    }

    #[test]
    fn a_table_gives_each_cell_its_place_and_size() {
        let table = table();
        let sizes: Vec<_> = table.sizes().cells().collect();
        assert_eq!(
            sizes,
            [(0, 0, 10), (0, 2, 30), (0, 6, 50), (0, 7, 10), (5, 7, 30)]
        );
        // The table after 3 bytes of something else, as in a spill file.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spill");
        let bytes = table.to_bytes(0);
        std::fs::write(&path, [&b"abc"[..], &bytes].concat()).unwrap();
        let file = File::open(&path).unwrap();
        let at = (3, bytes.len() as u64);
        let span = |range, cells| span_in_table(&file, at, range, cells).unwrap();
        assert_eq!(span(0, 0..RANGE_CELLS), (0, 100));
        assert_eq!(span(0, 1..3), (10, 30));
        assert_eq!(span(0, 3..6), (40, 0));
        assert_eq!(span(0, 6..8), (40, 60));
        assert_eq!(span(5, 0..7), (100, 0));
        assert_eq!(span(5, 0..8), (100, 30));
        assert_eq!(span(3, 0..8), (100, 0));
        assert_eq!(span(9, 0..8), (130, 0));
        let e = span_in_table(&file, (3, 20), 0, 0..1).unwrap_err();
        assert!(format!("{e:#}").contains("not a table of cells"), "{e:#}");
    }

    #[test]
    fn sizes_travel_and_add_up() {
        let sizes = table().sizes();
        let bytes = sizes.to_bytes();
        assert_eq!(CellSizes::from_bytes(&bytes).unwrap(), sizes);
        assert!(CellSizes::from_bytes(&bytes[..bytes.len() / 2]).is_err());
        let other = CellSizes(vec![(2, 5), (47, 1)]);
        let sum: Vec<_> = CellSizes::sum([sizes, other]).0;
        assert_eq!(sum, [(0, 10), (2, 35), (6, 50), (7, 10), (47, 31)]);
    }
}
