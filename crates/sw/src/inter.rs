//! The inter-sequence kernel (SWIPE style), written once for any vector type.
//!
//! Each vector lane holds a stream of database sequences (see [`LaneStreams`]); the query
//! runs down the rows. The kernel walks the streams [`COLUMN_BLOCK`] columns at a time:
//! for each block it builds the *score profile* (for every query letter, its scores
//! against the residues in every lane, by byte shuffles from [`ScoreTables`]), then sweeps
//! the query once, keeping the block's vertical-gap and previous-row scores in registers
//! and reading and writing only one `H` and one `E` vector per row. Where lanes start a
//! new sequence, the lane's best score is read out and reset, and the sweep masks the
//! lane's `H` and `E` to zero as it loads them (a second copy of the loop, so blocks
//! without a switch pay nothing).
//!
//! Scores are saturating: 8- and 16-bit lanes store `score + MIN` (so 0 is the type's
//! minimum and signed saturation floors at 0 for free), 32-bit lanes store the score.
//! A lane whose best score reaches the type's maximum has overflowed: the caller rescores
//! that sequence with wider lanes. The ISA modules implement [`Lanes`] with intrinsics
//! (`#[inline(always)]`, no target features of their own) and call `score_group` from
//! functions compiled for their ISA, where everything inlines into one loop.

use crate::block::{LaneStreams, COLUMN_BLOCK, NO_SEQUENCE};
use crate::buffers::{AlignedBuf, ScoreTables};

/// Marks a lane whose score overflowed the lane width.
pub(crate) const OVERFLOW: i32 = -1;

/// The vector operations the kernel needs, for one ISA and lane width.
///
/// # Safety
/// Implementations use intrinsics of their ISA: callers must only call them from code
/// compiled for (and running on) a CPU with that ISA.
pub(crate) unsafe trait Lanes {
    /// The vector type.
    type V: Copy;
    /// A set of lanes.
    type Mask: Copy;
    /// Lanes per vector.
    const LANES: usize;
    /// The zero score.
    unsafe fn zero() -> Self::V;
    /// A gap cost in every lane (at most the lane type's maximum).
    unsafe fn splat_cost(cost: i32) -> Self::V;
    /// `max(h + s, 0)`, saturating at the top.
    unsafe fn add_score(h: Self::V, s: Self::V) -> Self::V;
    /// `max(x - cost, 0)` for narrow lanes; `x - cost` for 32-bit lanes (never read below 0).
    unsafe fn sub_cost(x: Self::V, cost: Self::V) -> Self::V;
    /// Lane-wise maximum.
    unsafe fn max(a: Self::V, b: Self::V) -> Self::V;
    /// Loads a vector from a 64-byte-aligned address.
    unsafe fn load(p: *const Self::V) -> Self::V;
    /// Stores a vector to a 64-byte-aligned address.
    unsafe fn store(p: *mut Self::V, v: Self::V);
    /// Writes, for every letter `a < letters`, the scores of `a` against the `LANES`
    /// subject codes at `codes` to `out[a * COLUMN_BLOCK]`.
    unsafe fn column_profile(
        codes: *const u8,
        tables: *const u8,
        letters: usize,
        out: *mut Self::V,
    );
    /// Writes each lane's score to `out[..LANES]`, or [`OVERFLOW`].
    unsafe fn lane_scores(v: Self::V, out: &mut [i32]);
    /// The lanes whose byte at `bytes` (`LANES` bytes) is 0xFF (the others are 0).
    unsafe fn load_mask(bytes: *const u8) -> Self::Mask;
    /// `v` with the lanes in `mask` set to zero.
    unsafe fn reset(v: Self::V, mask: Self::Mask) -> Self::V;
}

/// What one call scores: a query against every stream of a packing.
pub(crate) struct StreamJob<'a> {
    /// For each query row, `code * COLUMN_BLOCK`: its profile vectors' index.
    pub(crate) profile_index: &'a [u32],
    /// The packed database sequences (codes below 32).
    pub(crate) streams: &'a LaneStreams,
    /// Per-letter score tables.
    pub(crate) tables: &'a ScoreTables,
    /// Cost of a gap of length 1 (open + extend).
    pub(crate) first_gap: i32,
    /// Cost of each further gap residue.
    pub(crate) extend: i32,
}

