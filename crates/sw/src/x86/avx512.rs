//! AVX-512BW lanes: 64 x 8-bit, 32 x 16-bit and 16 x 32-bit scores in 512-bit vectors.
//!
//! The same kernel and the same lookup trick as [`super::avx2`], on four 16-byte lanes
//! per `vpshufb` instead of two. Only AVX-512F and AVX-512BW instructions are used (no
//! VBMI), so any AVX-512 server CPU runs it.

use std::arch::x86_64::*;

use crate::block::COLUMN_BLOCK;
use crate::buffers::TABLE_STRIDE;
use crate::inter::{score_streams, Lanes, Results, Scratch, StreamJob, OVERFLOW};

/// Scores of a letter against 16 codes, as 16 bytes (see [`super::avx2`]).
///
/// # Safety
/// SSSE3 (implied by AVX-512); `table` readable for `TABLE_STRIDE` bytes, 16-aligned.
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

/// Scores of a letter against 32 codes, as 32 bytes.
///
/// # Safety
/// AVX2 (implied by AVX-512); `table` readable for `TABLE_STRIDE` bytes, 32-aligned.
#[inline(always)]
unsafe fn lookup32(codes: __m256i, table: *const u8) -> __m256i {
    let low_index = _mm256_adds_epu8(codes, _mm256_set1_epi8(0x70));
    let high_index = _mm256_sub_epi8(codes, _mm256_set1_epi8(16));
    let low = _mm256_load_si256(table.cast());
    let high = _mm256_load_si256(table.add(64).cast());
    _mm256_or_si256(
        _mm256_shuffle_epi8(low, low_index),
        _mm256_shuffle_epi8(high, high_index),
    )
}

/// 64 lanes of 8-bit scores stored as `score - 128`.
pub(crate) struct Avx512I8;

// SAFETY: every method uses AVX-512F/BW intrinsics only; callers guarantee both.
unsafe impl Lanes for Avx512I8 {
    type V = __m512i;
    type Mask = __mmask64;
    const LANES: usize = 64;

    #[inline(always)]
    unsafe fn zero() -> __m512i {
        _mm512_set1_epi8(i8::MIN)
    }
    #[inline(always)]
    unsafe fn splat_cost(cost: i32) -> __m512i {
        _mm512_set1_epi8(cost as i8)
    }
    #[inline(always)]
    unsafe fn add_score(h: __m512i, s: __m512i) -> __m512i {
        _mm512_adds_epi8(h, s)
    }
    #[inline(always)]
    unsafe fn sub_cost(x: __m512i, cost: __m512i) -> __m512i {
        _mm512_subs_epi8(x, cost)
    }
    #[inline(always)]
    unsafe fn max(a: __m512i, b: __m512i) -> __m512i {
        _mm512_max_epi8(a, b)
    }
    #[inline(always)]
    unsafe fn load(p: *const __m512i) -> __m512i {
        _mm512_load_si512(p.cast())
    }
    #[inline(always)]
    unsafe fn store(p: *mut __m512i, v: __m512i) {
        _mm512_store_si512(p.cast(), v)
    }
    #[inline(always)]
    unsafe fn column_profile(
        codes: *const u8,
        tables: *const u8,
        letters: usize,
        out: *mut __m512i,
    ) {
        let codes = _mm512_loadu_si512(codes.cast());
        let low_index = _mm512_adds_epu8(codes, _mm512_set1_epi8(0x70));
        let high_index = _mm512_sub_epi8(codes, _mm512_set1_epi8(16));
        for a in 0..letters {
            let table = tables.add(a * TABLE_STRIDE);
            let low = _mm512_load_si512(table.cast());
            let high = _mm512_load_si512(table.add(64).cast());
            let scores = _mm512_or_si512(
                _mm512_shuffle_epi8(low, low_index),
                _mm512_shuffle_epi8(high, high_index),
            );
            _mm512_store_si512(out.add(a * COLUMN_BLOCK).cast(), scores);
        }
    }
    #[inline(always)]
    unsafe fn lane_scores(v: __m512i, out: &mut [i32]) {
        let mut lanes = [0i8; 64];
        _mm512_storeu_si512(lanes.as_mut_ptr().cast(), v);
        for (o, &x) in out.iter_mut().zip(&lanes) {
            *o = if x == i8::MAX {
                OVERFLOW
            } else {
                x as i32 + 128
            };
        }
    }
    #[inline(always)]
    unsafe fn load_mask(bytes: *const u8) -> __mmask64 {
        let m = _mm512_loadu_si512(bytes.cast());
        _mm512_test_epi8_mask(m, m)
    }
    #[inline(always)]
    unsafe fn reset(v: __m512i, mask: __mmask64) -> __m512i {
        _mm512_mask_blend_epi8(mask, v, Self::zero())
    }
}

/// 32 lanes of 16-bit scores stored as `score - 32768`.
pub(crate) struct Avx512I16;

// SAFETY: every method uses AVX-512F/BW intrinsics only; callers guarantee both.
unsafe impl Lanes for Avx512I16 {
    type V = __m512i;
    type Mask = __mmask32;
    const LANES: usize = 32;

