//! Traceback for reported hits: where the best local alignment lies and what it holds.
//!
//! Only hits that will be printed come here, so this is scalar code written for
//! correctness and bounded memory rather than speed:
//!
//! 1. a forward pass finds the best score and the first cell where it ends (subject-
//!    major: the leftmost end in the subject, then the topmost in the query);
//! 2. a pass over the reversed prefixes, anchored at that end cell, finds where an
//!    alignment of that score starts;
//! 3. a global (end-to-end) alignment of the two segments with traceback recovers the
//!    path. Its direction bytes take one byte per cell; when the segments are too large
//!    for the memory budget, only every `B`-th row's scores are kept in a first pass and
//!    each band of `B` rows is recomputed just before it is traced back (checkpointing),
//!    so memory stays bounded even for titin against itself.
//!
//! Ties prefer a substitution over a gap in the subject over a gap in the query, and
//! opening a gap over extending one.

use crate::{Isa, Scoring};

const MINUS_INFINITY: i32 = i32::MIN / 4;

/// Direction-byte flags.
const FROM_E: u8 = 1;
const FROM_F: u8 = 2;
const E_EXTENDS: u8 = 4;
const F_EXTENDS: u8 = 8;

/// Default most direction bytes kept at once (32 MiB).
pub const DEFAULT_TRACE_BUDGET: usize = 1 << 25;

/// One column of an alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlignOp {
    /// A query residue against a subject residue.
    Pair,
    /// A query residue against a gap (the subject has a deletion).
    QueryGap,
    /// A subject residue against a gap in the query.
    SubjectGap,
}

/// A best local alignment of a query and a subject, with the counts BLAST's tabular
/// output reports. Coordinates are 0-based, ends exclusive; all zero when the score is 0.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Alignment {
    /// The local alignment score.
    pub score: i32,
    /// First aligned query residue.
    pub query_start: usize,
    /// One past the last aligned query residue.
    pub query_end: usize,
    /// First aligned subject residue.
    pub subject_start: usize,
    /// One past the last aligned subject residue.
    pub subject_end: usize,
    /// Columns: pairs plus gap columns.
    pub length: usize,
    /// Pairs of the same symbol.
    pub identities: usize,
    /// Pairs of different symbols.
    pub mismatches: usize,
    /// Runs of consecutive gap columns of one kind.
    pub gap_opens: usize,
    /// Gap columns.
    pub gaps: usize,
    /// The columns, query start to end.
    pub ops: Vec<AlignOp>,
}

impl Alignment {
    /// Percent identity over the alignment length (BLAST's `pident`).
    pub fn percent_identity(&self) -> f64 {
        if self.length == 0 {
            0.0
        } else {
            100.0 * self.identities as f64 / self.length as f64
        }
    }
}

/// The best local alignment of the encoded `query` and `subject`, its end and start
/// found with the best SIMD path of this CPU.
pub fn align(scoring: &Scoring, query: &[u8], subject: &[u8]) -> Alignment {
    align_on(Isa::detect(), scoring, query, subject)
}

/// [`align`] with the SIMD path `isa` (the scalar reference for [`Isa::Scalar`]; AVX2
/// for both others).
pub fn align_on(isa: Isa, scoring: &Scoring, query: &[u8], subject: &[u8]) -> Alignment {
    align_with_budget(isa, scoring, query, subject, DEFAULT_TRACE_BUDGET)
}

/// [`align_on`] keeping at most `budget` direction bytes at once (at least one row).
pub fn align_with_budget(
    isa: Isa,
    scoring: &Scoring,
    query: &[u8],
    subject: &[u8],
    budget: usize,
) -> Alignment {
    let simd = isa != Isa::Scalar;
    let (score, query_last, subject_last) = simd
        .then(|| crate::striped::best_end(scoring, query, subject))
        .flatten()
        .unwrap_or_else(|| crate::scalar::best_end(scoring, query, subject));
    if score <= 0 {
        return Alignment::default();
    }
    let (query_prefix, subject_prefix) = (&query[..=query_last], &subject[..=subject_last]);
    let (query_first, subject_first) = simd
        .then(|| striped_start(scoring, query_prefix, subject_prefix, score))
        .flatten()
        .unwrap_or_else(|| anchored_start(scoring, query_prefix, subject_prefix, score));
    let q = &query[query_first..=query_last];
    let s = &subject[subject_first..=subject_last];
    let ops = global_path(scoring, q, s, budget);
    let mut alignment = Alignment {
        score,
        query_start: query_first,
        query_end: query_last + 1,
        subject_start: subject_first,
        subject_end: subject_last + 1,
        ..Alignment::default()
    };
    let (mut i, mut j) = (0, 0);
    let mut previous = AlignOp::Pair;
    for &op in &ops {
        match op {
            AlignOp::Pair => {
                if q[i] == s[j] {
                    alignment.identities += 1;
                } else {
                    alignment.mismatches += 1;
                }
                i += 1;
                j += 1;
            }
            AlignOp::QueryGap | AlignOp::SubjectGap => {
                alignment.gaps += 1;
                if op != previous {
                    alignment.gap_opens += 1;
                }
                if op == AlignOp::QueryGap {
                    i += 1;
                } else {
                    j += 1;
                }
            }
        }
        previous = op;
    }
    alignment.length = ops.len();
    alignment.ops = ops;
    alignment
}

