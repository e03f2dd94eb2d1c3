//! Banded extension of a read into a reference window: bowtie2's affine-gap scoring,
//! end-to-end (the whole read, free reference ends) or local (Smith-Waterman, soft
//! clips), with a traceback to a CIGAR.
//!
//! ## The band
//! A job aligns a read of length `L` into a window of `L + 2b` reference codes where
//! the seeds put the read's first base at window column `b`. Cell `(i, k)`, `0 <= k <=
//! 2b`, pairs read base `i` with window column `i + k`: the band holds the `2b + 1`
//! diagonals around the seeds' one, so an alignment may contain indels up to `b` bases
//! net. Each row has three values (Gotoh): `H` (best score ending at the cell), `E` (a
//! deletion: a reference base skipped, from `(i, k-1)`), `F` (an insertion: a read base
//! skipped, from `(i-1, k+1)`).
//!
//! ## Vectorised across jobs
//! The SIMD kernels put one job in each 16-bit lane (16 with AVX2, 32 with AVX-512BW)
//! and walk the same cells for all lanes at once: no data dependence between lanes, so
//! the vector code is the scalar recurrence written once per cell, and its result is
//! bit-identical to the scalar reference ([`scalar`]) by construction. Scores saturate
//! at the `i16` range; a valid alignment never comes near it (end-to-end scores stay
//! above `-0.6 - 0.6·L > -6,100` for reads up to 10 kbp, local ones below `2·L`).
//! Jobs are grouped by band and read length so the lanes of a group do the same work.
//!
//! Which kernel runs is chosen at run time (AVX-512BW, AVX2, scalar), overridable with
//! `SEQFARM_SIMD=scalar|avx2|avx512` by the rule every kernel crate follows
//! ([`SimdLevel::from_env`]: an unknown name or a level the CPU lacks is an error).

mod avx2;
mod avx512;
mod group;
pub mod scalar;
#[cfg(test)]
mod tests;
mod traceback;

use crate::cigar::Cigar;
use crate::scoring::{AlignMode, Scoring};

pub use group::Extender;
pub use seqfarm_core::SimdLevel;

/// Window code of an ambiguous reference position (scored as an N).
pub const REF_N: u8 = seqfarm_core::AMBIGUOUS;
/// Window code of a position outside the contig (never aligned to).
pub const REF_PAD: u8 = 5;

/// The lowest score (`i16::MIN`): "unreachable".
pub(crate) const NEG: i16 = i16::MIN;
/// The score of pairing a read base with [`REF_PAD`]: low enough that no valid
/// alignment crosses it, high enough that sums stay away from each other.
pub(crate) const WALL: i16 = -16384;
/// Gap cost where gaps are not allowed (saturates every gap score to [`NEG`]).
pub(crate) const FORBIDDEN: i16 = i16::MAX;

/// Direction bits stored per cell for the traceback.
pub(crate) mod dir {
    /// `H` came from the diagonal (a read base against a reference base).
    pub const DIAG: u8 = 0;
    /// `H` came from `E` (a deletion).
    pub const FROM_E: u8 = 1;
    /// `H` came from `F` (an insertion).
    pub const FROM_F: u8 = 2;
    /// Local mode: `H` is 0, the alignment starts after this cell.
    pub const STOP: u8 = 3;
    /// Mask of the `H` source.
    pub const SOURCE: u8 = 3;
    /// `E` extends the deletion of the cell to the left (else it opens one).
    pub const E_EXTENDS: u8 = 4;
    /// `F` extends the insertion of the cell above (else it opens one).
    pub const F_EXTENDS: u8 = 8;
}

/// The first `cells` values of `buffer`, grown when shorter, for a caller that writes
/// every one of them before reading any (a kernel's direction matrix, a group's gap
/// costs). Values left by an earlier use are overwritten, not cleared first: clearing a
/// rescue group's direction matrix (rows × 129 diagonals × lanes) was 4 % of the
/// instructions of aligning pairs.
pub(crate) fn overwritten<T: Copy + Default>(buffer: &mut Vec<T>, cells: usize) -> &mut [T] {
    if buffer.len() < cells {
        buffer.resize(cells, T::default());
    }
    &mut buffer[..cells]
}

/// One extension problem.
#[derive(Debug, Clone, Copy)]
pub struct ExtendJob<'a> {
    /// Read codes (`0..=3`, 4 for N), oriented as aligned (reverse-complemented for the
    /// reverse strand).
    pub read: &'a [u8],
    /// Mismatch penalty of each read position (from its quality).
    pub penalties: &'a [i16],
    /// Reference codes of the window (`0..=3`, [`REF_N`], [`REF_PAD`]);
    /// `read.len() + 2 * band` of them.
    pub window: &'a [u8],
    /// Half-width of the band.
    pub band: usize,
    /// Lowest score worth a traceback: a job whose best score is lower gives no
    /// [`Extension`].
    pub min_score: i32,
}

/// The best alignment of a job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extension {
    /// Its score.
    pub score: i32,
    /// First aligned read base (the left soft clip in local mode).
    pub read_start: usize,
    /// One past the last aligned read base.
    pub read_end: usize,
    /// Window column of the first aligned reference base.
    pub window_start: usize,
    /// One past the last aligned reference column.
    pub window_end: usize,
    /// `M`/`I`/`D` operations from `read_start` to `read_end` (no clips).
    pub cigar: Cigar,
}

/// The scoring constants a kernel needs, as 16-bit values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KernelParams {
    pub local: bool,
    pub match_bonus: i16,
    pub n_penalty: i16,
    /// Cost of the first base of a deletion (read gap): open + extend.
    pub del_first: i16,
    pub del_extend: i16,
    /// Cost of the first base of an insertion (reference gap).
    pub ins_first: i16,
    pub ins_extend: i16,
    pub gap_barrier: usize,
}

impl KernelParams {
    pub fn new(scoring: &Scoring) -> Self {
        let clamp = |v: i32| v.clamp(0, 4096) as i16;
        Self {
            local: scoring.mode == AlignMode::Local,
            match_bonus: clamp(scoring.match_bonus),
            n_penalty: clamp(scoring.n_penalty),
            del_first: clamp(scoring.read_gap_first()),
            del_extend: clamp(scoring.read_gap_extend),
            ins_first: clamp(scoring.ref_gap_first()),
            ins_extend: clamp(scoring.ref_gap_extend),
            gap_barrier: scoring.gap_barrier,
        }
    }

    /// Whether gaps may enter row `row` of a read of `len` bases.
    #[inline]
    pub fn gaps_allowed(&self, row: usize, len: usize) -> bool {
        row >= self.gap_barrier && row + self.gap_barrier < len
    }
}

/// The best cell a kernel found for one job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BestCell {
    pub score: i16,
    /// Row, or -1 when nothing scored (local mode).
    pub row: i32,
    pub k: i32,
}

/// Jobs per vector at `level` (one 16-bit lane each).
pub(crate) fn lanes(level: SimdLevel) -> usize {
    match level {
        SimdLevel::Scalar => 1,
        SimdLevel::Avx2 => 16,
        SimdLevel::Avx512 => 32,
    }
}
