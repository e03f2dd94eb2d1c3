//! The striped (Farrar) Smith-Waterman kernel: one query against one subject at a time,
//! with the query's cells spread across the lanes of each vector.
//!
//! The inter-sequence kernel puts a different database sequence in each lane; this one
//! parallelises within a single alignment instead, which needs no batch of subjects and
//! gains with query length. With `n` lanes, the query of length `m` is cut into `n`
//! stripes of `segments = ceil(m / n)` residues; vector `k` holds query positions
//! `k, segments + k, 2 * segments + k, ...` in its `n` lanes, so within one subject column
//! the vertical gap (F) dependency between neighbouring positions only crosses lanes at
//! the end of a stripe. The main loop ignores that crossing, and the "lazy F" loop
//! afterwards propagates it only while it can still change a cell (Farrar 2007).
//!
//! A subject is scored first with 32 unsigned 8-bit lanes (scores stored with a bias so
//! that none is negative), and again with 16 signed 16-bit lanes when the 8-bit score may
//! have saturated, as parasail's `sat` functions do. A 16-bit score that reaches
//! `i16::MAX` may have saturated too: it is reported as overflow and the caller rescores
//! the pair with wider arithmetic.

use crate::{Error, Scoring};

/// Lanes per 256-bit vector of 16-bit scores.
const LANES: usize = 16;

/// Lanes per 256-bit vector of 8-bit scores.
const BYTE_LANES: usize = 32;

/// The highest score the 16-bit lanes report; reaching it counts as overflow.
pub const MAX_EXACT_SCORE: i32 = i16::MAX as i32 - 1;

/// Sixteen 16-bit lanes, aligned for 256-bit loads and stores.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(32))]
struct Vector16([i16; LANES]);

/// Thirty-two 8-bit lanes, aligned for 256-bit loads and stores.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(32))]
struct Vector8([u8; BYTE_LANES]);

/// The query striped over 32 unsigned 8-bit lanes: the fast first pass. Scores are
/// stored as `score + bias`, so that none is negative; a cell saturates when its score
/// would pass `255 - bias`, so only scores below that are exact.
#[derive(Debug, Clone)]
struct ByteLanes {
    /// `profile[code * segments + k]`, as in [`StripedProfile`], plus `bias`.
    profile: Vec<Vector8>,
    segments: usize,
    bias: u8,
    first_gap: u8,
    extend: u8,
    h_current: Vec<Vector8>,
    h_previous: Vec<Vector8>,
    e_next: Vec<Vector8>,
}

impl ByteLanes {
    /// The 8-bit profile of `query`, or `None` when the matrix's range or the gap costs
    /// do not fit 8-bit lanes.
    fn new(scoring: &Scoring, query: &[u8]) -> Option<Self> {
        let matrix = scoring.matrix();
        let bias = u8::try_from(-matrix.min_score().min(0)).ok()?;
        u8::try_from(matrix.max_score() + i32::from(bias)).ok()?;
        let first_gap = u8::try_from(scoring.first_gap_cost()).ok()?;
        let extend = u8::try_from(scoring.gap_extend()).ok()?;
        let segments = query.len().div_ceil(BYTE_LANES);
        let mut profile = vec![Vector8::default(); matrix.len() * segments];
        for_each_striped_cell(
            query,
            matrix.len(),
            segments,
            BYTE_LANES,
            |code, k, lane, q| {
                // In 0..=255: checked against the matrix's extremes above. Past the query's
                // end: a score of 0 (the bias).
                profile[code * segments + k].0[lane] = q.map_or(bias, |q| {
                    (matrix.score(q, code as u8) + i32::from(bias)) as u8
                });
            },
        );
        Some(Self {
            profile,
            segments,
            bias,
            first_gap,
            extend,
            h_current: vec![Vector8::default(); segments],
            h_previous: vec![Vector8::default(); segments],
            e_next: vec![Vector8::default(); segments],
        })
    }

    /// The score, or `None` when it may have saturated.
    ///
    /// # Safety
    /// AVX2; every code in `subject` indexes a row of the profile; `segments > 0`.
    #[cfg(target_arch = "x86_64")]
    unsafe fn score(&mut self, subject: &[u8]) -> Option<i32> {
        let best = self.score_avx2(subject);
        (best < 255 - i32::from(self.bias)).then_some(best)
    }

    /// The 8-bit striped recurrence over every subject column; returns the best cell.
    ///
    /// # Safety
    /// As [`ByteLanes::score`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn score_avx2(&mut self, subject: &[u8]) -> i32 {
        use std::arch::x86_64::*;
        let lanes = kernel::Unsigned8::new(self.bias);
        kernel::best_cell(
            &lanes,
            kernel::Columns {
                profile: self.profile.as_ptr().cast(),
                segments: self.segments,
                h_current: self.h_current.as_mut_ptr().cast(),
                h_previous: self.h_previous.as_mut_ptr().cast(),
                e_next: self.e_next.as_mut_ptr().cast(),
                first_gap: _mm256_set1_epi8(self.first_gap as i8),
                extend: _mm256_set1_epi8(self.extend as i8),
            },
            subject,
        )
    }
}

