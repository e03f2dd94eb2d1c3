//! The scalar reference: Smith-Waterman-Gotoh local alignment score, one cell at a time.
//!
//! Every SIMD path is tested against this function. It is written for clarity, not
//! speed: full 32-bit scores, no saturation, no lane tricks.

use crate::Scoring;

/// A score far below any real one, that stays far from overflow when costs are
/// subtracted from it.
const MINUS_INFINITY: i32 = i32::MIN / 4;

/// Best local alignment score of two encoded sequences (query codes index matrix rows,
/// subject codes columns). Empty sequences score 0.
///
/// With `H` the best score of an alignment ending at query `i`, subject `j`; `E` ending
/// in a gap in the query (consuming subject residues) and `F` ending in a gap in the
/// subject:
///
/// ```text
/// E(i,j) = max(E(i,j-1) - extend, H(i,j-1) - (open + extend))
/// F(i,j) = max(F(i-1,j) - extend, H(i-1,j) - (open + extend))
/// H(i,j) = max(0, H(i-1,j-1) + s(q_i, d_j), E(i,j), F(i,j))
/// ```
pub fn score(scoring: &Scoring, query: &[u8], subject: &[u8]) -> i32 {
    best_end(scoring, query, subject).0
}

/// The best score and the first cell (subject-major: smallest subject index, then query
/// index) where an alignment with that score ends; `(0, 0, 0)` when nothing scores.
///
/// Subject-major, so that a long subject cut into overlapping fragments gives the same
/// cell: the first fragment reaching the best score holds the leftmost such end.
pub(crate) fn best_end(scoring: &Scoring, query: &[u8], subject: &[u8]) -> (i32, usize, usize) {
    let matrix = scoring.matrix();
    let open = scoring.first_gap_cost();
    let extend = scoring.gap_extend();
    // H(i-1, j) and F(i-1, j) for each subject position j.
    let mut h_up = vec![0i32; subject.len()];
    let mut f_up = vec![MINUS_INFINITY; subject.len()];
    let mut best = (0, 0, 0);
    for (i, &q) in query.iter().enumerate() {
        let row = matrix.row(q);
        let mut diag = 0; // H(i-1, j-1)
        let mut left = 0; // H(i, j-1)
        let mut e = MINUS_INFINITY;
        for (j, &d) in subject.iter().enumerate() {
            e = (e - extend).max(left - open);
            let f = (f_up[j] - extend).max(h_up[j] - open);
            let h = (diag + row[d as usize]).max(e).max(f).max(0);
            f_up[j] = f;
            diag = h_up[j];
            h_up[j] = h;
            left = h;
            if h >= best.0 && (h > best.0 || j < best.2) && h > 0 {
                best = (h, i, j);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScoreMatrix;

    fn blosum62(open: i32, extend: i32) -> Scoring {
        Scoring::new(ScoreMatrix::builtin("BLOSUM62").unwrap(), open, extend).unwrap()
    }

    fn sw(scoring: &Scoring, a: &[u8], b: &[u8]) -> i32 {
        let m = scoring.matrix();
        score(scoring, &m.encode(a), &m.encode(b))
    }

    #[test]
    fn identical_sequences_score_their_diagonal() {
        let s = blosum62(11, 1);
        // W 11 + C 9 + A 4 + Y 7.
        assert_eq!(sw(&s, b"WCAY", b"WCAY"), 31);
        assert_eq!(sw(&s, b"", b"WCAY"), 0);
        assert_eq!(sw(&s, b"WCAY", b""), 0);
        assert_eq!(sw(&s, b"W", b"W"), 11);
        assert_eq!(sw(&s, b"P", b"W"), 0, "negative scores floor at 0");
    }

    #[test]
    fn gaps_cost_open_plus_length_times_extend() {
        let s = blosum62(11, 1);
        // WWWWWW / WWW-WWW: 66 - (11 + 1) = 54 beats the best ungapped part (33).
        assert_eq!(sw(&s, b"WWWWWW", b"WWWAWWW"), 54);
        // A gap of length 2: 66 - (11 + 2) = 53.
        assert_eq!(sw(&s, b"WWWWWW", b"WWWAAWWW"), 53);
        // Cheap gaps: open 0, extend 1.
        let cheap = blosum62(0, 1);
        assert_eq!(sw(&cheap, b"WWWWWW", b"WWWAAWWW"), 64);
    }
}