/// Where an alignment scoring `score` and ending at the last cell of `query` x
/// `subject` starts: a pass over the reversed sequences that must start at their first
/// cell, stopping at the first (query-major) cell reaching `score`.
fn anchored_start(scoring: &Scoring, query: &[u8], subject: &[u8], score: i32) -> (usize, usize) {
    let matrix = scoring.matrix();
    let (open, extend) = (scoring.first_gap_cost(), scoring.gap_extend());
    let n = subject.len();
    let boundary = |k: usize| -(scoring.gap_open() + (k as i32 + 1) * extend);
    let mut h_up: Vec<i32> = (0..n).map(boundary).collect();
    let mut f_up = vec![MINUS_INFINITY; n];
    for (i, &q) in query.iter().rev().enumerate() {
        let row = matrix.row(q);
        let mut diag = if i == 0 { 0 } else { boundary(i - 1) };
        let mut left = boundary(i);
        let mut e = MINUS_INFINITY;
        for (j, &d) in subject.iter().rev().enumerate() {
            e = (e - extend).max(left - open);
            let f = (f_up[j] - extend).max(h_up[j] - open);
            let h = (diag + row[d as usize]).max(e).max(f);
            f_up[j] = f;
            diag = h_up[j];
            h_up[j] = h;
            left = h;
            if h >= score {
                return (query.len() - 1 - i, n - 1 - j);
            }
        }
    }
    (0, 0)
}

/// [`anchored_start`] with the striped kernel, `None` where it does not apply (then the
/// scalar pass runs). Every local alignment of `query` x `subject` scoring `score` ends at
/// their last cell, which is the first cell of the whole problem reaching the best score
/// (an alignment ending elsewhere in these prefixes would end at an earlier cell). So the
/// best local alignments of the reversed sequences are exactly the anchored ones, and
/// their first cell in query-major order is the start: the kernel's subject-major order
/// with the roles swapped, which a symmetric matrix allows.
fn striped_start(
    scoring: &Scoring,
    query: &[u8],
    subject: &[u8],
    score: i32,
) -> Option<(usize, usize)> {
    if !scoring.matrix().is_symmetric() {
        return None;
    }
    let reversed = |codes: &[u8]| codes.iter().rev().copied().collect::<Vec<u8>>();
    let (found, subject_back, query_back) =
        crate::striped::best_end(scoring, &reversed(subject), &reversed(query))?;
    (found == score).then(|| {
        (
            query.len() - 1 - query_back,
            subject.len() - 1 - subject_back,
        )
    })
}

/// The row above row 0 (`H` and `F` of row -1) of a global alignment.
fn top_boundary(scoring: &Scoring, columns: usize, h: &mut Vec<i32>, f: &mut Vec<i32>) {
    h.clear();
    h.extend((0..columns).map(|j| -(scoring.gap_open() + (j as i32 + 1) * scoring.gap_extend())));
    f.clear();
    f.resize(columns, MINUS_INFINITY);
}

/// The global alignment problem of two segments.
struct Grid<'a> {
    scoring: &'a Scoring,
    q: &'a [u8],
    s: &'a [u8],
}

/// A band of rows to compute: `H` and `F` of the row above on entry (left holding the
/// band's last row), and where to write one direction byte per cell, if anywhere.
struct Band<'a> {
    first: usize,
    count: usize,
    h_up: &'a mut [i32],
    f_up: &'a mut [i32],
    dirs: Option<&'a mut [u8]>,
}