/// A query prepared for the striped kernel: its 16-bit striped profile (one row of
/// vectors per subject code), the 8-bit one when the scoring fits 8 bits, and the
/// per-column working vectors, all reused for every subject.
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
    /// The 8-bit first pass, when the scoring fits 8-bit lanes.
    byte_lanes: Option<ByteLanes>,
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
        for_each_striped_cell(query, codes, segments, LANES, |code, k, lane, q| {
            // In range: checked against the matrix's extremes above.
            profile[code * segments + k].0[lane] =
                q.map_or(0, |q| matrix.score(q, code as u8) as i16);
        });
        Ok(Self {
            profile,
            segments,
            codes,
            first_gap,
            extend,
            h_current: vec![Vector16::default(); segments],
            h_previous: vec![Vector16::default(); segments],
            e_next: vec![Vector16::default(); segments],
            byte_lanes: ByteLanes::new(scoring, query),
        })
    }

    /// The query's length rounded up to whole 16-bit vectors (the cells the 16-bit pass
    /// computes per subject residue).
    pub fn padded_len(&self) -> usize {
        self.segments * LANES
    }

    /// The best local alignment score of the query against the encoded `subject` (codes
    /// of the same matrix), or `None` when it is above [`MAX_EXACT_SCORE`] and may have
    /// saturated (rescore with [`crate::scalar::score`] or a wider kernel). Computed with
    /// 8-bit lanes first, and again with 16-bit lanes when those may have saturated.
    ///
    /// # Panics
    /// If `subject` holds a code outside the matrix (never for codes from
    /// [`crate::ScoreMatrix::encode`]).
    pub fn score(&mut self, subject: &[u8]) -> Option<i32> {
        if self.segments == 0 || subject.is_empty() {
            return Some(0);
        }
        self.check_codes(subject);
        #[cfg(target_arch = "x86_64")]
        if let Some(byte_lanes) = &mut self.byte_lanes {
            // SAFETY: `new` checked that the CPU has AVX2; every subject code indexes a
            // row of the profile (checked above); `segments > 0` as the query is not
            // empty.
            if let Some(score) = unsafe { byte_lanes.score(subject) } {
                return Some(score);
            }
        }
        self.score_words_checked(subject)
    }

    /// As [`StripedProfile::score`], with 16-bit lanes only (the second pass, here on its
    /// own for measuring and testing it).
    ///
    /// # Panics
    /// As [`StripedProfile::score`].
    pub fn score_16(&mut self, subject: &[u8]) -> Option<i32> {
        if self.segments == 0 || subject.is_empty() {
            return Some(0);
        }
        self.check_codes(subject);
        self.score_words_checked(subject)
    }

    fn check_codes(&self, subject: &[u8]) {
        assert!(
            subject.iter().all(|&code| (code as usize) < self.codes),
            "subject codes must index the matrix's {} symbols",
            self.codes
        );
    }

    /// The 16-bit pass on a non-empty query and subject whose codes were checked.
    fn score_words_checked(&mut self, subject: &[u8]) -> Option<i32> {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `new` checked that the CPU has AVX2; the caller checked that every
            // subject code indexes a row of the profile and that the query is not empty;
            // the working vectors hold `segments` vectors each and the profile
            // `codes * segments`.
            let best = unsafe { self.score_avx2(subject) };
            (best <= MAX_EXACT_SCORE).then_some(best)
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
    unsafe fn score_avx2(&mut self, subject: &[u8]) -> i32 {
        use std::arch::x86_64::*;
        let lanes = kernel::Signed16::new();
        kernel::best_cell(
            &lanes,
            kernel::Columns {
                profile: self.profile.as_ptr().cast(),
                segments: self.segments,
                h_current: self.h_current.as_mut_ptr().cast(),
                h_previous: self.h_previous.as_mut_ptr().cast(),
                e_next: self.e_next.as_mut_ptr().cast(),
                first_gap: _mm256_set1_epi16(self.first_gap),
                extend: _mm256_set1_epi16(self.extend),
            },
            subject,
        )
    }
}

/// Visits every cell of a striped query profile: `set(code, segment, lane, letter)` for
/// each matrix code, segment of the query and vector lane, `letter` being the query
/// residue that Farrar's layout puts there (`lane * segments + segment`), `None` past the
/// query's end.
fn for_each_striped_cell(
    query: &[u8],
    codes: usize,
    segments: usize,
    lanes: usize,
    mut set: impl FnMut(usize, usize, usize, Option<u8>),
) {
    for code in 0..codes {
        for segment in 0..segments {
            for lane in 0..lanes {
                set(
                    code,
                    segment,
                    lane,
                    query.get(lane * segments + segment).copied(),
                );
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel;

#[cfg(test)]
mod tests;
