//! Database sequences as the kernels see them: a block of encoded sequences, and its
//! packing into lane streams for inter-sequence SIMD.
//!
//! Each SIMD lane is a stream of database sequences placed end to end (SWIPE's scheme):
//! when a lane's sequence ends, the next one starts in that lane at the next block of
//! [`COLUMN_BLOCK`] columns, and the kernel resets that lane's state there. Sequences are
//! dealt longest first to the lane that frees up first, so all lanes finish within a few
//! columns of each other: besides the padding of each sequence to a whole column block
//! (under 1% on proteins), no lane idles, whatever the mix of lengths. The residues are
//! stored column-major: byte `c * lanes + l` is column `c` of lane `l`, [`PAD_CODE`] where
//! the lane holds nothing.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::buffers::AlignedBuf;
use crate::matrix::{ScoreMatrix, PAD_CODE};

/// Database columns the kernels process per pass over the query (register blocking).
pub(crate) const COLUMN_BLOCK: usize = 4;

/// Where each new [`SequenceBlock`] (or clone) takes its identity from.
static NEXT_BLOCK_ID: AtomicU64 = AtomicU64::new(0);

/// Encoded database sequences stored back to back (a farm task's worth).
#[derive(Debug)]
pub struct SequenceBlock {
    codes: Vec<u8>,
    ends: Vec<usize>,
    /// This block's own number among all blocks of the process.
    id: u64,
    /// Bumped by every change, so (`id`, `version`) names one content.
    version: u64,
}

/// Names one content of one [`SequenceBlock`]: equal stamps mean equal sequences, so a
/// consumer that prepared a block can tell whether it is still the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockStamp {
    id: u64,
    version: u64,
}

impl Default for SequenceBlock {
    fn default() -> Self {
        Self {
            codes: Vec::new(),
            ends: Vec::new(),
            id: NEXT_BLOCK_ID.fetch_add(1, Ordering::Relaxed),
            version: 0,
        }
    }
}

impl Clone for SequenceBlock {
    /// A copy with an identity of its own (the two may then change apart).
    fn clone(&self) -> Self {
        Self {
            codes: self.codes.clone(),
            ends: self.ends.clone(),
            ..Self::default()
        }
    }
}

impl SequenceBlock {
    /// An empty block.
    pub fn new() -> Self {
        Self::default()
    }

    /// The stamp of the block's current content.
    pub(crate) fn stamp(&self) -> BlockStamp {
        BlockStamp {
            id: self.id,
            version: self.version,
        }
    }

    /// Removes every sequence, keeping the allocations.
    pub fn clear(&mut self) {
        self.version += 1;
        self.codes.clear();
        self.ends.clear();
    }

    /// Appends `residues`, encoded for `matrix`.
    pub fn push(&mut self, matrix: &ScoreMatrix, residues: &[u8]) {
        self.version += 1;
        matrix.encode_into(residues, &mut self.codes);
        self.ends.push(self.codes.len());
    }

    /// Appends a sequence that `fill` encodes into the vector it is given; when `fill`
    /// fails, the block is left as it was.
    pub fn push_with<E>(
        &mut self,
        fill: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.version += 1;
        let before = self.codes.len();
        match fill(&mut self.codes) {
            Ok(()) => {
                self.ends.push(self.codes.len());
                Ok(())
            }
            Err(e) => {
                self.codes.truncate(before);
                Err(e)
            }
        }
    }

    /// Appends an already encoded sequence.
    pub fn push_encoded(&mut self, codes: &[u8]) {
        self.version += 1;
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
        &self.codes[self.start(index)..self.ends[index]]
    }

    /// Where sequence `index` starts in [`SequenceBlock::codes`].
    pub(crate) fn start(&self, index: usize) -> usize {
        if index == 0 {
            0
        } else {
            self.ends[index - 1]
        }
    }

    /// Length of sequence `index`.
    pub fn seq_len(&self, index: usize) -> usize {
        self.get(index).len()
    }

    /// Total residues.
    pub fn residues(&self) -> usize {
        self.codes.len()
    }

    /// The codes of every sequence, back to back.
    pub(crate) fn codes(&self) -> &[u8] {
        &self.codes
    }
}

/// A lane that starts a new sequence at some block: the sequence that just ended there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LaneSwitch {
    /// The lane.
    pub(crate) lane: u32,
    /// Index (in the [`SequenceBlock`]) of the sequence that ended in it.
    pub(crate) ended: u32,
}

/// The lanes that switch sequences at one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SwitchBlock {
    /// The block where the new sequences start.
    pub(crate) block: usize,
    /// Its switches: `switches[first..end]`.
    pub(crate) first: usize,
    /// One past its last switch.
    pub(crate) end: usize,
    /// Byte offset in [`LaneStreams::masks`] of its lane mask (0xFF for switching lanes).
    pub(crate) mask: usize,
}

/// No sequence (an idle lane).
pub(crate) const NO_SEQUENCE: u32 = u32::MAX;

