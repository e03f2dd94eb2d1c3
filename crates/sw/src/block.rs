//! Database sequences as the kernels see them: a block of encoded sequences, and its
//! lane-interleaved packing for inter-sequence SIMD.
//!
//! Packing sorts the block's sequences by length (longest first) and deals them out in
//! groups of `lanes`, so the sequences sharing a vector have nearly equal lengths and few
//! lanes idle. Each group is stored column-major: byte `j * lanes + l` is residue `j` of
//! the group's lane `l`, padded with [`PAD_CODE`] past the end of shorter sequences and up
//! to a multiple of [`COLUMN_BLOCK`] columns.

use crate::buffers::AlignedBuf;
use crate::matrix::{ScoreMatrix, PAD_CODE};

/// Database columns the kernels process per pass over the query (register blocking).
pub(crate) const COLUMN_BLOCK: usize = 4;

/// Encoded database sequences stored back to back (a farm task's worth).
#[derive(Debug, Clone, Default)]
pub struct SequenceBlock {
    codes: Vec<u8>,
    ends: Vec<usize>,
}

impl SequenceBlock {
    /// An empty block.
    pub fn new() -> Self {
        Self::default()
    }

    /// Removes every sequence, keeping the allocations.
    pub fn clear(&mut self) {
        self.codes.clear();
        self.ends.clear();
    }

    /// Appends `residues`, encoded for `matrix`.
    pub fn push(&mut self, matrix: &ScoreMatrix, residues: &[u8]) {
        matrix.encode_into(residues, &mut self.codes);
        self.ends.push(self.codes.len());
    }

    /// Appends an already encoded sequence.
    pub fn push_encoded(&mut self, codes: &[u8]) {
        self.codes.extend_from_slice(codes);
        self.ends.push(self.codes.len());
    }

    /// Number of sequences.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the block holds no sequence.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The codes of sequence `index`.
    pub fn get(&self, index: usize) -> &[u8] {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        &self.codes[start..self.ends[index]]
    }

    /// Length of sequence `index`.
    pub fn seq_len(&self, index: usize) -> usize {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        self.ends[index] - start
    }

    /// Total residues.
    pub fn residues(&self) -> usize {
        self.codes.len()
    }
}

/// One group of up to `lanes` sequences sharing vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LaneGroup {
    /// Position of the group's first sequence in [`LanePack::order`].
    pub(crate) first: usize,
    /// Sequences in the group (the last group may be partly empty).
    pub(crate) count: usize,
    /// Columns, a multiple of [`COLUMN_BLOCK`].
    pub(crate) columns: usize,
    /// Byte offset of the group's residues in [`LanePack::residues`].
    pub(crate) offset: usize,
}

/// Sequences of a block packed into lane groups.
#[derive(Clone, Default)]
pub(crate) struct LanePack {
    /// Lanes per vector.
    pub(crate) lanes: usize,
    /// Block indices of the packed sequences, group by group.
    pub(crate) order: Vec<u32>,
    /// The groups.
    pub(crate) groups: Vec<LaneGroup>,
    /// Column-major residues of every group.
    pub(crate) residues: AlignedBuf,
}

impl LanePack {
    /// Packs the sequences of `block` listed in `indices` (longest first, as
    /// [`sort_by_length`] orders them) into groups of `lanes`.
    pub(crate) fn pack(&mut self, block: &SequenceBlock, indices: &[u32], lanes: usize) {
        self.lanes = lanes;
        self.order.clear();
        self.order.extend_from_slice(indices);
        self.groups.clear();
        let mut offset = 0;
        for (g, chunk) in indices.chunks(lanes).enumerate() {
            let longest = chunk
                .iter()
                .map(|&i| block.seq_len(i as usize))
                .max()
                .unwrap_or(0);
            let columns = longest.div_ceil(COLUMN_BLOCK) * COLUMN_BLOCK;
            self.groups.push(LaneGroup {
                first: g * lanes,
                count: chunk.len(),
                columns,
                offset,
            });
            offset += columns * lanes;
        }
        self.residues.reserve_bytes(offset);
        let out = self.residues.bytes_mut();
        for group in &self.groups {
            let area = &mut out[group.offset..group.offset + group.columns * lanes];
            area.fill(PAD_CODE);
            for (lane, &index) in self.order[group.first..group.first + group.count]
                .iter()
                .enumerate()
            {
                for (j, &code) in block.get(index as usize).iter().enumerate() {
                    area[j * lanes + lane] = code;
                }
            }
        }
    }

    /// The residues of `group`.
    pub(crate) fn group_residues(&self, group: &LaneGroup) -> &[u8] {
        &self.residues.bytes()[group.offset..group.offset + group.columns * self.lanes]
    }
}

/// Indices of `block`'s sequences, longest first (ties by index, so packing does not
/// depend on anything but the block).
pub(crate) fn sort_by_length(block: &SequenceBlock, out: &mut Vec<u32>) {
    out.clear();
    out.extend(0..block.len() as u32);
    out.sort_by_key(|&i| (std::cmp::Reverse(block.seq_len(i as usize)), i));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_sorted_padded_and_column_major() {
        let mut block = SequenceBlock::new();
        for seq in [&[1u8, 2][..], &[3, 4, 5, 6, 7], &[], &[8]] {
            block.push_encoded(seq);
        }
        assert_eq!((block.len(), block.residues()), (4, 8));
        let mut order = Vec::new();
        sort_by_length(&block, &mut order);
        assert_eq!(order, [1, 0, 3, 2]);
        let mut pack = LanePack::default();
        pack.pack(&block, &order, 2);
        assert_eq!(pack.groups.len(), 2);
        assert_eq!(
            pack.groups[0].columns, 8,
            "5 rounded up to the column block"
        );
        assert_eq!(pack.groups[1].columns, 4);
        let g0 = pack.group_residues(&pack.groups[0]);
        assert_eq!(&g0[..6], &[3, 1, 4, 2, 5, PAD_CODE]);
        assert!(g0[10..].iter().all(|&c| c == PAD_CODE));
        let g1 = pack.group_residues(&pack.groups[1]);
        assert_eq!(&g1[..2], &[8, PAD_CODE]);
    }
}
