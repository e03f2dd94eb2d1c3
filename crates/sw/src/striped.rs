//! Where one alignment ends: the best local score of one query against one subject and
//! the first cell reaching it, with the query striped across 16-bit AVX2 lanes (Farrar
//! 2007). The traceback of every reported hit starts here (and finds the alignment's
//! start with it too, on the reversed sequences), so this is a hot loop of a search that
//! reports many alignments; [`crate::scalar::best_end`] is its reference.
//!
//! With 16 lanes, the query of length `m` is cut into 16 stripes of
//! `segments = ceil(m / 16)` residues; vector `k` holds query positions
//! `k, segments + k, 2 * segments + k, ...`, so within one subject column the vertical
//! gap (F) dependency crosses lanes only at the end of a stripe. The main loop ignores
//! that crossing and the "lazy F" loop afterwards carries it only while it can still
//! change a cell. A cell that loop raises holds a gap below a cell above it, so it is
//! never a column's maximum: the maximum of each column is known after the main loop,
//! and the first column whose maximum beats every earlier one is where the best end
//! moves (subject-major order, as the reference).

use crate::Scoring;

/// Lanes per 256-bit vector of 16-bit scores.
const LANES: usize = 16;

/// The highest score the 16-bit lanes report exactly; a best cell reaching it may have
/// saturated, and the caller falls back to the reference.
const MAX_EXACT_SCORE: i32 = i16::MAX as i32 - 1;

/// The profile score of the padding past the query's end: low enough that a padding
/// cell never rises above 0 from its diagonal.
const PADDING_SCORE: i16 = i16::MIN / 2;

/// Sixteen 16-bit lanes, aligned for 256-bit loads and stores.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(32))]
struct Vector16([i16; LANES]);

