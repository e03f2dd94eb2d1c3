//! The striped (Farrar) Smith-Waterman kernel: one query against one subject at a time,
//! with the query's cells spread across the lanes of each vector.
//!
//! The inter-sequence kernel puts a different database sequence in each lane; this one
//! parallelises within a single alignment instead, which needs no batch of subjects and
//! gains with query length. The query of length `m` is cut into 16 stripes of
//! `segments = ceil(m / 16)` residues; vector `k` holds query positions
//! `k, segments + k, 2 * segments + k, ...` in its 16 lanes, so within one subject column
//! the vertical gap (F) dependency between neighbouring positions only crosses lanes at
//! the end of a stripe. The main loop ignores that crossing, and the "lazy F" loop
//! afterwards propagates it only while it can still change a cell (Farrar 2007).
//!
//! Lanes are 16-bit signed with saturating arithmetic (AVX2, 16 lanes per vector). A
//! score that reaches `i16::MAX` may have saturated, so it is reported as overflow and the
//! caller rescores the pair with wider arithmetic.

use crate::{Error, Scoring};

/// Lanes per 256-bit vector of 16-bit scores.
const LANES: usize = 16;

/// The highest score the 16-bit lanes report; reaching it counts as overflow.
pub const MAX_EXACT_SCORE: i32 = i16::MAX as i32 - 1;

/// Sixteen 16-bit lanes, aligned for 256-bit loads and stores.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(32))]
struct Vector16([i16; LANES]);

/// A query prepared for the striped kernel: its striped profile (one row of vectors per
/// subject code) and the per-column working vectors, reused for every subject.
#[derive(Debug, Clone)]
pub struct StripedProfile {
    /// `profile[code * segments + k]`: the scores of the query positions in vector `k`
    /// against subject code `code` (0 past the query's end).
    profile: Vec<Vector16>,
    segments: usize,
    codes: usize,
    first_gap: i16,
    extend: i16,
    /// H of the current subject column, per query vector.
    h_current: Vec<Vector16>,
    /// H of the previous subject column, per query vector.
    h_previous: Vec<Vector16>,
    /// E (horizontal gap) entering the next subject column, per query vector.
    e_next: Vec<Vector16>,
}

impl StripedProfile {
    /// Builds the striped profile of the encoded `query` (codes of `scoring`'s matrix).
    ///
    /// An error when this CPU lacks AVX2, or when the matrix holds scores that 16-bit
    /// lanes cannot (gap costs always fit: [`Scoring`] caps them well below 32767).
    pub fn new(scoring: &Scoring, query: &[u8]) -> Result<Self, Error> {
        if !crate::Isa::Avx2.is_supported() {
            return Err(Error::Simd(
                "the striped kernel needs AVX2, which this CPU lacks".into(),
            ));
        }
        let matrix = scoring.matrix();
        let lane_range = i16::MIN as i32..=i16::MAX as i32;
        if !lane_range.contains(&matrix.min_score()) || !lane_range.contains(&matrix.max_score()) {
            return Err(Error::Scoring(format!(
                "matrix {}: scores outside -32768..=32767 do not fit the striped kernel",
                matrix.name()
            )));
        }
        let (Ok(first_gap), Ok(extend)) = (
            i16::try_from(scoring.first_gap_cost()),
            i16::try_from(scoring.gap_extend()),
        ) else {
            return Err(Error::Scoring(
                "gap costs above 32767 do not fit the striped kernel".into(),
            ));
        };
        let segments = query.len().div_ceil(LANES);
        let codes = matrix.len();
        let mut profile = vec![Vector16::default(); codes * segments];
        for (code, row) in profile.chunks_exact_mut(segments.max(1)).enumerate() {
            for (k, vector) in row.iter_mut().enumerate() {
                for (lane, score) in vector.0.iter_mut().enumerate() {
                    if let Some(&q) = query.get(lane * segments + k) {
                        // In range: checked against the matrix's extremes above.
                        *score = matrix.score(q, code as u8) as i16;
                    }
                }
            }
        }
        Ok(Self {
            profile,
            segments,
            codes,
            first_gap,
            extend,
            h_current: vec![Vector16::default(); segments],
            h_previous: vec![Vector16::default(); segments],
            e_next: vec![Vector16::default(); segments],
        })
    }

    /// The query's length rounded up to whole vectors (the cells computed per subject
    /// residue).
    pub fn padded_len(&self) -> usize {
        self.segments * LANES
    }

