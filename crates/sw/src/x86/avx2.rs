//! AVX2 lanes: 32 x 8-bit, 16 x 16-bit and 8 x 32-bit scores in 256-bit vectors.
//!
//! Score lookups use `vpshufb`: a lane's subject code (below 32) indexes the 16-entry
//! low table when below 16 and the high table otherwise. Adding `0x70` with unsigned
//! saturation keeps codes 0..16 in the low nibble with bit 7 clear and sets bit 7 for
//! codes 16..32 (so the low shuffle yields 0 there); subtracting 16 does the opposite for
//! the high shuffle; OR merges the two.

use std::arch::x86_64::*;

use crate::block::COLUMN_BLOCK;
use crate::buffers::TABLE_STRIDE;
use crate::inter::{score_streams, Lanes, Results, Scratch, StreamJob, OVERFLOW};

/// Scores of `letters` letters against 16 codes, as 16 bytes.
///
/// # Safety
/// SSSE3 (implied by AVX2); `codes` readable for 16 bytes, `table` for
/// `letters * TABLE_STRIDE` bytes.
#[inline(always)]
unsafe fn lookup16(codes: __m128i, table: *const u8) -> __m128i {
    let low_index = _mm_adds_epu8(codes, _mm_set1_epi8(0x70));
    let high_index = _mm_sub_epi8(codes, _mm_set1_epi8(16));
    let low = _mm_load_si128(table.cast());
    let high = _mm_load_si128(table.add(64).cast());
    _mm_or_si128(
        _mm_shuffle_epi8(low, low_index),
        _mm_shuffle_epi8(high, high_index),
    )
}

/// 32 lanes of 8-bit scores stored as `score - 128`.
pub(crate) struct Avx2I8;

// SAFETY: every method uses AVX2 intrinsics only; `Lanes` callers guarantee AVX2.
unsafe impl Lanes for Avx2I8 {
    type V = __m256i;
    type Mask = __m256i;
    const LANES: usize = 32;

    #[inline(always)]
    unsafe fn zero() -> __m256i {
        _mm256_set1_epi8(i8::MIN)
    }
    #[inline(always)]
    unsafe fn splat_cost(cost: i32) -> __m256i {
        _mm256_set1_epi8(cost as i8)
    }
    #[inline(always)]
    unsafe fn add_score(h: __m256i, s: __m256i) -> __m256i {
        _mm256_adds_epi8(h, s)
    }
    #[inline(always)]
    unsafe fn sub_cost(x: __m256i, cost: __m256i) -> __m256i {
        _mm256_subs_epi8(x, cost)
    }
    #[inline(always)]
    unsafe fn max(a: __m256i, b: __m256i) -> __m256i {
        _mm256_max_epi8(a, b)
    }
    #[inline(always)]
    unsafe fn load(p: *const __m256i) -> __m256i {
        _mm256_load_si256(p)
    }
    #[inline(always)]
    unsafe fn store(p: *mut __m256i, v: __m256i) {
        _mm256_store_si256(p, v)
    }
    #[inline(always)]
    unsafe fn column_profile(
        codes: *const u8,
        tables: *const u8,
        letters: usize,
        out: *mut __m256i,
    ) {
        let codes = _mm256_loadu_si256(codes.cast());
        let low_index = _mm256_adds_epu8(codes, _mm256_set1_epi8(0x70));
        let high_index = _mm256_sub_epi8(codes, _mm256_set1_epi8(16));
        for a in 0..letters {
            let table = tables.add(a * TABLE_STRIDE);
            let low = _mm256_load_si256(table.cast());
            let high = _mm256_load_si256(table.add(64).cast());
            let scores = _mm256_or_si256(
                _mm256_shuffle_epi8(low, low_index),
                _mm256_shuffle_epi8(high, high_index),
            );
            _mm256_store_si256(out.add(a * COLUMN_BLOCK), scores);
        }
    }
    #[inline(always)]
    unsafe fn lane_scores(v: __m256i, out: &mut [i32]) {
        let mut lanes = [0i8; 32];
        _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v);
        for (o, &x) in out.iter_mut().zip(&lanes) {
            *o = if x == i8::MAX {
                OVERFLOW
            } else {
                x as i32 + 128
            };
        }
    }
    #[inline(always)]
    unsafe fn load_mask(bytes: *const u8) -> __m256i {
        _mm256_loadu_si256(bytes.cast())
    }
    #[inline(always)]
    unsafe fn reset(v: __m256i, mask: __m256i) -> __m256i {
        _mm256_blendv_epi8(v, Self::zero(), mask)
    }
}

/// 16 lanes of 16-bit scores stored as `score - 32768`.
pub(crate) struct Avx2I16;

// SAFETY: every method uses AVX2 intrinsics only; `Lanes` callers guarantee AVX2.
unsafe impl Lanes for Avx2I16 {
    type V = __m256i;
    type Mask = __m256i;
    const LANES: usize = 16;