/// The best local score of the encoded `query` against `subject` and the first cell
/// (smallest subject index, then query index) where an alignment with that score ends,
/// as [`crate::scalar::best_end`] gives them; `None` where this path does not apply: a
/// CPU without AVX2, matrix scores or gap costs outside 16 bits, a code outside the
/// matrix, or a best score that may have saturated its lanes.
pub(crate) fn best_end(
    scoring: &Scoring,
    query: &[u8],
    subject: &[u8],
) -> Option<(i32, usize, usize)> {
    if query.is_empty() || subject.is_empty() {
        return Some((0, 0, 0));
    }
    if !crate::Isa::Avx2.is_supported() {
        return None;
    }
    let matrix = scoring.matrix();
    let codes = matrix.len();
    let lane_range = i16::MIN as i32 / 2..=i16::MAX as i32;
    if !lane_range.contains(&matrix.min_score())
        || !lane_range.contains(&matrix.max_score())
        || query.iter().chain(subject).any(|&c| c as usize >= codes)
    {
        return None;
    }
    let first_gap = i16::try_from(scoring.first_gap_cost()).ok()?;
    let extend = i16::try_from(scoring.gap_extend()).ok()?;
    let segments = query.len().div_ceil(LANES);
    let mut profile = vec![Vector16([PADDING_SCORE; LANES]); codes * segments];
    for (i, &q) in query.iter().enumerate() {
        let (lane, k) = (i / segments, i % segments);
        for (code, &score) in matrix.row(q).iter().enumerate() {
            // In range: checked against the matrix's extremes above.
            profile[code * segments + k].0[lane] = score as i16;
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        let mut work = vec![Vector16::default(); 3 * segments];
        // SAFETY: AVX2 was checked above; every code indexes a row of the profile, which
        // holds `codes * segments` vectors; `work` holds 3 * segments vectors, all
        // 32-byte aligned; `segments > 0` as the query is not empty.
        let (score, query_last, subject_last) = unsafe {
            kernel::best_end(
                profile.as_ptr().cast(),
                segments,
                work.as_mut_ptr().cast(),
                first_gap,
                extend,
                subject,
            )
        };
        (score < MAX_EXACT_SCORE).then_some((score, query_last, subject_last))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (profile, first_gap, extend);
        None
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use std::arch::x86_64::*;

    use super::{LANES, MAX_EXACT_SCORE};

    /// Every lane moved up by one (the last lane drops out), lane 0 becoming 0.
    #[inline(always)]
    unsafe fn shift_up(v: __m256i) -> __m256i {
        let carried = _mm256_permute2x128_si256::<0x08>(v, v);
        _mm256_alignr_epi8::<14>(v, carried)
    }

    /// The largest lane of `v`.
    #[inline(always)]
    unsafe fn largest(v: __m256i) -> i32 {
        let half = _mm_max_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let half = _mm_max_epi16(half, _mm_srli_si128::<8>(half));
        let half = _mm_max_epi16(half, _mm_srli_si128::<4>(half));
        let half = _mm_max_epi16(half, _mm_srli_si128::<2>(half));
        i32::from(_mm_extract_epi16::<0>(half) as i16)
    }

    /// The striped recurrence over every subject column: the best score, and the first
    /// query and subject positions of a cell reaching it (`(0, 0, 0)` when no cell
    /// scores). Stops early, with a score of at least [`MAX_EXACT_SCORE`], once the
    /// lanes may saturate.
    ///
    /// # Safety
    /// AVX2; `segments > 0`; `profile` holds `segments` vectors per code of `subject`;
    /// `work` holds `3 * segments` vectors, 32-byte aligned.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn best_end(
        profile: *const __m256i,
        segments: usize,
        work: *mut __m256i,
        first_gap: i16,
        extend: i16,
        subject: &[u8],
    ) -> (i32, usize, usize) {
        let (mut h_current, mut h_previous, e_next) =
            (work, work.add(segments), work.add(2 * segments));
        let zero = _mm256_setzero_si256();
        let minus_infinity = _mm256_set1_epi16(i16::MIN);
        let lane0_minus_infinity = _mm256_insert_epi16::<0>(zero, i16::MIN);
        let first_gap = _mm256_set1_epi16(first_gap);
        let extend = _mm256_set1_epi16(extend);
        for k in 0..segments {
            _mm256_store_si256(h_current.add(k), zero);
            _mm256_store_si256(e_next.add(k), minus_infinity);
        }
        let mut best = (0, 0, 0);
        let mut best_lanes = zero;
        for (j, &code) in subject.iter().enumerate() {
            let scores = profile.add(code as usize * segments);
            // H(i - 1, j - 1) of each lane's first position: the previous column's last
            // vector moved up a lane (0 above the query's first residue).
            let mut h_diagonal = shift_up(_mm256_load_si256(h_current.add(segments - 1)));
            std::mem::swap(&mut h_current, &mut h_previous);
            let mut f = minus_infinity;
            let mut column_max = zero;
            for k in 0..segments {
                let mut h = _mm256_max_epi16(
                    _mm256_adds_epi16(h_diagonal, _mm256_load_si256(scores.add(k))),
                    zero,
                );
                let e = _mm256_load_si256(e_next.add(k));
                h = _mm256_max_epi16(_mm256_max_epi16(h, e), f);
                column_max = _mm256_max_epi16(column_max, h);
                _mm256_store_si256(h_current.add(k), h);
                let h_opened = _mm256_subs_epi16(h, first_gap);
                _mm256_store_si256(
                    e_next.add(k),
                    _mm256_max_epi16(_mm256_subs_epi16(e, extend), h_opened),
                );
                f = _mm256_max_epi16(_mm256_subs_epi16(f, extend), h_opened);
                h_diagonal = _mm256_load_si256(h_previous.add(k));
            }
            // Lazy F: carry F across stripe boundaries while it still beats what a new
            // gap from the cell's own H would give.
            f = _mm256_or_si256(shift_up(f), lane0_minus_infinity);
            let mut k = 0;
            loop {
                let h = _mm256_load_si256(h_current.add(k));
                let h_opened = _mm256_subs_epi16(h, first_gap);
                if _mm256_movemask_epi8(_mm256_cmpgt_epi16(f, h_opened)) == 0 {
                    break;
                }
                let h = _mm256_max_epi16(h, f);
                _mm256_store_si256(h_current.add(k), h);
                let e = _mm256_load_si256(e_next.add(k));
                _mm256_store_si256(
                    e_next.add(k),
                    _mm256_max_epi16(e, _mm256_subs_epi16(h, first_gap)),
                );
                f = _mm256_subs_epi16(f, extend);
                k += 1;
                if k == segments {
                    k = 0;
                    f = _mm256_or_si256(shift_up(f), lane0_minus_infinity);
                }
            }
            if _mm256_movemask_epi8(_mm256_cmpgt_epi16(column_max, best_lanes)) == 0 {
                continue;
            }
            // A new best: its first query position in this column.
            let score = largest(column_max);
            let target = _mm256_set1_epi16(score as i16);
            let mut first = usize::MAX;
            for k in 0..segments {
                let equal = _mm256_cmpeq_epi16(_mm256_load_si256(h_current.add(k)), target);
                let mask = _mm256_movemask_epi8(equal) as u32;
                if mask != 0 {
                    let lane = mask.trailing_zeros() as usize / 2;
                    first = first.min(lane * segments + k);
                }
            }
            best = (score, first, j);
            best_lanes = target;
            if score >= MAX_EXACT_SCORE {
                break;
            }
        }
        debug_assert!(best.1 < segments * LANES);
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScoreMatrix;
    use proptest::prelude::*;

    fn blosum62(open: i32, extend: i32) -> Scoring {
        Scoring::new(ScoreMatrix::builtin("BLOSUM62").unwrap(), open, extend).unwrap()
    }

    /// Checks the striped path against the reference on encoded sequences (skipped, with
    /// a line saying so, on a CPU without AVX2).
    fn check(scoring: &Scoring, query: &[u8], subject: &[u8]) {
        let reference = crate::scalar::best_end(scoring, query, subject);
        match best_end(scoring, query, subject) {
            Some(found) => assert_eq!(found, reference, "{query:?} x {subject:?}"),
            None => assert!(
                !crate::Isa::Avx2.is_supported(),
                "AVX2 present but the striped path declined"
            ),
        }
    }

    /// Protein codes drawn from `seed` (a linear congruential generator).
    fn random_codes(seed: u64, len: usize, alphabet: u8) -> Vec<u8> {
        let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
        (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 33) % u64::from(alphabet)) as u8
            })
            .collect()
    }

    #[test]
    fn matches_the_reference_at_every_query_length_around_the_lanes() {
        let scoring = blosum62(11, 1);
        let subject = random_codes(1, 300, 20);
        for len in (1..=70).chain([255, 256, 257, 600]) {
            let mut query = random_codes(len as u64 + 7, len, 20);
            check(&scoring, &query, &subject);
            // A copy of part of the subject, so that there is a real alignment.
            let piece = &subject[100..100 + len.min(150)];
            query.splice(0..piece.len().min(query.len()), piece.iter().copied());
            check(&scoring, &query, &subject);
        }
    }

    #[test]
    fn equal_best_cells_resolve_to_the_first_as_the_reference() {
        let scoring = blosum62(11, 1);
        let unit = random_codes(3, 40, 20);
        // The query twice in the subject, and a query holding the unit twice.
        let subject: Vec<u8> = [&unit[..], &random_codes(4, 50, 20), &unit[..]].concat();
        check(&scoring, &unit, &subject);
        let query: Vec<u8> = [&unit[..], &unit[..]].concat();
        check(&scoring, &query, &unit);
        check(&scoring, &[5; 33], &[5; 20]);
    }

    #[test]
    fn long_gaps_cross_stripes() {
        // A gap in the subject longer than a stripe: the lazy F loop must carry it.
        let scoring = blosum62(5, 1);
        let query = random_codes(9, 400, 20);
        let subject: Vec<u8> = [&query[..150], &query[230..]].concat();
        check(&scoring, &query, &subject);
        check(&scoring, &subject, &query);
    }

    #[test]
    fn saturating_scores_fall_back() {
        let scoring = Scoring::new(ScoreMatrix::dna(100, -100).unwrap(), 5, 2).unwrap();
        let m = scoring.matrix();
        let long = m.encode(&b"ACGT".repeat(100));
        if crate::Isa::Avx2.is_supported() {
            assert_eq!(best_end(&scoring, &long, &long), None, "40,000 overflows");
            let short = &long[..300];
            assert_eq!(
                best_end(&scoring, short, short),
                Some(crate::scalar::best_end(&scoring, short, short))
            );
        }
    }

    proptest! {
        #[test]
        fn matches_the_reference(
            query in proptest::collection::vec(0u8..24, 1..120),
            subject in proptest::collection::vec(0u8..24, 1..200),
            open in 0i32..15,
            extend in 1i32..4,
        ) {
            check(&blosum62(open, extend), &query, &subject);
        }

        #[test]
        fn matches_the_reference_on_dna(
            query in proptest::collection::vec(0u8..4, 1..90),
            subject in proptest::collection::vec(0u8..4, 1..300),
        ) {
            let scoring = Scoring::new(ScoreMatrix::dna(2, -3).unwrap(), 5, 2).unwrap();
            check(&scoring, &query, &subject);
        }
    }
}