    /// The best local alignment score of the query against the encoded `subject` (codes
    /// of the same matrix), or `None` when it is above [`MAX_EXACT_SCORE`] and may have
    /// saturated (rescore with [`crate::scalar::score`] or a wider kernel).
    ///
    /// # Panics
    /// If `subject` holds a code outside the matrix (never for codes from
    /// [`crate::ScoreMatrix::encode`]).
    pub fn score(&mut self, subject: &[u8]) -> Option<i32> {
        if self.segments == 0 || subject.is_empty() {
            return Some(0);
        }
        assert!(
            subject.iter().all(|&code| (code as usize) < self.codes),
            "subject codes must index the matrix's {} symbols",
            self.codes
        );
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `new` checked that the CPU has AVX2; every subject code was just
            // checked to index a row of the profile; the working vectors hold `segments`
            // vectors each and the profile `codes * segments`.
            let best = unsafe { self.score_avx2(subject) };
            (i32::from(best) <= MAX_EXACT_SCORE).then_some(i32::from(best))
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            unreachable!("`new` refuses to build a striped profile without AVX2")
        }
    }

    /// The 16-bit striped recurrence over every subject column; returns the best cell.
    ///
    /// # Safety
    /// AVX2; every code in `subject` below `self.codes`; `segments > 0`.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn score_avx2(&mut self, subject: &[u8]) -> i16 {
        use std::arch::x86_64::*;

        /// Moves every lane up by one (lane 15 drops out), lane 0 becoming 0.
        #[inline(always)]
        unsafe fn shift_up(v: __m256i) -> __m256i {
            // [0, low half of v], then byte-align each 128-bit half against it.
            let carried = _mm256_permute2x128_si256::<0x08>(v, v);
            _mm256_alignr_epi8::<14>(v, carried)
        }

        let segments = self.segments;
        let first_gap = _mm256_set1_epi16(self.first_gap);
        let extend = _mm256_set1_epi16(self.extend);
        let zero = _mm256_setzero_si256();
        let minus_infinity = _mm256_set1_epi16(i16::MIN);
        // OR-ed into a shifted vector (lane 0 = 0), it makes lane 0 minus infinity.
        let lane0_minus_infinity =
            _mm256_setr_epi16(i16::MIN, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        let mut h_current = self.h_current.as_mut_ptr().cast::<__m256i>();
        let mut h_previous = self.h_previous.as_mut_ptr().cast::<__m256i>();
        let e_next = self.e_next.as_mut_ptr().cast::<__m256i>();
        for k in 0..segments {
            _mm256_store_si256(h_current.add(k), zero);
            _mm256_store_si256(e_next.add(k), minus_infinity);
        }
        let profile = self.profile.as_ptr().cast::<__m256i>();
        let mut best = zero;

        for &code in subject {
            let scores = profile.add(code as usize * segments);
            // H(i - 1, j - 1) for each lane's first position: the previous column's last
            // vector moved up a lane (0 above the query's first residue).
            let mut h_diagonal = shift_up(_mm256_load_si256(h_current.add(segments - 1)));
            std::mem::swap(&mut h_current, &mut h_previous);
            let mut f = minus_infinity;
            for k in 0..segments {
                let mut h = _mm256_adds_epi16(h_diagonal, _mm256_load_si256(scores.add(k)));
                let e = _mm256_load_si256(e_next.add(k));
                h = _mm256_max_epi16(h, e);
                h = _mm256_max_epi16(h, f);
                h = _mm256_max_epi16(h, zero);
                best = _mm256_max_epi16(best, h);
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
            // gap from the cell's own H would give. A corrected H is at most a gap below
            // a cell already counted in `best`, so `best` needs no update here.
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
        }
        // The largest lane of `best`.
        let half = _mm_max_epi16(
            _mm256_castsi256_si128(best),
            _mm256_extracti128_si256::<1>(best),
        );
        let half = _mm_max_epi16(half, _mm_srli_si128::<8>(half));
        let half = _mm_max_epi16(half, _mm_srli_si128::<4>(half));
        let half = _mm_max_epi16(half, _mm_srli_si128::<2>(half));
        _mm_extract_epi16::<0>(half) as i16
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{scalar, ScoreMatrix};
    use proptest::prelude::*;

    /// Whether the striped kernel can run here; says so on stderr when it cannot.
    fn have_avx2() -> bool {
        let supported = crate::Isa::Avx2.is_supported();
        if !supported {
            eprintln!("note: this CPU lacks AVX2; the striped kernel is not tested here");
        }
        supported
    }

    /// Checks the striped score of `query` against each subject equals the reference
    /// (or is reported as overflow when the reference is above the 16-bit limit).
    fn check(scoring: &Scoring, query: &[u8], subjects: &[Vec<u8>]) {
        let matrix = scoring.matrix();
        let query = matrix.encode(query);
        let mut profile = StripedProfile::new(scoring, &query).unwrap();
        for subject in subjects {
            let subject = matrix.encode(subject);
            let expected = scalar::score(scoring, &query, &subject);
            let got = profile.score(&subject);
            if expected > MAX_EXACT_SCORE {
                assert_eq!(got, None, "{} query {}", matrix.name(), query.len());
            } else {
                assert_eq!(
                    got,
                    Some(expected),
                    "{} query {}",
                    matrix.name(),
                    query.len()
                );
            }
        }
    }

    fn repeat(pattern: &[u8], len: usize) -> Vec<u8> {
        pattern.iter().copied().cycle().take(len).collect()
    }

    const AMINO: &[u8] = b"ACDEFGHIKLMNPQRSTVWYBZXU*";

    fn protein(max_len: usize) -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop::sample::select(AMINO), 0..max_len)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn equals_scalar_on_random_proteins(
            query in protein(200),
            subjects in prop::collection::vec(protein(200), 1..12),
            matrix in prop::sample::select(vec!["BLOSUM62", "BLOSUM50", "PAM30"]),
            open in 0i32..16,
            extend in 0i32..4,
        ) {
            if !have_avx2() {
                return Ok(());
            }
            let scoring = Scoring::new(ScoreMatrix::builtin(matrix).unwrap(), open, extend).unwrap();
            check(&scoring, &query, &subjects);
        }

        #[test]
        fn equals_scalar_on_related_proteins(
            query in protein(300),
            edits in prop::collection::vec((0usize..300, prop::sample::select(AMINO), 0usize..3), 0..20),
            matrix in prop::sample::select(vec!["BLOSUM62", "BLOSUM50", "PAM30"]),
            open in 0i32..12,
            extend in 1i32..3,
        ) {
            if !have_avx2() {
                return Ok(());
            }
            // A mutated copy of the query: long gapped alignments exercise the lazy F loop.
            let mut subject = query.clone();
            for (position, residue, kind) in edits {
                let at = position.min(subject.len());
                match kind {
                    0 => subject.insert(at, residue),
                    1 if at < subject.len() => { subject.remove(at); }
                    _ if at < subject.len() => subject[at] = residue,
                    _ => {}
                }
            }
            let scoring = Scoring::new(ScoreMatrix::builtin(matrix).unwrap(), open, extend).unwrap();
            check(&scoring, &query, &[subject, query.clone()]);
        }
    }

    #[test]
    fn edge_cases() {
        if !have_avx2() {
            return;
        }
        let scoring = Scoring::default();
        let subjects = vec![
            Vec::new(),
            b"W".to_vec(),
            b"A".to_vec(),
            repeat(b"X", 300),
            repeat(b"WCAY", 37),
            b"MKV".to_vec(),
        ];
        // Empty, length 1, all-X, and lengths around multiples of 16.
        for query in [
            Vec::new(),
            b"W".to_vec(),
            repeat(b"X", 40),
            repeat(b"MKVWCAYWCAY", 15),
            repeat(b"MKVWCAYWCAY", 16),
            repeat(b"MKVWCAYWCAY", 17),
            repeat(b"ACDEFGHIKLMNPQRSTVWY", 33),
        ] {
            check(&scoring, &query, &subjects);
        }
    }

    #[test]
    fn long_query() {
        if !have_avx2() {
            return;
        }
        let mut state = 11u64;
        let mut random = |len: usize| -> Vec<u8> {
            (0..len)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    b"ACDEFGHIKLMNPQRSTVWY"[(state >> 33) as usize % 20]
                })
                .collect()
        };
        let query = random(3000);
        let mut subjects: Vec<Vec<u8>> = (0..4).map(|i| random(100 + 150 * i)).collect();
        subjects.push(query[700..1900].to_vec());
        let mut gapped = query[100..900].to_vec();
        gapped.drain(300..340);
        gapped.splice(500..500, repeat(b"GG", 25));
        subjects.push(gapped);
        check(&Scoring::default(), &query, &subjects);
    }

    #[test]
    fn sixteen_bit_saturation_is_reported() {
        if !have_avx2() {
            return;
        }
        let scoring = Scoring::default();
        // W scores 11: 2,978 W's reach 32,758 (exact), 2,979 reach 32,769 (overflow).
        let subjects = vec![repeat(b"W", 2_978), repeat(b"W", 2_979), repeat(b"W", 10)];
        check(&scoring, &repeat(b"W", 3_000), &subjects);
        let mut profile =
            StripedProfile::new(&scoring, &scoring.matrix().encode(&repeat(b"W", 3_000))).unwrap();
        let codes = scoring.matrix().encode(&repeat(b"W", 2_979));
        assert_eq!(profile.score(&codes), None);
    }

    #[test]
    fn profile_is_reused_across_subjects() {
        if !have_avx2() {
            return;
        }
        let scoring = Scoring::default();
        let m = scoring.matrix();
        let mut profile = StripedProfile::new(&scoring, &m.encode(b"MKVWCAYWCAYHHE")).unwrap();
        assert_eq!(profile.padded_len(), 16);
        let long = m.encode(&repeat(b"WCAY", 60));
        let short = m.encode(b"WCAY");
        let first = profile.score(&long);
        assert_eq!(profile.score(&short), Some(31));
        assert_eq!(profile.score(&long), first);
    }
}