    #[inline(always)]
    unsafe fn zero() -> __m256i {
        _mm256_set1_epi16(i16::MIN)
    }
    #[inline(always)]
    unsafe fn splat_cost(cost: i32) -> __m256i {
        _mm256_set1_epi16(cost as i16)
    }
    #[inline(always)]
    unsafe fn add_score(h: __m256i, s: __m256i) -> __m256i {
        _mm256_adds_epi16(h, s)
    }
    #[inline(always)]
    unsafe fn sub_cost(x: __m256i, cost: __m256i) -> __m256i {
        _mm256_subs_epi16(x, cost)
    }
    #[inline(always)]
    unsafe fn max(a: __m256i, b: __m256i) -> __m256i {
        _mm256_max_epi16(a, b)
    }
    #[inline(always)]
    unsafe fn load(p: *const __m256i) -> __m256i {
        _mm256_load_si256(p)
    }
    #[inline(always)]
    unsafe fn store(p: *mut __m256i, v: __m256i) {
        _mm256_store_si256(p, v)
    }
    #[inline(always)]
    unsafe fn column_profile(
        codes: *const u8,
        tables: *const u8,
        letters: usize,
        out: *mut __m256i,
    ) {
        let codes = _mm_loadu_si128(codes.cast());
        for a in 0..letters {
            let scores = lookup16(codes, tables.add(a * TABLE_STRIDE));
            _mm256_store_si256(out.add(a * COLUMN_BLOCK), _mm256_cvtepi8_epi16(scores));
        }
    }
    #[inline(always)]
    unsafe fn lane_scores(v: __m256i, out: &mut [i32]) {
        let mut lanes = [0i16; 16];
        _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v);
        for (o, &x) in out.iter_mut().zip(&lanes) {
            *o = if x == i16::MAX {
                OVERFLOW
            } else {
                x as i32 + 32768
            };
        }
    }
    #[inline(always)]
    unsafe fn load_mask(bytes: *const u8) -> __m256i {
        _mm256_cvtepi8_epi16(_mm_loadu_si128(bytes.cast()))
    }
    #[inline(always)]
    unsafe fn reset(v: __m256i, mask: __m256i) -> __m256i {
        _mm256_blendv_epi8(v, Self::zero(), mask)
    }
}

/// 8 lanes of 32-bit scores (exact for any score these inputs reach).
pub(crate) struct Avx2I32;

// SAFETY: every method uses AVX2 intrinsics only; `Lanes` callers guarantee AVX2.
unsafe impl Lanes for Avx2I32 {
    type V = __m256i;
    type Mask = __m256i;
    const LANES: usize = 8;

    #[inline(always)]
    unsafe fn zero() -> __m256i {
        _mm256_setzero_si256()
    }
    #[inline(always)]
    unsafe fn splat_cost(cost: i32) -> __m256i {
        _mm256_set1_epi32(cost)
    }
    #[inline(always)]
    unsafe fn add_score(h: __m256i, s: __m256i) -> __m256i {
        _mm256_max_epi32(_mm256_add_epi32(h, s), _mm256_setzero_si256())
    }
    #[inline(always)]
    unsafe fn sub_cost(x: __m256i, cost: __m256i) -> __m256i {
        _mm256_sub_epi32(x, cost)
    }
    #[inline(always)]
    unsafe fn max(a: __m256i, b: __m256i) -> __m256i {
        _mm256_max_epi32(a, b)
    }
    #[inline(always)]
    unsafe fn load(p: *const __m256i) -> __m256i {
        _mm256_load_si256(p)
    }
    #[inline(always)]
    unsafe fn store(p: *mut __m256i, v: __m256i) {
        _mm256_store_si256(p, v)
    }
    #[inline(always)]
    unsafe fn column_profile(
        codes: *const u8,
        tables: *const u8,
        letters: usize,
        out: *mut __m256i,
    ) {
        let codes = _mm_loadl_epi64(codes.cast());
        for a in 0..letters {
            let scores = lookup16(codes, tables.add(a * TABLE_STRIDE));
            _mm256_store_si256(out.add(a * COLUMN_BLOCK), _mm256_cvtepi8_epi32(scores));
        }
    }
    #[inline(always)]
    unsafe fn lane_scores(v: __m256i, out: &mut [i32]) {
        let mut lanes = [0i32; 8];
        _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v);
        out[..8].copy_from_slice(&lanes);
    }
    #[inline(always)]
    unsafe fn load_mask(bytes: *const u8) -> __m256i {
        _mm256_cvtepi8_epi32(_mm_loadl_epi64(bytes.cast()))
    }
    #[inline(always)]
    unsafe fn reset(v: __m256i, mask: __m256i) -> __m256i {
        _mm256_andnot_si256(mask, v)
    }
}

/// Scores a query against lane streams with 8-bit lanes.
///
/// # Safety
/// The CPU must support AVX2, and the arguments must satisfy [`score_streams`]'s contract.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn score_streams_i8(
    job: &StreamJob<'_>,
    scratch: &mut Scratch,
    results: &mut Results<'_>,
) {
    score_streams::<Avx2I8>(job, scratch, results)
}

/// Scores a query against lane streams with 16-bit lanes.
///
/// # Safety
/// As [`score_streams_i8`].
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn score_streams_i16(
    job: &StreamJob<'_>,
    scratch: &mut Scratch,
    results: &mut Results<'_>,
) {
    score_streams::<Avx2I16>(job, scratch, results)
}

/// Scores a query against lane streams with 32-bit lanes.
///
/// # Safety
/// As [`score_streams_i8`].
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn score_streams_i32(
    job: &StreamJob<'_>,
    scratch: &mut Scratch,
    results: &mut Results<'_>,
) {
    score_streams::<Avx2I32>(job, scratch, results)
}
