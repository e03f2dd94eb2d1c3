//! The inter-sequence kernel (SWIPE style), written once for any vector type.
//!
//! Each vector lane holds a different database sequence; the query runs down the rows.
//! The kernel walks the database [`COLUMN_BLOCK`] columns at a time: for each block it
//! builds the *score profile* (for every query letter, its scores against the residues
//! in every lane, by byte shuffles from [`ScoreTables`]), then sweeps the query once,
//! keeping the block's vertical-gap and previous-row scores in registers and reading and
//! writing only one `H` and one `E` vector per row.
//!
//! Scores are saturating: 8- and 16-bit lanes store `score + MIN` (so 0 is the type's
//! minimum and signed saturation floors at 0 for free), 32-bit lanes store the score.
//! A lane whose best score reaches the type's maximum has overflowed: the caller rescores
//! that sequence with wider lanes. The ISA modules implement [`Lanes`] with intrinsics
//! (`#[inline(always)]`, no target features of their own) and call [`score_group`] from
//! functions compiled for their ISA, where everything inlines into one loop.

use crate::block::COLUMN_BLOCK;
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
}

/// What one call scores: a query against one lane group.
pub(crate) struct GroupJob<'a> {
    /// For each query row, `code * COLUMN_BLOCK`: its profile vectors' index.
    pub(crate) profile_index: &'a [u32],
    /// The group's column-major residues, `columns * LANES` bytes, codes < 32.
    pub(crate) residues: &'a [u8],
    /// Columns (a multiple of [`COLUMN_BLOCK`]).
    pub(crate) columns: usize,
    /// Per-letter score tables.
    pub(crate) tables: &'a ScoreTables,
    /// Cost of a gap of length 1 (open + extend).
    pub(crate) first_gap: i32,
    /// Cost of each further gap residue.
    pub(crate) extend: i32,
}

/// Working memory of the kernel: one `H` and one `E` vector per query row and the score
/// profile of one column block. A worker keeps one and reuses it for every group.
#[derive(Clone, Default)]
pub(crate) struct Scratch {
    rows: AlignedBuf,
    profile: AlignedBuf,
}

/// Scores `job`, writing each lane's best score (or [`OVERFLOW`]) to `out[..L::LANES]`.
///
/// # Safety
/// The CPU must support `L`'s ISA; `job.residues` must hold `job.columns * L::LANES`
/// codes below 32; every `job.profile_index` entry must be `code * COLUMN_BLOCK` for a
/// code below `job.tables.letters()`; `job.columns` must be a multiple of
/// [`COLUMN_BLOCK`]; the gap costs must fit `L::splat_cost`.
#[inline(always)]
pub(crate) unsafe fn score_group<L: Lanes>(
    job: &GroupJob<'_>,
    scratch: &mut Scratch,
    out: &mut [i32],
) {
    let rows = job.profile_index.len();
    let vector = std::mem::size_of::<L::V>();
    let letters = job.tables.letters();
    debug_assert_eq!(job.columns % COLUMN_BLOCK, 0);
    debug_assert!(job.residues.len() >= job.columns * L::LANES);
    scratch.rows.reserve_bytes(2 * rows * vector);
    scratch
        .profile
        .reserve_bytes(letters * COLUMN_BLOCK * vector);
    let h_row = scratch.rows.as_mut_ptr().cast::<L::V>();
    let e_row = h_row.add(rows);
    let profile = scratch.profile.as_mut_ptr().cast::<L::V>();
    let tables = job.tables.as_ptr();

    let zero = L::zero();
    for i in 0..rows {
        L::store(h_row.add(i), zero);
        L::store(e_row.add(i), zero);
    }
    let first_gap = L::splat_cost(job.first_gap);
    let extend = L::splat_cost(job.extend);
    let mut best = zero;

    let mut column = 0;
    while column < job.columns {
        for k in 0..COLUMN_BLOCK {
            let codes = job.residues.as_ptr().add((column + k) * L::LANES);
            L::column_profile(codes, tables, letters, profile.add(k));
        }
        // Row -1 of the block: H = 0, no vertical gap open.
        let (mut f0, mut f1, mut f2, mut f3) = (zero, zero, zero, zero);
        let (mut up0, mut up1, mut up2) = (zero, zero, zero);
        let mut diag = zero;
        for i in 0..rows {
            let scores = profile.add(*job.profile_index.get_unchecked(i) as usize);
            let left = L::load(h_row.add(i));
            let mut e = L::load(e_row.add(i));
            // One cell: H from the diagonal, E (carried along the row) and F (carried
            // down the column); then the gaps that the next cells may extend.
            macro_rules! cell {
                ($diag:expr, $k:expr, $f:ident) => {{
                    let mut h = L::add_score($diag, L::load(scores.add($k)));
                    h = L::max(h, e);
                    h = L::max(h, $f);
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
            L::store(h_row.add(i), h3);
            L::store(e_row.add(i), e);
        }
        column += COLUMN_BLOCK;
    }
    L::lane_scores(best, out);
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
    }
}

#[cfg(test)]
mod tests {
    use super::emulated::Emulated;
    use super::*;
    use crate::block::{sort_by_length, LanePack, SequenceBlock};
    use crate::{scalar, Scoring};

    /// Runs the generic kernel with `L` over every group of a packed block and checks
    /// each lane against the reference: exact below `limit`, overflow flagged above.
    fn check_width<L: Lanes>(scoring: &Scoring, query: &[u8], block: &SequenceBlock, limit: i32) {
        let mut order = Vec::new();
        sort_by_length(block, &mut order);
        let mut pack = LanePack::default();
        pack.pack(block, &order, L::LANES);
        let tables = ScoreTables::new(scoring.matrix());
        let profile_index: Vec<u32> = query.iter().map(|&c| c as u32 * 4).collect();
        let mut scratch = Scratch::default();
        let mut out = vec![0; L::LANES];
        for group in &pack.groups {
            let job = GroupJob {
                profile_index: &profile_index,
                residues: pack.group_residues(group),
                columns: group.columns,
                tables: &tables,
                first_gap: scoring.first_gap_cost(),
                extend: scoring.gap_extend(),
            };
            // SAFETY: the emulated lanes use no special instructions; the job is built
            // from a packing of this matrix's codes.
            unsafe { score_group::<L>(&job, &mut scratch, &mut out) };
            for (lane, &index) in pack.order[group.first..group.first + group.count]
                .iter()
                .enumerate()
            {
                let expected = scalar::score(scoring, query, block.get(index as usize));
                if expected > limit {
                    assert_eq!(out[lane], OVERFLOW, "sequence {index}");
                } else {
                    assert_eq!(out[lane], expected, "sequence {index}");
                }
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
        let query = m.encode(b"MKWWWWWWWWWWWWWWWWWWWWWWWWWWWWAYDEFGHIKLMNPQRSTVWYACDE");
        check_width::<Emulated<64, 8>>(&scoring, &query, &block, 254);
        check_width::<Emulated<32, 16>>(&scoring, &query, &block, 65534);
        check_width::<Emulated<16, 32>>(&scoring, &query, &block, i32::MAX);
    }
}
