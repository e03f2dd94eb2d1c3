//! The striped recurrence, written once over the lane arithmetic that differs between the
//! 8-bit and 16-bit passes ([`StripedLanes`]). As in `inter.rs`, the lane operations are
//! `#[inline(always)]` with no target features of their own: [`best_cell`] is called
//! from functions compiled for AVX2, where everything inlines into one loop.

use std::arch::x86_64::*;

/// The vector operations of one lane width.
///
/// # Safety
/// Implementations use AVX2 intrinsics: callers must only call them from code compiled
/// for (and running on) a CPU with AVX2.
pub(super) unsafe trait StripedLanes {
    /// The value standing for minus infinity in E and F (it never raises an H).
    unsafe fn minus_infinity(&self) -> __m256i;
    /// `max(h_diagonal + score, 0)`, `score` being a profile vector.
    unsafe fn add_score(&self, h_diagonal: __m256i, score: __m256i) -> __m256i;
    /// Lane-wise saturating `x - cost`.
    unsafe fn sub_cost(&self, x: __m256i, cost: __m256i) -> __m256i;
    /// Lane-wise maximum.
    unsafe fn max(&self, a: __m256i, b: __m256i) -> __m256i;
    /// `f` moved up a lane (the last lane drops out), lane 0 becoming minus infinity.
    unsafe fn carry_f(&self, f: __m256i) -> __m256i;
    /// Whether any lane of `a` is above the same lane of `b`.
    unsafe fn any_greater(&self, a: __m256i, b: __m256i) -> bool;
    /// The largest lane of `v`.
    unsafe fn largest(&self, v: __m256i) -> i32;
    /// Every lane moved up by one (the last lane drops out), lane 0 becoming 0.
    unsafe fn shift_up(&self, v: __m256i) -> __m256i;
}

/// 32 unsigned 8-bit lanes holding scores (0 stands for minus infinity, since it is also
/// the lowest H); profile scores are stored plus `bias`.
pub(super) struct Unsigned8 {
    /// The profile's bias in every lane.
    bias: __m256i,
}

impl Unsigned8 {
    /// Lanes for a profile stored with `bias` added.
    ///
    /// # Safety
    /// As [`StripedLanes`].
    #[inline(always)]
    pub(super) unsafe fn new(bias: u8) -> Self {
        Self {
            bias: _mm256_set1_epi8(bias as i8),
        }
    }
}