/// Computes rows `band.first..band.first + band.count` of the global alignment.
fn fill_rows(grid: &Grid<'_>, band: Band<'_>) {
    let Grid { scoring, q, s } = *grid;
    let Band {
        first,
        count,
        h_up,
        f_up,
        mut dirs,
    } = band;
    let matrix = scoring.matrix();
    let (open, extend) = (scoring.first_gap_cost(), scoring.gap_extend());
    let left_boundary = |i: usize| -(scoring.gap_open() + (i as i32 + 1) * extend);
    for i in first..first + count {
        let row = matrix.row(q[i]);
        let mut diag = if i == 0 { 0 } else { left_boundary(i - 1) };
        let mut left = left_boundary(i);
        let mut e = MINUS_INFINITY;
        for (j, &d) in s.iter().enumerate() {
            let (e_open, e_ext) = (left - open, e - extend);
            let (f_open, f_ext) = (h_up[j] - open, f_up[j] - extend);
            e = e_open.max(e_ext);
            let f = f_open.max(f_ext);
            let pair = diag + row[d as usize];
            let mut dir = 0;
            let h = if pair >= e && pair >= f {
                pair
            } else if e >= f {
                dir |= FROM_E;
                e
            } else {
                dir |= FROM_F;
                f
            };
            if e_ext > e_open {
                dir |= E_EXTENDS;
            }
            if f_ext > f_open {
                dir |= F_EXTENDS;
            }
            if let Some(dirs) = dirs.as_deref_mut() {
                dirs[(i - first) * s.len() + j] = dir;
            }
            f_up[j] = f;
            diag = h_up[j];
            h_up[j] = h;
            left = h;
        }
    }
}

/// Which matrix a traceback is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    H,
    E,
    F,
}

