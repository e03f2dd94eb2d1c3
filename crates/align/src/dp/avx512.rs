//! The AVX-512BW kernel: 32 jobs, one per 16-bit lane of a 512-bit vector, walk the
//! band cell by cell together. Every operation is the scalar reference's
//! ([`super::scalar::fill`]) applied lane-wise; see [`super::group`] for the layout.
//! Comparisons give mask registers, so selections are masked blends.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

use super::group::GroupBuffers;
use super::KernelParams;
#[cfg(target_arch = "x86_64")]
use super::NEG;

/// Lanes per vector.
#[cfg(target_arch = "x86_64")]
const LANES: usize = 32;

/// Fills the direction matrix (`rows × width × 32` bytes) and the best cell of every
/// lane (`best_*`, 32 values each, holding their initial values on entry).
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
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
/// AVX-512F/BW; the buffer lengths are checked on entry.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
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
    // SAFETY (for every load/store below): `at(v, n)` reads or writes 32 `i16` at
    // `n * 32`, and each `n` stays below the row/column/scratch count checked above.
    let at = |v: *const i16, n: usize| v.add(n * LANES) as *const __m512i;
    let at_mut = |v: *mut i16, n: usize| v.add(n * LANES) as *mut __m512i;
    let neg = _mm512_set1_epi16(NEG);
    let zero = _mm512_setzero_si512();
    let one = _mm512_set1_epi16(1);
    let two = _mm512_set1_epi16(2);
    let three = _mm512_set1_epi16(3);
    let four = _mm512_set1_epi16(4);
    let eight = _mm512_set1_epi16(8);
    let mut h_prev = b.h_prev.as_mut_ptr();
    let mut h_cur = b.h_cur.as_mut_ptr();
    let mut f_prev = b.f_prev.as_mut_ptr();
    let mut f_cur = b.f_cur.as_mut_ptr();
    for k in 0..=width {
        _mm512_storeu_si512(at_mut(h_prev, k).cast(), if k < width { zero } else { neg });
        _mm512_storeu_si512(at_mut(f_prev, k).cast(), neg);
        _mm512_storeu_si512(at_mut(h_cur, k).cast(), neg);
        _mm512_storeu_si512(at_mut(f_cur, k).cast(), neg);
    }
    let load = |ptr: *const __m512i| _mm512_loadu_si512(ptr.cast());
    let last_row = load(at(b.last_row.as_ptr(), 0));
    let last_row_next = _mm512_adds_epi16(last_row, one);
    let mut bs = load(at(best_score.as_ptr(), 0));
    let mut br = load(at(best_row.as_ptr(), 0));
    let mut bk = load(at(best_k.as_ptr(), 0));
    let (reference, floor, cap) = (b.reference.as_ptr(), b.floor.as_ptr(), b.cap.as_ptr());
    for i in 0..rows {
        let iv = _mm512_set1_epi16(i as i16);
        let read = load(at(b.read.as_ptr(), i));
        let ma = load(at(b.match_score.as_ptr(), i));
        let mm = load(at(b.mismatch_score.as_ptr(), i));
        let del_first = load(at(b.del_first.as_ptr(), i));
        let del_extend = load(at(b.del_extend.as_ptr(), i));
        let ins_first = load(at(b.ins_first.as_ptr(), i));
        let ins_extend = load(at(b.ins_extend.as_ptr(), i));
        let valid = _mm512_cmpgt_epi16_mask(last_row_next, iv);
        let dir_row = dirs.as_mut_ptr().add(i * width * LANES);
        let (mut h_left, mut e_left) = (neg, neg);
        for k in 0..width {
            let j = i + k;
            let eq = _mm512_cmpeq_epi16_mask(load(at(reference, j)), read);
            let s = _mm512_mask_blend_epi16(eq, mm, ma);
            let s = _mm512_max_epi16(s, load(at(floor, j)));
            let s = _mm512_min_epi16(s, load(at(cap, j)));
            let diag = _mm512_adds_epi16(load(at(h_prev, k)), s);
            let e_open = _mm512_subs_epi16(h_left, del_first);
            let e_ext = _mm512_subs_epi16(e_left, del_extend);
            let e = _mm512_max_epi16(e_open, e_ext);
            let f_open = _mm512_subs_epi16(load(at(h_prev, k + 1)), ins_first);
            let f_ext = _mm512_subs_epi16(load(at(f_prev, k + 1)), ins_extend);
            let f = _mm512_max_epi16(f_open, f_ext);
            let mut h = _mm512_max_epi16(diag, _mm512_max_epi16(e, f));
            let is_diag = _mm512_cmpeq_epi16_mask(h, diag);
            let is_e = _mm512_cmpeq_epi16_mask(h, e);
            let source = _mm512_mask_blend_epi16(is_e, two, one);
            let mut d = _mm512_mask_blend_epi16(is_diag, source, zero);
            if LOCAL {
                h = _mm512_max_epi16(h, zero);
                let stop = _mm512_cmpeq_epi16_mask(h, zero);
                d = _mm512_mask_blend_epi16(stop, d, three);
                // h >= bs and h > 0: ties go to the later cell (see `scalar::fill`).
                let better = _mm512_cmpge_epi16_mask(h, bs) & !stop & valid;
                bs = _mm512_mask_blend_epi16(better, bs, h);
                br = _mm512_mask_blend_epi16(better, br, iv);
                bk = _mm512_mask_blend_epi16(better, bk, _mm512_set1_epi16(k as i16));
            }
            let e_extends = _mm512_cmpgt_epi16_mask(e_ext, e_open);
            let f_extends = _mm512_cmpgt_epi16_mask(f_ext, f_open);
            d = _mm512_or_si512(d, _mm512_maskz_mov_epi16(e_extends, four));
            d = _mm512_or_si512(d, _mm512_maskz_mov_epi16(f_extends, eight));
            _mm256_storeu_si256(
                dir_row.add(k * LANES) as *mut __m256i,
                _mm512_cvtepi16_epi8(d),
            );
            _mm512_storeu_si512(at_mut(h_cur, k).cast(), h);
            _mm512_storeu_si512(at_mut(f_cur, k).cast(), f);
            h_left = h;
            e_left = e;
        }
        if !LOCAL && b.row_ends[i] {
            let ends_here = _mm512_cmpeq_epi16_mask(last_row, iv);
            for k in 0..width {
                let h = load(at(h_cur, k));
                let better = ends_here & _mm512_cmpge_epi16_mask(h, bs);
                bs = _mm512_mask_blend_epi16(better, bs, h);
                bk = _mm512_mask_blend_epi16(better, bk, _mm512_set1_epi16(k as i16));
            }
        }
        std::mem::swap(&mut h_prev, &mut h_cur);
        std::mem::swap(&mut f_prev, &mut f_cur);
    }
    _mm512_storeu_si512(best_score.as_mut_ptr().cast(), bs);
    _mm512_storeu_si512(best_row.as_mut_ptr().cast(), br);
    _mm512_storeu_si512(best_k.as_mut_ptr().cast(), bk);
}
