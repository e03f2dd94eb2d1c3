//! The index of a sorted BAM written as genomic ranges apart (a run in parts): each
//! range's records for the index, grouped as they are written, and the index of the
//! whole file built from every range's groups with the file offset its bytes were placed
//! at.
//!
//! A group is consecutive records of one reference, mapped or not alike, whose first and
//! last bases lie in the same two 16 kbp windows (so in the same bin at any depth of
//! bins, and reaching the same window of the linear index): the indexer is given the
//! group's first record with the group's chunk, which leaves the bins, their chunks, the
//! linear index (a window takes the offset of the first record to reach it) and each
//! bin's least offset as its records one by one would; the record counts are set right
//! once the index is built. Reads of a few hundred bases cross a window's edge rarely, so
//! a range's groups are about one per bin change, not one per record.

use noodles_core::Position;
use noodles_csi::binning_index::index::reference_sequence::bin::Chunk;
use noodles_csi::binning_index::index::reference_sequence::Index as ReferenceIndex;
use noodles_csi::binning_index::Index;

use super::{indexer_for, AlignmentContext, BamIndex};
use crate::index_counts::with_record_counts;
use crate::{Error, Result};
use std::path::Path;

/// The smallest bin's shift (16 kbp windows), as BAI and CSI of BAM use.
const WINDOW_SHIFT: usize = 14;

/// What the indexer is given for one record, kept to be given later (a range of a
/// sorted BAM written apart from the others, its offsets from the range's start).
pub(super) struct IndexEntry {
    pub(super) context: AlignmentContext,
    pub(super) start: u64,
    pub(super) end: u64,
}

/// Bytes of an encoded [`IndexEntry`].
const ENTRY_BYTES: usize = 29;

impl IndexEntry {
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.start.to_le_bytes());
        out.extend_from_slice(&self.end.to_le_bytes());
        let (tid, first, last, mapped) = match self.context {
            Some((tid, first, last, mapped)) => {
                (tid as i32, first.get() as u32, last.get() as u32, mapped)
            }
            None => (-1, 0, 0, false),
        };
        out.extend_from_slice(&tid.to_le_bytes());
        out.extend_from_slice(&first.to_le_bytes());
        out.extend_from_slice(&last.to_le_bytes());
        out.push(u8::from(mapped));
    }

    fn decode(b: &[u8], shift: u64) -> Option<Self> {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or_default());
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap_or_default());
        let tid = u32_at(16) as i32;
        let context = match tid {
            -1 => None,
            tid => Some((
                usize::try_from(tid).ok()?,
                Position::new(u32_at(20) as usize)?,
                Position::new(u32_at(24) as usize)?,
                b[28] != 0,
            )),
        };
        Some(Self {
            context,
            start: u64_at(0) + (shift << 16),
            end: u64_at(8) + (shift << 16),
        })
    }
}

/// A range's index entries, grouped (see the module docs), encoded as they close.
#[derive(Default)]
pub(super) struct EntryGroups {
    out: Vec<u8>,
    /// The group records are joining: its first record's entry, ending where the group's
    /// chunk ends, and its record count.
    open: Option<(IndexEntry, u64)>,
}

/// Bytes of an encoded group: its entry (the first record's, with the group's chunk end)
/// and its records.
pub(crate) const GROUP_BYTES: usize = ENTRY_BYTES + 8;

impl EntryGroups {
    /// Adds the next record's entry.
    pub(super) fn add(&mut self, entry: IndexEntry) {
        if let Some((group, records)) = &mut self.open {
            if same_group(&group.context, &entry.context) && entry.start <= group.end {
                group.end = entry.end;
                *records += 1;
                return;
            }
        }
        self.close();
        self.open = Some((entry, 1));
    }

    /// Encodes the open group, if any.
    fn close(&mut self) {
        if let Some((group, records)) = self.open.take() {
            group.encode(&mut self.out);
            self.out.extend_from_slice(&records.to_le_bytes());
        }
    }

    /// The groups' bytes, for [`index_of_ranges`].
    pub(super) fn finish(mut self) -> Vec<u8> {
        self.close();
        self.out
    }
}

/// Whether records at `a` and then `b` may be one group: the same reference, mapped
/// alike, first and last bases in the same 16 kbp windows (or both unplaced).
fn same_group(a: &AlignmentContext, b: &AlignmentContext) -> bool {
    // Positions are 1-based; bins and windows are of 0-based positions.
    let windows = |p: Position| (usize::from(p) - 1) >> WINDOW_SHIFT;
    match (a, b) {
        (None, None) => true,
        (Some((r, s, e, m)), Some((r2, s2, e2, m2))) => {
            r == r2 && m == m2 && windows(*s) == windows(*s2) && windows(*e) == windows(*e2)
        }
        _ => false,
    }
}

/// The index of a sorted BAM written as ranges apart
/// ([`IndexedBamWriter::for_range`](super::IndexedBamWriter::for_range)): each range's
/// groups ([`IndexedBamWriter::finish_range`](super::IndexedBamWriter::finish_range))
/// with the file offset its bytes were placed at, in file order. The same index as the
/// whole file written by one [`IndexedBamWriter`](super::IndexedBamWriter) with
/// [`IndexedBamWriter::range_blocks`](super::IndexedBamWriter::range_blocks).
pub fn index_of_ranges<'a>(
    path: &Path,
    reference_lengths: &[u64],
    ranges: impl IntoIterator<Item = (u64, &'a [u8])>,
) -> Result<BamIndex> {
    let mut indexer = indexer_for(path, reference_lengths)?;
    // Per reference: mapped and unmapped records; and the unplaced ones.
    let mut counts = vec![(0u64, 0u64); reference_lengths.len()];
    let mut unplaced = 0u64;
    for (offset, groups) in ranges {
        let damaged = || Error::format(path, offset, "damaged index entries of a range");
        if groups.len() % GROUP_BYTES != 0 {
            return Err(damaged());
        }
        for b in groups.chunks_exact(GROUP_BYTES) {
            let group = IndexEntry::decode(&b[..ENTRY_BYTES], offset).ok_or_else(damaged)?;
            let records = u64::from_le_bytes(b[ENTRY_BYTES..].try_into().unwrap_or_default());
            match group.context {
                Some((ref_id, _, _, mapped)) => {
                    let count = counts.get_mut(ref_id).ok_or_else(damaged)?;
                    match mapped {
                        true => count.0 += records,
                        false => count.1 += records,
                    }
                }
                None => unplaced += records,
            }
            let chunk = Chunk::new(group.start.into(), group.end.into());
            indexer
                .add_record(group.context, chunk)
                .map_err(|e| Error::format(path, offset, format!("cannot index: {e}")))?;
        }
    }
    let index = match indexer.build(reference_lengths.len()) {
        noodles_bam::Index::Bai(index) => {
            noodles_bam::Index::Bai(recounted(index, &counts, unplaced))
        }
        noodles_bam::Index::Csi(index) => {
            noodles_bam::Index::Csi(recounted(index, &counts, unplaced))
        }
    };
    Ok(BamIndex { index })
}

/// `index` with each reference's mapped and unmapped record counts (`counts`) and the
/// unplaced records' count set: an indexer given one record per group counted groups.
fn recounted<I: ReferenceIndex + Clone>(
    index: Index<I>,
    counts: &[(u64, u64)],
    unplaced: u64,
) -> Index<I> {
    with_record_counts(
        index,
        |ref_id, _| counts.get(ref_id).copied().unwrap_or_default(),
        |n| n.map(|_| unplaced),
    )
}