/// The path of the best global alignment of `q` and `s` (both non-empty), recomputing
/// bands of rows so that at most about `budget` direction bytes exist at once.
fn global_path(scoring: &Scoring, q: &[u8], s: &[u8], budget: usize) -> Vec<AlignOp> {
    let grid = Grid { scoring, q, s };
    let columns = s.len();
    let band = (budget / columns.max(1)).clamp(1, q.len());
    let bands = q.len().div_ceil(band);
    // Checkpoints: H and F of the row above each band.
    let (mut h_up, mut f_up) = (Vec::new(), Vec::new());
    top_boundary(scoring, columns, &mut h_up, &mut f_up);
    let mut checkpoints = Vec::with_capacity(bands);
    for b in 0..bands {
        checkpoints.push((h_up.clone(), f_up.clone()));
        if b + 1 < bands {
            let rows = Band {
                first: b * band,
                count: band,
                h_up: &mut h_up,
                f_up: &mut f_up,
                dirs: None,
            };
            fill_rows(&grid, rows);
        }
    }
    let mut ops = Vec::with_capacity(q.len() + s.len());
    let mut dirs = vec![0u8; band * columns];
    let (mut i, mut j) = (q.len() as isize - 1, columns as isize - 1);
    let mut state = State::H;
    for b in (0..bands).rev() {
        let first = b * band;
        let count = band.min(q.len() - first);
        let (mut h, mut f) = checkpoints.pop().unwrap_or_default();
        let rows = Band {
            first,
            count,
            h_up: &mut h,
            f_up: &mut f,
            dirs: Some(&mut dirs),
        };
        fill_rows(&grid, rows);
        while i >= first as isize {
            if j < 0 {
                ops.push(AlignOp::QueryGap);
                i -= 1;
                continue;
            }
            let dir = dirs[(i as usize - first) * columns + j as usize];
            match state {
                State::H => {
                    if dir & FROM_E != 0 {
                        state = State::E;
                    } else if dir & FROM_F != 0 {
                        state = State::F;
                    } else {
                        ops.push(AlignOp::Pair);
                        i -= 1;
                        j -= 1;
                    }
                }
                State::E => {
                    ops.push(AlignOp::SubjectGap);
                    j -= 1;
                    if dir & E_EXTENDS == 0 {
                        state = State::H;
                    }
                }
                State::F => {
                    ops.push(AlignOp::QueryGap);
                    i -= 1;
                    if dir & F_EXTENDS == 0 {
                        state = State::H;
                    }
                }
            }
        }
    }
    while j >= 0 {
        ops.push(AlignOp::SubjectGap);
        j -= 1;
    }
    ops.reverse();
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{scalar, ScoreMatrix};

    fn blosum62() -> Scoring {
        Scoring::default()
    }

    fn aligned(q: &[u8], s: &[u8], budget: usize) -> Alignment {
        let sc = blosum62();
        let m = sc.matrix();
        align_with_budget(Isa::detect(), &sc, &m.encode(q), &m.encode(s), budget)
    }

    /// The score of an alignment's columns, recomputed from its path.
    fn path_score(sc: &Scoring, q: &[u8], s: &[u8], a: &Alignment) -> i32 {
        let (mut i, mut j, mut total) = (a.query_start, a.subject_start, 0);
        let mut previous = AlignOp::Pair;
        for &op in &a.ops {
            match op {
                AlignOp::Pair => {
                    total += sc.matrix().score(q[i], s[j]);
                    i += 1;
                    j += 1;
                }
                gap => {
                    total -= sc.gap_extend() + if gap != previous { sc.gap_open() } else { 0 };
                    if gap == AlignOp::QueryGap {
                        i += 1
                    } else {
                        j += 1
                    }
                }
            }
            previous = op;
        }
        assert_eq!((i, j), (a.query_end, a.subject_end));
        total
    }

    #[test]
    fn hand_checked_alignment_with_one_gap() {
        // Query  HEAGAWGHEE--PAW... a classic: here WWWWWW vs WWW-A-WWW.
        let a = aligned(b"KKWWWWWWKK", b"PPWWWAWWWPP", usize::MAX);
        assert_eq!(a.score, 54);
        assert_eq!((a.query_start, a.query_end), (2, 8));
        assert_eq!((a.subject_start, a.subject_end), (2, 9));
        assert_eq!((a.length, a.identities, a.mismatches), (7, 6, 0));
        assert_eq!((a.gap_opens, a.gaps), (1, 1));
        assert!((a.percent_identity() - 600.0 / 7.0).abs() < 1e-9);
    }

    #[test]
    fn mismatches_and_identity() {
        // MKV vs MRV: M 5, K/R 2, V 4 = 11.
        let a = aligned(b"MKV", b"MRV", usize::MAX);
        assert_eq!(
            (a.score, a.length, a.identities, a.mismatches),
            (11, 3, 2, 1)
        );
        assert_eq!(aligned(b"", b"MRV", usize::MAX), Alignment::default());
        assert_eq!(aligned(b"PPP", b"WWW", usize::MAX).score, 0);
    }

    #[test]
    fn banded_traceback_equals_full_traceback() {
        let sc = blosum62();
        let m = sc.matrix();
        let q = m.encode(b"MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQFEVVHSLAKWKRQTLGQHDFSAGEGLYTHMKALRPDEDRLSPLHSVYVDQWDWERVMGDGERQFSTLKSTVEAIWAGIKATEAAVSEEFGLAPFLPDQIHFVHSQELLSRYPDLDAKGRERAIAKDLGAVFLVGIGGKLSDGHRHDVRAPDYDDWUAKAK");
        let s = m.encode(b"MKTAYIAKQRQISFVKSHFSRQDILDLWIYHTQGYFPDWQNYTPGPGVRYPLTFGWCYKLVPVEPDKVEEANKGENTSLLHPVSLHGMDDPEREVLEWRFDSRLAFHHVARELHPEYFKNCQISFVKSHFSRQLEERLGLIEVQ");
        let full = align_with_budget(Isa::detect(), &sc, &q, &s, usize::MAX);
        for budget in [1, 7, s.len(), 3 * s.len() + 5] {
            let banded = align_with_budget(Isa::detect(), &sc, &q, &s, budget);
            assert_eq!(banded, full, "budget {budget}");
        }
        assert_eq!(full.score, scalar::score(&sc, &q, &s));
        assert_eq!(path_score(&sc, &q, &s, &full), full.score);
    }

    proptest::proptest! {
        /// The striped end and start searches give the alignment the scalar reference
        /// gives, ties included (sequences built from a few repeated pieces).
        #[test]
        fn simd_and_scalar_paths_align_alike(
            pieces in proptest::collection::vec(proptest::collection::vec(0u8..20, 1..40), 1..4),
            query_order in proptest::collection::vec(0usize..4, 1..5),
            subject_order in proptest::collection::vec(0usize..4, 1..7),
            open in 0i32..12,
            extend in 1i32..3,
        ) {
            let sc = Scoring::new(ScoreMatrix::builtin("BLOSUM62").unwrap(), open, extend).unwrap();
            let join = |order: &[usize]| -> Vec<u8> {
                order.iter().flat_map(|&k| pieces[k % pieces.len()].clone()).collect()
            };
            let (q, s) = (join(&query_order), join(&subject_order));
            let reference = align_on(Isa::Scalar, &sc, &q, &s);
            proptest::prop_assert_eq!(align_on(Isa::detect(), &sc, &q, &s), reference);
        }
    }

    #[test]
    fn paths_score_what_the_reference_scores() {
        let sc = Scoring::new(ScoreMatrix::builtin("PAM30").unwrap(), 9, 1).unwrap();
        let m = sc.matrix();
        let mut state = 7u64;
        let mut random = |n: usize| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    b"ACDEFGHIKLMNPQRSTVWY"[(state >> 33) as usize % 20]
                })
                .collect()
        };
        for round in 0..40 {
            let q = m.encode(&random(1 + round * 3));
            let mut s = m.encode(&random(5 + round));
            s.extend_from_slice(&q[q.len() / 3..]);
            let a = align_with_budget(Isa::detect(), &sc, &q, &s, 50);
            assert_eq!(a.score, scalar::score(&sc, &q, &s));
            if a.score > 0 {
                assert_eq!(path_score(&sc, &q, &s, &a), a.score, "round {round}");
            }
        }
    }
}