// SAFETY: every method uses AVX2 intrinsics only; `StripedLanes` callers guarantee AVX2.
unsafe impl StripedLanes for Unsigned8 {
    #[inline(always)]
    unsafe fn minus_infinity(&self) -> __m256i {
        _mm256_setzero_si256()
    }
    #[inline(always)]
    unsafe fn add_score(&self, h_diagonal: __m256i, score: __m256i) -> __m256i {
        _mm256_subs_epu8(_mm256_adds_epu8(h_diagonal, score), self.bias)
    }
    #[inline(always)]
    unsafe fn sub_cost(&self, x: __m256i, cost: __m256i) -> __m256i {
        _mm256_subs_epu8(x, cost)
    }
    #[inline(always)]
    unsafe fn max(&self, a: __m256i, b: __m256i) -> __m256i {
        _mm256_max_epu8(a, b)
    }
    #[inline(always)]
    unsafe fn carry_f(&self, f: __m256i) -> __m256i {
        self.shift_up(f)
    }
    #[inline(always)]
    unsafe fn any_greater(&self, a: __m256i, b: __m256i) -> bool {
        // "a > b" is "a - b > 0" in saturating unsigned arithmetic.
        let not_greater = _mm256_cmpeq_epi8(_mm256_subs_epu8(a, b), _mm256_setzero_si256());
        _mm256_movemask_epi8(not_greater) != -1
    }
    #[inline(always)]
    unsafe fn largest(&self, v: __m256i) -> i32 {
        let half = _mm_max_epu8(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let half = _mm_max_epu8(half, _mm_srli_si128::<8>(half));
        let half = _mm_max_epu8(half, _mm_srli_si128::<4>(half));
        let half = _mm_max_epu8(half, _mm_srli_si128::<2>(half));
        let half = _mm_max_epu8(half, _mm_srli_si128::<1>(half));
        i32::from(_mm_extract_epi8::<0>(half) as u8)
    }
    #[inline(always)]
    unsafe fn shift_up(&self, v: __m256i) -> __m256i {
        // [0, low half of v], then byte-align each 128-bit half against it.
        let carried = _mm256_permute2x128_si256::<0x08>(v, v);
        _mm256_alignr_epi8::<15>(v, carried)
    }
}

/// 16 signed 16-bit lanes holding scores.
pub(super) struct Signed16 {
    /// `i16::MIN` in lane 0, 0 elsewhere: OR-ed into a shifted vector (lane 0 = 0), it
    /// makes lane 0 minus infinity.
    lane0_minus_infinity: __m256i,
}

impl Signed16 {
    /// The 16-bit lanes.
    ///
    /// # Safety
    /// As [`StripedLanes`].
    #[inline(always)]
    pub(super) unsafe fn new() -> Self {
        Self {
            lane0_minus_infinity: _mm256_insert_epi16::<0>(_mm256_setzero_si256(), i16::MIN),
        }
    }
}

// SAFETY: every method uses AVX2 intrinsics only; `StripedLanes` callers guarantee AVX2.
unsafe impl StripedLanes for Signed16 {
    #[inline(always)]
    unsafe fn minus_infinity(&self) -> __m256i {
        _mm256_set1_epi16(i16::MIN)
    }
    #[inline(always)]
    unsafe fn add_score(&self, h_diagonal: __m256i, score: __m256i) -> __m256i {
        _mm256_max_epi16(_mm256_adds_epi16(h_diagonal, score), _mm256_setzero_si256())
    }
    #[inline(always)]
    unsafe fn sub_cost(&self, x: __m256i, cost: __m256i) -> __m256i {
        _mm256_subs_epi16(x, cost)
    }
    #[inline(always)]
    unsafe fn max(&self, a: __m256i, b: __m256i) -> __m256i {
        _mm256_max_epi16(a, b)
    }
    #[inline(always)]
    unsafe fn carry_f(&self, f: __m256i) -> __m256i {
        _mm256_or_si256(self.shift_up(f), self.lane0_minus_infinity)
    }
    #[inline(always)]
    unsafe fn any_greater(&self, a: __m256i, b: __m256i) -> bool {
        _mm256_movemask_epi8(_mm256_cmpgt_epi16(a, b)) != 0
    }
    #[inline(always)]
    unsafe fn largest(&self, v: __m256i) -> i32 {
        let half = _mm_max_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let half = _mm_max_epi16(half, _mm_srli_si128::<8>(half));
        let half = _mm_max_epi16(half, _mm_srli_si128::<4>(half));
        let half = _mm_max_epi16(half, _mm_srli_si128::<2>(half));
        i32::from(_mm_extract_epi16::<0>(half) as i16)
    }
    #[inline(always)]
    unsafe fn shift_up(&self, v: __m256i) -> __m256i {
        let carried = _mm256_permute2x128_si256::<0x08>(v, v);
        _mm256_alignr_epi8::<14>(v, carried)
    }
}

/// A striped profile and its working vectors, as one pass sees them.
pub(super) struct Columns {
    /// `profile[code * segments + k]`: query vector `k`'s scores against `code`.
    pub(super) profile: *const __m256i,
    /// Query vectors per subject column: the query's length over the lanes, rounded up.
    pub(super) segments: usize,
    /// H of the current subject column (`segments` vectors).
    pub(super) h_current: *mut __m256i,
    /// H of the previous subject column (`segments` vectors).
    pub(super) h_previous: *mut __m256i,
    /// E entering the next subject column (`segments` vectors).
    pub(super) e_next: *mut __m256i,
    /// Cost of a gap of length 1 in every lane.
    pub(super) first_gap: __m256i,
    /// Cost of each further gap residue in every lane.
    pub(super) extend: __m256i,
}

/// The striped recurrence over every subject column; returns the best cell.
///
/// # Safety
/// AVX2 (called from a function compiled for it); `segments > 0`; the working vectors
/// hold `segments` vectors each, 32-byte aligned; every code in `subject` indexes a row
/// of the profile.
#[inline(always)]
pub(super) unsafe fn best_cell<L: StripedLanes>(
    lanes: &L,
    columns: Columns,
    subject: &[u8],
) -> i32 {
    let Columns {
        profile,
        segments,
        mut h_current,
        mut h_previous,
        e_next,
        first_gap,
        extend,
    } = columns;
    let zero = _mm256_setzero_si256();
    let minus_infinity = lanes.minus_infinity();
    for k in 0..segments {
        _mm256_store_si256(h_current.add(k), zero);
        _mm256_store_si256(e_next.add(k), minus_infinity);
    }
    let mut best = zero;

    for &code in subject {
        let scores = profile.add(code as usize * segments);
        // H(i - 1, j - 1) for each lane's first position: the previous column's last
        // vector moved up a lane (0 above the query's first residue).
        let mut h_diagonal = lanes.shift_up(_mm256_load_si256(h_current.add(segments - 1)));
        std::mem::swap(&mut h_current, &mut h_previous);
        let mut f = minus_infinity;
        for k in 0..segments {
            let mut h = lanes.add_score(h_diagonal, _mm256_load_si256(scores.add(k)));
            let e = _mm256_load_si256(e_next.add(k));
            h = lanes.max(h, e);
            h = lanes.max(h, f);
            best = lanes.max(best, h);
            _mm256_store_si256(h_current.add(k), h);
            let h_opened = lanes.sub_cost(h, first_gap);
            _mm256_store_si256(
                e_next.add(k),
                lanes.max(lanes.sub_cost(e, extend), h_opened),
            );
            f = lanes.max(lanes.sub_cost(f, extend), h_opened);
            h_diagonal = _mm256_load_si256(h_previous.add(k));
        }
        // Lazy F: carry F across stripe boundaries while it still beats what a new gap
        // from the cell's own H would give. A corrected H is at most a gap below a cell
        // already counted in `best`, so `best` needs no update here.
        f = lanes.carry_f(f);
        let mut k = 0;
        loop {
            let h = _mm256_load_si256(h_current.add(k));
            if !lanes.any_greater(f, lanes.sub_cost(h, first_gap)) {
                break;
            }
            let h = lanes.max(h, f);
            _mm256_store_si256(h_current.add(k), h);
            let e = _mm256_load_si256(e_next.add(k));
            _mm256_store_si256(e_next.add(k), lanes.max(e, lanes.sub_cost(h, first_gap)));
            f = lanes.sub_cost(f, extend);
            k += 1;
            if k == segments {
                k = 0;
                f = lanes.carry_f(f);
            }
        }
    }
    lanes.largest(best)
}