/// Where a pass puts its results.
pub(crate) struct Results<'a> {
    /// Exact scores, by sequence index in the block.
    pub(crate) scores: &'a mut [i32],
    /// Sequences whose lanes overflowed (to rescore with wider lanes).
    pub(crate) overflowed: &'a mut Vec<u32>,
}

impl Results<'_> {
    #[inline]
    fn record(&mut self, sequence: u32, value: i32) {
        if sequence == NO_SEQUENCE {
            return;
        }
        if value == OVERFLOW {
            self.overflowed.push(sequence);
        } else {
            self.scores[sequence as usize] = value;
        }
    }
}

/// Working memory of the kernel: one `H` and one `E` vector per query row and the score
/// profile of one column block. A worker keeps one and reuses it for every pass.
#[derive(Clone, Default)]
pub(crate) struct Scratch {
    rows: AlignedBuf,
    profile: AlignedBuf,
}

/// The state one sweep down the query updates.
struct Sweep<L: Lanes> {
    rows: usize,
    profile: *const L::V,
    profile_index: *const u32,
    h_row: *mut L::V,
    e_row: *mut L::V,
    first_gap: L::V,
    extend: L::V,
    best: L::V,
}

impl<L: Lanes> Sweep<L> {
    /// Sweeps the query over one column block, first zeroing the lanes in `mask` of
    /// each row's `H` and `E` when `RESET`.
    ///
    /// # Safety
    /// `L`'s ISA; `h_row`/`e_row` hold `rows` vectors; the profile holds the block's
    /// vectors for every letter the profile indices name.
    #[inline(always)]
    unsafe fn run<const RESET: bool>(&mut self, mask: L::Mask) {
        let zero = L::zero();
        let (first_gap, extend) = (self.first_gap, self.extend);
        let mut best = self.best;
        // Row -1 of the block: H = 0, no vertical gap open.
        let (mut f0, mut f1, mut f2, mut f3) = (zero, zero, zero, zero);
        let (mut up0, mut up1, mut up2) = (zero, zero, zero);
        let mut diag = zero;
        for i in 0..self.rows {
            let scores = self.profile.add(*self.profile_index.add(i) as usize);
            let mut left = L::load(self.h_row.add(i));
            let mut e = L::load(self.e_row.add(i));
            if RESET {
                left = L::reset(left, mask);
                e = L::reset(e, mask);
            }
            // One cell: H from the diagonal, F (carried down the column) and E (carried
            // along the row, taken last: the row's E chain is the longest dependency,
            // three operations per cell this way); then the gaps the next cells extend.
            macro_rules! cell {
                ($diag:expr, $k:expr, $f:ident) => {{
                    let mut h = L::add_score($diag, L::load(scores.add($k)));
                    h = L::max(h, $f);
                    h = L::max(h, e);
                    best = L::max(best, h);
                    let opened = L::sub_cost(h, first_gap);
                    e = L::max(L::sub_cost(e, extend), opened);
                    $f = L::max(L::sub_cost($f, extend), opened);
                    h
                }};
            }
            let h0 = cell!(diag, 0, f0);
            let h1 = cell!(up0, 1, f1);
            let h2 = cell!(up1, 2, f2);
            let h3 = cell!(up2, 3, f3);
            diag = left;
            up0 = h0;
            up1 = h1;
            up2 = h2;
            L::store(self.h_row.add(i), h3);
            L::store(self.e_row.add(i), e);
        }
        self.best = best;
    }
}

