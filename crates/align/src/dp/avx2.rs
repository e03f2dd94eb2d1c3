//! The AVX2 kernel: 16 jobs, one per 16-bit lane of a 256-bit vector, walk the band
//! cell by cell together. Every operation is the scalar reference's
//! ([`super::scalar::fill`]) applied lane-wise; see [`super::group`] for the layout.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use super::group::GroupBuffers;
use super::KernelParams;
#[cfg(target_arch = "x86_64")]
use super::NEG;

/// Lanes per vector.
#[cfg(target_arch = "x86_64")]
const LANES: usize = 16;

/// Fills the direction matrix (`rows × width × 16` bytes) and the best cell of every
/// lane (`best_*`, 16 values each, holding their initial values on entry).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn fill(
    b: &mut GroupBuffers,
    p: &KernelParams,
    dirs: &mut [u8],
    best: (&mut [i16], &mut [i16], &mut [i16]),
) {
    if p.local {
        fill_mode::<true>(b, dirs, best)
    } else {
        fill_mode::<false>(b, dirs, best)
    }
}

/// Non-x86 builds never select this kernel.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) unsafe fn fill(
    _: &mut GroupBuffers,
    _: &KernelParams,
    _: &mut [u8],
    _: (&mut [i16], &mut [i16], &mut [i16]),
) {
}