/// Sequences of a block packed end to end into `lanes` streams.
#[derive(Clone, Default)]
pub(crate) struct LaneStreams {
    /// Lanes per vector.
    pub(crate) lanes: usize,
    /// Column blocks in the streams.
    pub(crate) blocks: usize,
    /// Column-major residues, `blocks * COLUMN_BLOCK * lanes` bytes.
    pub(crate) residues: AlignedBuf,
    /// Every lane switch, ordered by block.
    pub(crate) switches: Vec<LaneSwitch>,
    /// The blocks with switches, in order.
    pub(crate) switch_blocks: Vec<SwitchBlock>,
    /// One `lanes`-byte mask per switch block.
    pub(crate) masks: AlignedBuf,
    /// The sequence each lane holds at the end ([`NO_SEQUENCE`] if none).
    pub(crate) last: Vec<u32>,
    /// Sequences of length 0 (scored 0 without a kernel).
    pub(crate) empty: Vec<u32>,
    free: BinaryHeap<Reverse<(usize, usize)>>,
    placements: Vec<(usize, usize, u32)>,
    lane_major: Vec<u8>,
}

impl LaneStreams {
    /// Packs the sequences of `block` listed in `indices` (longest first, as
    /// [`sort_by_length`] orders them) into `lanes` streams.
    pub(crate) fn pack(&mut self, block: &SequenceBlock, indices: &[u32], lanes: usize) {
        self.lanes = lanes;
        self.empty.clear();
        self.placements.clear();
        self.free.clear();
        self.free.extend((0..lanes).map(|lane| Reverse((0, lane))));
        // Longest first onto the lane that frees up first (ties: lowest lane).
        for &index in indices {
            let len = block.seq_len(index as usize);
            if len == 0 {
                self.empty.push(index);
                continue;
            }
            let Some(Reverse((start, lane))) = self.free.pop() else {
                break;
            };
            self.placements.push((start, lane, index));
            self.free
                .push(Reverse((start + len.div_ceil(COLUMN_BLOCK), lane)));
        }
        self.blocks = self
            .free
            .iter()
            .map(|Reverse((end, _))| *end)
            .max()
            .unwrap_or(0);
        // Each lane's sequences end to end (a lane-major copy), then transposed to the
        // column-major layout the kernels read; and the switches, by block then lane.
        self.placements.sort_unstable();
        let columns = self.blocks * COLUMN_BLOCK;
        self.lane_major.clear();
        self.lane_major.resize(lanes * columns, PAD_CODE);
        self.last.clear();
        self.last.resize(lanes, NO_SEQUENCE);
        self.switches.clear();
        self.switch_blocks.clear();
        for &(start, lane, index) in &self.placements {
            let previous = self.last[lane];
            if previous != NO_SEQUENCE {
                if self.switch_blocks.last().is_none_or(|b| b.block != start) {
                    let at = self.switches.len();
                    self.switch_blocks.push(SwitchBlock {
                        block: start,
                        first: at,
                        end: at,
                        mask: self.switch_blocks.len() * lanes,
                    });
                }
                self.switches.push(LaneSwitch {
                    lane: lane as u32,
                    ended: previous,
                });
                if let Some(b) = self.switch_blocks.last_mut() {
                    b.end = self.switches.len();
                }
            }
            self.last[lane] = index;
            let codes = block.get(index as usize);
            let at = lane * columns + start * COLUMN_BLOCK;
            self.lane_major[at..at + codes.len()].copy_from_slice(codes);
        }
        self.residues.reserve_bytes(columns * lanes);
        transpose(
            &self.lane_major,
            &mut self.residues.bytes_mut()[..columns * lanes],
            lanes,
            columns,
        );
        self.masks.reserve_bytes(self.switch_blocks.len() * lanes);
        let masks = self.masks.bytes_mut();
        for b in &self.switch_blocks {
            let mask = &mut masks[b.mask..b.mask + lanes];
            mask.fill(0);
            for switch in &self.switches[b.first..b.end] {
                mask[switch.lane as usize] = 0xFF;
            }
        }
    }

    /// The residues of all blocks.
    pub(crate) fn residues(&self) -> &[u8] {
        &self.residues.bytes()[..self.blocks * COLUMN_BLOCK * self.lanes]
    }

    /// The lane mask of a switch block.
    pub(crate) fn mask(&self, block: &SwitchBlock) -> &[u8] {
        &self.masks.bytes()[block.mask..block.mask + self.lanes]
    }

    /// Column-block cells computed per residue (1.0 = no padding at all).
    #[cfg(test)]
    pub(crate) fn padding_ratio(&self, block: &SequenceBlock, indices: &[u32]) -> f64 {
        let residues: usize = indices.iter().map(|&i| block.seq_len(i as usize)).sum();
        (self.blocks * COLUMN_BLOCK * self.lanes) as f64 / residues.max(1) as f64
    }
}