/// Scores the query of `job` against every sequence of its streams: exact scores to
/// `results.scores`, overflowed sequences to `results.overflowed`.
///
/// # Safety
/// The CPU must support `L`'s ISA; the streams must be packed for `L::LANES` lanes with
/// codes below 32; every `job.profile_index` entry must be `code * COLUMN_BLOCK` for a
/// code below `job.tables.letters()`; the gap costs must fit `L::splat_cost`;
/// `results.scores` must cover every sequence index in the streams.
#[inline(always)]
pub(crate) unsafe fn score_streams<L: Lanes>(
    job: &StreamJob<'_>,
    scratch: &mut Scratch,
    results: &mut Results<'_>,
) {
    let streams = job.streams;
    debug_assert_eq!(streams.lanes, L::LANES);
    for &sequence in &streams.empty {
        results.record(sequence, 0);
    }
    if streams.blocks == 0 {
        return;
    }
    let rows = job.profile_index.len();
    let vector = std::mem::size_of::<L::V>();
    let letters = job.tables.letters();
    scratch.rows.reserve_bytes(2 * rows * vector);
    scratch
        .profile
        .reserve_bytes(letters * COLUMN_BLOCK * vector);
    let h_row = scratch.rows.as_mut_ptr().cast::<L::V>();
    let profile = scratch.profile.as_mut_ptr().cast::<L::V>();
    let tables = job.tables.as_ptr();
    let zero = L::zero();
    for i in 0..2 * rows {
        L::store(h_row.add(i), zero);
    }
    let mut sweep = Sweep::<L> {
        rows,
        profile,
        profile_index: job.profile_index.as_ptr(),
        h_row,
        e_row: h_row.add(rows),
        first_gap: L::splat_cost(job.first_gap),
        extend: L::splat_cost(job.extend),
        best: zero,
    };
    let residues = streams.residues().as_ptr();
    let mut lane_values = [0i32; 64];
    let mut switch_blocks = streams.switch_blocks.iter().peekable();
    let no_lanes = L::load_mask([0u8; 64].as_ptr());
    for block in 0..streams.blocks {
        for k in 0..COLUMN_BLOCK {
            let codes = residues.add((block * COLUMN_BLOCK + k) * L::LANES);
            L::column_profile(codes, tables, letters, profile.add(k));
        }
        match switch_blocks.next_if(|b| b.block == block) {
            Some(switch) => {
                L::lane_scores(sweep.best, &mut lane_values);
                for s in &streams.switches[switch.first..switch.end] {
                    results.record(s.ended, lane_values[s.lane as usize]);
                }
                let mask = L::load_mask(streams.mask(switch).as_ptr());
                sweep.best = L::reset(sweep.best, mask);
                sweep.run::<true>(mask);
            }
            None => sweep.run::<false>(no_lanes),
        }
    }
    L::lane_scores(sweep.best, &mut lane_values);
    for (lane, &sequence) in streams.last.iter().enumerate() {
        results.record(sequence, lane_values[lane]);
    }
}

#[cfg(test)]
pub(crate) mod emulated {
    //! A portable [`Lanes`] of any width in plain arrays: it runs the generic kernel at
    //! the AVX-512 lane counts (64, 32, 16) on any CPU, so the packing and lane
    //! bookkeeping of those widths are tested even where AVX-512 is missing.

    use super::*;
    use crate::buffers::TABLE_STRIDE;

    /// `N` lanes of 8-bit (`BITS = 8`), 16-bit or 32-bit scores, held as `i32`.
    pub(crate) struct Emulated<const N: usize, const BITS: u32>;

    const fn top(bits: u32) -> i32 {
        match bits {
            8 => 255,
            16 => 65535,
            _ => i32::MAX,
        }
    }

