//! The search engine a worker owns: scores one query against every sequence of a block.
//!
//! A block is packed once into lane streams for the first (narrowest) pass and reused for
//! every query. Each query is scored with 8-bit lanes first; the sequences whose lanes
//! overflowed are packed again and rescored with 16-bit lanes, and those that overflow
//! again with 32-bit lanes. Typically well under 1% of a protein database needs a second
//! pass, so nearly all cells are computed 32 or 64 at a time.

use crate::block::{
    sort_by_length, sort_subset_by_length, BlockStamp, LaneStreams, SequenceBlock, COLUMN_BLOCK,
};
use crate::buffers::ScoreTables;
use crate::dispatch::{self, Isa, Width};
use crate::inter::{Results, Scratch, StreamJob};
use crate::{scalar, Error, Scoring};

/// Cells computed per lane width (a check that rescoring stays rare).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PassCounts {
    /// Sequences scored by the 8-bit pass.
    pub sequences_i8: u64,
    /// Sequences rescored with 16-bit lanes.
    pub sequences_i16: u64,
    /// Sequences rescored with 32-bit lanes.
    pub sequences_i32: u64,
}

impl std::ops::AddAssign for PassCounts {
    fn add_assign(&mut self, other: Self) {
        self.sequences_i8 += other.sequences_i8;
        self.sequences_i16 += other.sequences_i16;
        self.sequences_i32 += other.sequences_i32;
    }
}

/// One worker's scoring engine: its kernel choice, score tables, packed block and
/// scratch memory (never shared between threads).
pub struct Searcher {
    isa: Isa,
    scoring: Scoring,
    tables: ScoreTables,
    first_width: Width,
    by_length: Vec<u32>,
    first_pack: LaneStreams,
    rescore_pack: LaneStreams,
    scratch: Scratch,
    profile_index: Vec<u32>,
    overflowed: Vec<u32>,
    still_overflowed: Vec<u32>,
    loaded: Option<BlockStamp>,
    counts: PassCounts,
}

impl Searcher {
    /// An engine scoring with `scoring` on the `isa` kernels (an error if this CPU lacks
    /// `isa`).
    pub fn new(scoring: &Scoring, isa: Isa) -> Result<Self, Error> {
        if !isa.is_supported() {
            return Err(Error::Simd(format!("this CPU cannot run the {isa} kernel")));
        }
        let first_width = [Width::I8, Width::I16, Width::I32]
            .into_iter()
            .find(|w| scoring.first_gap_cost() <= w.max_cost())
            .unwrap_or(Width::I32);
        Ok(Self {
            isa,
            scoring: scoring.clone(),
            tables: ScoreTables::new(scoring.matrix()),
            first_width,
            by_length: Vec::new(),
            first_pack: LaneStreams::default(),
            rescore_pack: LaneStreams::default(),
            scratch: Scratch::default(),
            profile_index: Vec::new(),
            overflowed: Vec::new(),
            still_overflowed: Vec::new(),
            loaded: None,
            counts: PassCounts::default(),
        })
    }

    /// The kernel variant in use.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// The scoring parameters.
    pub fn scoring(&self) -> &Scoring {
        &self.scoring
    }

    /// Sequences scored per lane width so far.
    pub fn counts(&self) -> PassCounts {
        self.counts
    }

    /// Prepares `block` for scoring (sorting and packing it into lane streams); call once
    /// per block, then [`Searcher::score`] for each query.
    pub fn load(&mut self, block: &SequenceBlock) {
        self.loaded = Some(block.stamp());
        if self.isa == Isa::Scalar {
            return;
        }
        sort_by_length(block, &mut self.by_length);
        let lanes = self.isa.lanes(self.first_width);
        self.first_pack.pack(block, &self.by_length, lanes);
    }

    /// Scores the encoded `query` against every sequence of `block` (the block last
    /// passed to [`Searcher::load`]), writing `scores[i]` for sequence `i`.
    pub fn score(&mut self, block: &SequenceBlock, query: &[u8], scores: &mut Vec<i32>) {
        if self.loaded != Some(block.stamp()) {
            self.load(block);
        }
        scores.clear();
        scores.resize(block.len(), 0);
        if self.isa == Isa::Scalar {
            for (i, score) in scores.iter_mut().enumerate() {
                *score = scalar::score(&self.scoring, query, block.get(i));
            }
            self.counts.sequences_i8 += block.len() as u64;
            return;
        }
        self.profile_index.clear();
        self.profile_index
            .extend(query.iter().map(|&c| c as u32 * COLUMN_BLOCK as u32));
        let mut width = self.first_width;
        self.overflowed.clear();
        self.run_pass(width, false, scores);
        self.count(width, block.len());
        while !self.overflowed.is_empty() {
            let Some(wider) = width.wider() else {
                break;
            };
            width = wider;
            self.count(width, self.overflowed.len());
            sort_subset_by_length(block, &mut self.overflowed);
            self.rescore_pack
                .pack(block, &self.overflowed, self.isa.lanes(width));
            self.still_overflowed.clear();
            std::mem::swap(&mut self.overflowed, &mut self.still_overflowed);
            self.run_pass(width, true, scores);
        }
    }

    /// Scores the query (in `profile_index`) against the first packing, or the rescoring
    /// one, at `width`, collecting overflowed sequences in `overflowed`.
    fn run_pass(&mut self, width: Width, rescore: bool, scores: &mut [i32]) {
        let streams = if rescore {
            &self.rescore_pack
        } else {
            &self.first_pack
        };
        debug_assert_eq!(streams.lanes, self.isa.lanes(width));
        let job = StreamJob {
            profile_index: &self.profile_index,
            streams,
            tables: &self.tables,
            first_gap: self.scoring.first_gap_cost(),
            extend: self.scoring.gap_extend(),
        };
        let mut results = Results {
            scores,
            overflowed: &mut self.overflowed,
        };
        // SAFETY: `Searcher::new` checked that the CPU supports `isa` (never Scalar
        // here); the streams were packed for this width's lane count from codes of this
        // matrix (below 32, like PAD_CODE); profile indices are `code * COLUMN_BLOCK` for
        // codes of this matrix; `Searcher::new` chose a first width whose saturating
        // subtraction takes the gap costs (wider widths take more); `scores` covers the
        // block.
        unsafe {
            dispatch::score_streams(self.isa, width, &job, &mut self.scratch, &mut results);
        }
    }

    fn count(&mut self, width: Width, sequences: usize) {
        let n = sequences as u64;
        match width {
            Width::I8 => self.counts.sequences_i8 += n,
            Width::I16 => self.counts.sequences_i16 += n,
            Width::I32 => self.counts.sequences_i32 += n,
        }
    }
}