/// Transposes `lanes` rows of `columns` bytes (`from`, lane-major) into `columns` rows
/// of `lanes` bytes (`to`, column-major), 8 x 8 bytes at a time in `u64` words.
fn transpose(from: &[u8], to: &mut [u8], lanes: usize, columns: usize) {
    let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
    let full_lanes = if lanes.is_multiple_of(8) { lanes } else { 0 };
    let full_columns = columns / 8 * 8;
    for lane in (0..full_lanes).step_by(8) {
        for column in (0..full_columns).step_by(8) {
            let mut x: [u64; 8] = std::array::from_fn(|r| {
                let at = (lane + r) * columns + column;
                word(&from[at..at + 8])
            });
            transpose8x8(&mut x);
            for (k, w) in x.iter().enumerate() {
                let at = (column + k) * lanes + lane;
                to[at..at + 8].copy_from_slice(&w.to_le_bytes());
            }
        }
    }
    // What the 8 x 8 tiles did not cover, byte by byte.
    for lane in 0..lanes {
        let first_column = if lane < full_lanes { full_columns } else { 0 };
        for column in first_column..columns {
            to[column * lanes + lane] = from[lane * columns + column];
        }
    }
}

/// Transposes an 8 x 8 byte matrix held as eight little-endian rows.
fn transpose8x8(x: &mut [u64; 8]) {
    for (distance, mask) in [
        (4, 0x0000_0000_FFFF_FFFFu64),
        (2, 0x0000_FFFF_0000_FFFF),
        (1, 0x00FF_00FF_00FF_00FF),
    ] {
        let shift = 8 * distance as u32;
        for a in 0..8 {
            if a & distance == 0 {
                let b = a + distance;
                let t = ((x[a] >> shift) ^ x[b]) & mask;
                x[b] ^= t;
                x[a] ^= t << shift;
            }
        }
    }
}

/// Indices of `block`'s sequences, longest first (ties by index, so packing does not
/// depend on anything but the block).
pub(crate) fn sort_by_length(block: &SequenceBlock, out: &mut Vec<u32>) {
    out.clear();
    out.extend(0..block.len() as u32);
    sort_subset_by_length(block, out);
}

/// Sorts sequence indices of `block` longest first (ties by index).
pub(crate) fn sort_subset_by_length(block: &SequenceBlock, indices: &mut [u32]) {
    indices.sort_unstable_by_key(|&i| (Reverse(block.seq_len(i as usize)), i));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_refill_lanes_and_record_switches() {
        let mut block = SequenceBlock::new();
        for seq in [&[1u8, 2][..], &[3, 4, 5, 6, 7], &[], &[8], &[9; 9]] {
            block.push_encoded(seq);
        }
        assert_eq!((block.len(), block.residues()), (5, 17));
        let mut order = Vec::new();
        sort_by_length(&block, &mut order);
        assert_eq!(order, [4, 1, 0, 3, 2]);
        let mut streams = LaneStreams::default();
        streams.pack(&block, &order, 2);
        // Lane 0: seq 4 (blocks 0-2), then seq 3 (block 3); lane 1: seq 1 (blocks 0-1),
        // then seq 0 (block 2).
        assert_eq!(streams.blocks, 4);
        assert_eq!(streams.empty, [2]);
        assert_eq!(streams.last, [3, 0]);
        let residues = streams.residues();
        assert_eq!(&residues[..4], &[9, 3, 9, 4]);
        assert_eq!(&residues[8 * 2..8 * 2 + 4], &[9, 1, PAD_CODE, 2]);
        assert_eq!(residues[12 * 2], 8);
        let blocks: Vec<usize> = streams.switch_blocks.iter().map(|b| b.block).collect();
        assert_eq!(blocks, [2, 3]);
        let switch = |lane, ended| LaneSwitch { lane, ended };
        assert_eq!(streams.switches, [switch(1, 1), switch(0, 4)]);
        assert_eq!(streams.mask(&streams.switch_blocks[0]), &[0, 0xFF]);
    }

    #[test]
    fn transposes_in_words_and_bytes() {
        for (lanes, columns) in [(8, 8), (16, 12), (3, 4), (64, 20), (32, 4)] {
            let from: Vec<u8> = (0..lanes * columns).map(|i| (i * 7 % 251) as u8).collect();
            let mut to = vec![0; lanes * columns];
            transpose(&from, &mut to, lanes, columns);
            for lane in 0..lanes {
                for column in 0..columns {
                    assert_eq!(to[column * lanes + lane], from[lane * columns + column]);
                }
            }
        }
    }

    #[test]
    fn little_padding_whatever_the_lengths() {
        let mut block = SequenceBlock::new();
        let mut state = 9u64;
        for _ in 0..3000 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            let len = 20 + (state >> 40) as usize % 2000;
            block.push_encoded(&vec![1; len]);
        }
        let mut order = Vec::new();
        sort_by_length(&block, &mut order);
        let mut streams = LaneStreams::default();
        for lanes in [8, 32, 64] {
            streams.pack(&block, &order, lanes);
            let ratio = streams.padding_ratio(&block, &order);
            assert!(ratio < 1.01, "{lanes} lanes: {ratio}");
        }
    }
}