    unsafe impl<const N: usize, const BITS: u32> Lanes for Emulated<N, BITS> {
        type V = [i32; N];
        type Mask = [bool; N];
        const LANES: usize = N;
        unsafe fn zero() -> Self::V {
            [0; N]
        }
        unsafe fn splat_cost(cost: i32) -> Self::V {
            [cost; N]
        }
        unsafe fn add_score(h: Self::V, s: Self::V) -> Self::V {
            std::array::from_fn(|l| (h[l] + s[l]).clamp(0, top(BITS)))
        }
        unsafe fn sub_cost(x: Self::V, c: Self::V) -> Self::V {
            std::array::from_fn(|l| {
                if BITS == 32 {
                    x[l] - c[l]
                } else {
                    (x[l] - c[l]).max(0)
                }
            })
        }
        unsafe fn max(a: Self::V, b: Self::V) -> Self::V {
            std::array::from_fn(|l| a[l].max(b[l]))
        }
        unsafe fn load(p: *const Self::V) -> Self::V {
            p.read_unaligned()
        }
        unsafe fn store(p: *mut Self::V, v: Self::V) {
            p.write_unaligned(v)
        }
        unsafe fn column_profile(
            codes: *const u8,
            tables: *const u8,
            letters: usize,
            out: *mut Self::V,
        ) {
            for a in 0..letters {
                let table = tables.add(a * TABLE_STRIDE);
                let v: Self::V = std::array::from_fn(|l| {
                    let code = *codes.add(l) as usize;
                    let half = if code < 16 { 0 } else { 64 };
                    *table.add(half + code % 16) as i8 as i32
                });
                Self::store(out.add(a * COLUMN_BLOCK), v);
            }
        }
        unsafe fn lane_scores(v: Self::V, out: &mut [i32]) {
            for l in 0..N {
                out[l] = if v[l] >= top(BITS) && BITS != 32 {
                    OVERFLOW
                } else {
                    v[l]
                };
            }
        }
        unsafe fn load_mask(bytes: *const u8) -> Self::Mask {
            std::array::from_fn(|l| *bytes.add(l) == 0xFF)
        }
        unsafe fn reset(v: Self::V, mask: Self::Mask) -> Self::V {
            std::array::from_fn(|l| if mask[l] { 0 } else { v[l] })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::emulated::Emulated;
    use super::*;
    use crate::block::{sort_by_length, SequenceBlock};
    use crate::{scalar, Scoring};

    /// Runs the generic kernel with `L` over a packed block and checks every sequence
    /// against the reference: exact up to `limit`, reported as overflowed above.
    fn check_width<L: Lanes>(scoring: &Scoring, query: &[u8], block: &SequenceBlock, limit: i32) {
        let mut order = Vec::new();
        sort_by_length(block, &mut order);
        let mut streams = LaneStreams::default();
        streams.pack(block, &order, L::LANES);
        let tables = ScoreTables::new(scoring.matrix());
        let profile_index: Vec<u32> = query.iter().map(|&c| c as u32 * 4).collect();
        let job = StreamJob {
            profile_index: &profile_index,
            streams: &streams,
            tables: &tables,
            first_gap: scoring.first_gap_cost(),
            extend: scoring.gap_extend(),
        };
        let mut scores = vec![-7; block.len()];
        let mut overflowed = Vec::new();
        let mut results = Results {
            scores: &mut scores,
            overflowed: &mut overflowed,
        };
        // SAFETY: the emulated lanes use no special instructions; the job is built from
        // a packing of this matrix's codes for L::LANES lanes.
        unsafe { score_streams::<L>(&job, &mut Scratch::default(), &mut results) };
        for (i, &score) in scores.iter().enumerate() {
            let expected = scalar::score(scoring, query, block.get(i));
            if expected > limit {
                assert!(overflowed.contains(&(i as u32)), "sequence {i}");
            } else {
                assert_eq!(score, expected, "sequence {i}");
            }
        }
    }

    #[test]
    fn avx512_lane_counts_emulated() {
        let scoring = Scoring::default();
        let m = scoring.matrix();
        let mut block = SequenceBlock::new();
        let mut state = 3u64;
        for i in 0..150 {
            let len = if i % 17 == 0 { 0 } else { (i * 7) % 90 };
            let seq: Vec<u8> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    b"ACDEFGHIKLMNPQRSTVWYXW"[(state >> 33) as usize % 22]
                })
                .collect();
            block.push(m, &seq);
        }
        block.push(m, &[b'W'; 40]);
        block.push(m, &[b'W'; 3]);
        let query = m.encode(b"MKWWWWWWWWWWWWWWWWWWWWWWWWWWWWAYDEFGHIKLMNPQRSTVWYACDE");
        check_width::<Emulated<64, 8>>(&scoring, &query, &block, 254);
        check_width::<Emulated<32, 16>>(&scoring, &query, &block, 65534);
        check_width::<Emulated<16, 32>>(&scoring, &query, &block, i32::MAX);
        check_width::<Emulated<3, 8>>(&scoring, &query, &block, 254);
    }
}