/// # Safety
/// AVX2; the buffer lengths are checked on entry.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fill_mode<const LOCAL: bool>(
    b: &mut GroupBuffers,
    dirs: &mut [u8],
    (best_score, best_row, best_k): (&mut [i16], &mut [i16], &mut [i16]),
) {
    let (rows, width) = (b.rows, b.width);
    let cols = rows + width - 1;
    let row_inputs = [
        &b.read,
        &b.match_score,
        &b.mismatch_score,
        &b.del_first,
        &b.del_extend,
        &b.ins_first,
        &b.ins_extend,
    ];
    let sizes_ok = b.lanes == LANES
        && row_inputs.iter().all(|v| v.len() >= rows * LANES)
        && [&b.reference, &b.floor, &b.cap]
            .iter()
            .all(|v| v.len() >= cols * LANES)
        && [&b.h_prev, &b.h_cur, &b.f_prev, &b.f_cur]
            .iter()
            .all(|v| v.len() >= (width + 1) * LANES)
        && b.row_ends.len() >= rows
        && dirs.len() >= rows * width * LANES
        && [&*best_score, &*best_row, &*best_k, &b.last_row[..]]
            .iter()
            .all(|v| v.len() >= LANES);
    if !sizes_ok {
        return;
    }
    // SAFETY (for every load/store below): `at(v, n)` reads or writes 16 `i16` at
    // `n * 16`, and each `n` stays below the row/column/scratch count checked above.
    let at = |v: *const i16, n: usize| v.add(n * LANES) as *const __m256i;
    let at_mut = |v: *mut i16, n: usize| v.add(n * LANES) as *mut __m256i;
    let neg = _mm256_set1_epi16(NEG);
    let zero = _mm256_setzero_si256();
    let one = _mm256_set1_epi16(1);
    let two = _mm256_set1_epi16(2);
    let three = _mm256_set1_epi16(3);
    let four = _mm256_set1_epi16(4);
    let eight = _mm256_set1_epi16(8);
    let mut h_prev = b.h_prev.as_mut_ptr();
    let mut h_cur = b.h_cur.as_mut_ptr();
    let mut f_prev = b.f_prev.as_mut_ptr();
    let mut f_cur = b.f_cur.as_mut_ptr();
    for k in 0..=width {
        _mm256_storeu_si256(at_mut(h_prev, k), if k < width { zero } else { neg });
        _mm256_storeu_si256(at_mut(f_prev, k), neg);
        _mm256_storeu_si256(at_mut(h_cur, k), neg);
        _mm256_storeu_si256(at_mut(f_cur, k), neg);
    }
    let last_row = _mm256_loadu_si256(at(b.last_row.as_ptr(), 0));
    let last_row_next = _mm256_adds_epi16(last_row, one);
    let mut bs = _mm256_loadu_si256(at(best_score.as_ptr(), 0));
    let mut br = _mm256_loadu_si256(at(best_row.as_ptr(), 0));
    let mut bk = _mm256_loadu_si256(at(best_k.as_ptr(), 0));
    let (reference, floor, cap) = (b.reference.as_ptr(), b.floor.as_ptr(), b.cap.as_ptr());
    for i in 0..rows {
        let iv = _mm256_set1_epi16(i as i16);
        let read = _mm256_loadu_si256(at(b.read.as_ptr(), i));
        let ma = _mm256_loadu_si256(at(b.match_score.as_ptr(), i));
        let mm = _mm256_loadu_si256(at(b.mismatch_score.as_ptr(), i));
        let del_first = _mm256_loadu_si256(at(b.del_first.as_ptr(), i));
        let del_extend = _mm256_loadu_si256(at(b.del_extend.as_ptr(), i));
        let ins_first = _mm256_loadu_si256(at(b.ins_first.as_ptr(), i));
        let ins_extend = _mm256_loadu_si256(at(b.ins_extend.as_ptr(), i));
        let valid = _mm256_cmpgt_epi16(last_row_next, iv);
        let dir_row = dirs.as_mut_ptr().add(i * width * LANES);
        let (mut h_left, mut e_left) = (neg, neg);
        for k in 0..width {
            let j = i + k;
            let code = _mm256_loadu_si256(at(reference, j));
            let eq = _mm256_cmpeq_epi16(code, read);
            let s = _mm256_blendv_epi8(mm, ma, eq);
            let s = _mm256_max_epi16(s, _mm256_loadu_si256(at(floor, j)));
            let s = _mm256_min_epi16(s, _mm256_loadu_si256(at(cap, j)));
            let diag = _mm256_adds_epi16(_mm256_loadu_si256(at(h_prev, k)), s);
            let e_open = _mm256_subs_epi16(h_left, del_first);
            let e_ext = _mm256_subs_epi16(e_left, del_extend);
            let e = _mm256_max_epi16(e_open, e_ext);
            let f_open = _mm256_subs_epi16(_mm256_loadu_si256(at(h_prev, k + 1)), ins_first);
            let f_ext = _mm256_subs_epi16(_mm256_loadu_si256(at(f_prev, k + 1)), ins_extend);
            let f = _mm256_max_epi16(f_open, f_ext);
            let mut h = _mm256_max_epi16(diag, _mm256_max_epi16(e, f));
            let is_diag = _mm256_cmpeq_epi16(h, diag);
            let is_e = _mm256_cmpeq_epi16(h, e);
            let mut d = _mm256_andnot_si256(is_diag, _mm256_blendv_epi8(two, one, is_e));
            if LOCAL {
                h = _mm256_max_epi16(h, zero);
                d = _mm256_or_si256(d, _mm256_and_si256(_mm256_cmpeq_epi16(h, zero), three));
                // h >= bs and h > 0: ties go to the later cell (see `scalar::fill`).
                let scored = _mm256_and_si256(_mm256_cmpgt_epi16(h, zero), valid);
                let better = _mm256_andnot_si256(_mm256_cmpgt_epi16(bs, h), scored);
                bs = _mm256_blendv_epi8(bs, h, better);
                br = _mm256_blendv_epi8(br, iv, better);
                bk = _mm256_blendv_epi8(bk, _mm256_set1_epi16(k as i16), better);
            }
            d = _mm256_or_si256(d, _mm256_and_si256(_mm256_cmpgt_epi16(e_ext, e_open), four));
            d = _mm256_or_si256(
                d,
                _mm256_and_si256(_mm256_cmpgt_epi16(f_ext, f_open), eight),
            );
            // 16 words (0..=15) to 16 bytes: pack within each 128-bit half, then bring
            // the two halves' first quadwords together.
            let packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(d, d), 0b1000);
            _mm_storeu_si128(
                dir_row.add(k * LANES) as *mut __m128i,
                _mm256_castsi256_si128(packed),
            );
            _mm256_storeu_si256(at_mut(h_cur, k), h);
            _mm256_storeu_si256(at_mut(f_cur, k), f);
            h_left = h;
            e_left = e;
        }
        if !LOCAL && b.row_ends[i] {
            let ends_here = _mm256_cmpeq_epi16(last_row, iv);
            for k in 0..width {
                let h = _mm256_loadu_si256(at(h_cur, k));
                let better = _mm256_andnot_si256(_mm256_cmpgt_epi16(bs, h), ends_here);
                bs = _mm256_blendv_epi8(bs, h, better);
                bk = _mm256_blendv_epi8(bk, _mm256_set1_epi16(k as i16), better);
            }
        }
        std::mem::swap(&mut h_prev, &mut h_cur);
        std::mem::swap(&mut f_prev, &mut f_cur);
    }
    _mm256_storeu_si256(best_score.as_mut_ptr() as *mut __m256i, bs);
    _mm256_storeu_si256(best_row.as_mut_ptr() as *mut __m256i, br);
    _mm256_storeu_si256(best_k.as_mut_ptr() as *mut __m256i, bk);
}