    #[inline(always)]
    unsafe fn zero() -> __m512i {
        _mm512_set1_epi16(i16::MIN)
    }
    #[inline(always)]
    unsafe fn splat_cost(cost: i32) -> __m512i {
        _mm512_set1_epi16(cost as i16)
    }
    #[inline(always)]
    unsafe fn add_score(h: __m512i, s: __m512i) -> __m512i {
        _mm512_adds_epi16(h, s)
    }
    #[inline(always)]
    unsafe fn sub_cost(x: __m512i, cost: __m512i) -> __m512i {
        _mm512_subs_epi16(x, cost)
    }
    #[inline(always)]
    unsafe fn max(a: __m512i, b: __m512i) -> __m512i {
        _mm512_max_epi16(a, b)
    }
    #[inline(always)]
    unsafe fn load(p: *const __m512i) -> __m512i {
        _mm512_load_si512(p.cast())
    }
    #[inline(always)]
    unsafe fn store(p: *mut __m512i, v: __m512i) {
        _mm512_store_si512(p.cast(), v)
    }
    #[inline(always)]
    unsafe fn column_profile(
        codes: *const u8,
        tables: *const u8,
        letters: usize,
        out: *mut __m512i,
    ) {
        let codes = _mm256_loadu_si256(codes.cast());
        for a in 0..letters {
            let scores = lookup32(codes, tables.add(a * TABLE_STRIDE));
            _mm512_store_si512(
                out.add(a * COLUMN_BLOCK).cast(),
                _mm512_cvtepi8_epi16(scores),
            );
        }
    }
    #[inline(always)]
    unsafe fn lane_scores(v: __m512i, out: &mut [i32]) {
        let mut lanes = [0i16; 32];
        _mm512_storeu_si512(lanes.as_mut_ptr().cast(), v);
        for (o, &x) in out.iter_mut().zip(&lanes) {
            *o = if x == i16::MAX {
                OVERFLOW
            } else {
                x as i32 + 32768
            };
        }
    }
    #[inline(always)]
    unsafe fn load_mask(bytes: *const u8) -> __mmask32 {
        let m = _mm512_cvtepi8_epi16(_mm256_loadu_si256(bytes.cast()));
        _mm512_test_epi16_mask(m, m)
    }
    #[inline(always)]
    unsafe fn reset(v: __m512i, mask: __mmask32) -> __m512i {
        _mm512_mask_blend_epi16(mask, v, Self::zero())
    }
}

/// 16 lanes of 32-bit scores.
pub(crate) struct Avx512I32;

// SAFETY: every method uses AVX-512F intrinsics only; callers guarantee AVX-512F/BW.
unsafe impl Lanes for Avx512I32 {
    type V = __m512i;
    type Mask = __mmask16;
    const LANES: usize = 16;

    #[inline(always)]
    unsafe fn zero() -> __m512i {
        _mm512_setzero_si512()
    }
    #[inline(always)]
    unsafe fn splat_cost(cost: i32) -> __m512i {
        _mm512_set1_epi32(cost)
    }
    #[inline(always)]
    unsafe fn add_score(h: __m512i, s: __m512i) -> __m512i {
        _mm512_max_epi32(_mm512_add_epi32(h, s), _mm512_setzero_si512())
    }
    #[inline(always)]
    unsafe fn sub_cost(x: __m512i, cost: __m512i) -> __m512i {
        _mm512_sub_epi32(x, cost)
    }
    #[inline(always)]
    unsafe fn max(a: __m512i, b: __m512i) -> __m512i {
        _mm512_max_epi32(a, b)
    }
    #[inline(always)]
    unsafe fn load(p: *const __m512i) -> __m512i {
        _mm512_load_si512(p.cast())
    }
    #[inline(always)]
    unsafe fn store(p: *mut __m512i, v: __m512i) {
        _mm512_store_si512(p.cast(), v)
    }
    #[inline(always)]
    unsafe fn column_profile(
        codes: *const u8,
        tables: *const u8,
        letters: usize,
        out: *mut __m512i,
    ) {
        let codes = _mm_loadu_si128(codes.cast());
        for a in 0..letters {
            let scores = lookup16(codes, tables.add(a * TABLE_STRIDE));
            _mm512_store_si512(
                out.add(a * COLUMN_BLOCK).cast(),
                _mm512_cvtepi8_epi32(scores),
            );
        }
    }
    #[inline(always)]
    unsafe fn lane_scores(v: __m512i, out: &mut [i32]) {
        let mut lanes = [0i32; 16];
        _mm512_storeu_si512(lanes.as_mut_ptr().cast(), v);
        out[..16].copy_from_slice(&lanes);
    }
    #[inline(always)]
    unsafe fn load_mask(bytes: *const u8) -> __mmask16 {
        let m = _mm512_cvtepi8_epi32(_mm_loadu_si128(bytes.cast()));
        _mm512_test_epi32_mask(m, m)
    }
    #[inline(always)]
    unsafe fn reset(v: __m512i, mask: __mmask16) -> __m512i {
        _mm512_mask_blend_epi32(mask, v, Self::zero())
    }
}

/// Scores a query against lane streams with 8-bit lanes.
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512BW, and the arguments must satisfy
/// [`score_streams`]'s contract.
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn score_streams_i8(
    job: &StreamJob<'_>,
    scratch: &mut Scratch,
    results: &mut Results<'_>,
) {
    score_streams::<Avx512I8>(job, scratch, results)
}

/// Scores a query against lane streams with 16-bit lanes.
///
/// # Safety
/// As [`score_streams_i8`].
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn score_streams_i16(
    job: &StreamJob<'_>,
    scratch: &mut Scratch,
    results: &mut Results<'_>,
) {
    score_streams::<Avx512I16>(job, scratch, results)
}

/// Scores a query against lane streams with 32-bit lanes.
///
/// # Safety
/// As [`score_streams_i8`].
#[target_feature(enable = "avx512f,avx512bw")]
pub(crate) unsafe fn score_streams_i32(
    job: &StreamJob<'_>,
    scratch: &mut Scratch,
    results: &mut Results<'_>,
) {
    score_streams::<Avx512I32>(job, scratch, results)
}
