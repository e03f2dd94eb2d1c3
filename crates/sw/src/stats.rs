//! Karlin-Altschul statistics: bit scores and E-values from BLAST's published tables.
//!
//! The gapped parameters (lambda, K, H, alpha, beta) for each built-in matrix and gap
//! cost pair are those of NCBI BLAST's `blast_stat.c` (Altschul et al., Nucleic Acids
//! Res. 29:351, 2001); the DNA ones are its `blastn_values_*` tables. E-values use BLAST's
//! length adjustment (`BLAST_ComputeLengthAdjustment`): the effective search space is
//! `(m - l) * (n - N * l)` for a query of length `m` against `N` sequences of `n`
//! residues in total, and `E = K * space * exp(-lambda * S)`. Finite-size (Spouge)
//! corrections and composition-based statistics of recent BLAST releases are not
//! applied, so E-values agree with BLAST run with `-comp_based_stats 0` only to within
//! those corrections. Combinations BLAST has no table row for get no statistics
//! ([`KarlinParams::lookup`] returns `None`); callers must say so.

/// Gapped Karlin-Altschul parameters for one scoring scheme.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KarlinParams {
    /// Scale of the score distribution.
    pub lambda: f64,
    /// Search-space constant.
    pub k: f64,
    /// Relative entropy per aligned pair (nats).
    pub h: f64,
    /// Slope of the expected alignment length in the score (length adjustment).
    pub alpha: f64,
    /// Intercept of the expected alignment length (length adjustment).
    pub beta: f64,
    /// Whether odd scores are rounded down to even first (BLAST's 2/-3, 2/-5, 2/-7 DNA
    /// tables only hold for even scores).
    pub even_scores_only: bool,
}

/// (gap open, gap extend, lambda, K, H, alpha, beta) rows of `blast_stat.c`.
type Row = (i32, i32, f64, f64, f64, f64, f64);

const BLOSUM45: &[Row] = &[
    (13, 3, 0.207, 0.049, 0.14, 1.5, -22.0),
    (12, 3, 0.199, 0.039, 0.11, 1.8, -34.0),
    (11, 3, 0.190, 0.031, 0.095, 2.0, -38.0),
    (10, 3, 0.179, 0.023, 0.075, 2.4, -51.0),
    (16, 2, 0.210, 0.051, 0.14, 1.5, -24.0),
    (15, 2, 0.203, 0.041, 0.12, 1.7, -31.0),
    (14, 2, 0.195, 0.032, 0.10, 1.9, -36.0),
    (13, 2, 0.185, 0.024, 0.084, 2.2, -45.0),
    (12, 2, 0.171, 0.016, 0.061, 2.8, -65.0),
    (19, 1, 0.205, 0.040, 0.11, 1.9, -43.0),
    (18, 1, 0.198, 0.032, 0.10, 2.0, -43.0),
    (17, 1, 0.189, 0.024, 0.079, 2.4, -57.0),
    (16, 1, 0.176, 0.016, 0.063, 2.8, -67.0),
];

const BLOSUM50: &[Row] = &[
    (13, 3, 0.212, 0.063, 0.19, 1.1, -16.0),
    (12, 3, 0.206, 0.055, 0.17, 1.2, -18.0),
    (11, 3, 0.197, 0.042, 0.14, 1.4, -25.0),
    (10, 3, 0.186, 0.031, 0.11, 1.7, -34.0),
    (9, 3, 0.172, 0.022, 0.082, 2.1, -48.0),
    (16, 2, 0.215, 0.066, 0.20, 1.05, -15.0),
    (15, 2, 0.210, 0.058, 0.17, 1.2, -20.0),
    (14, 2, 0.202, 0.045, 0.14, 1.4, -27.0),
    (13, 2, 0.193, 0.035, 0.12, 1.6, -32.0),
    (12, 2, 0.181, 0.025, 0.095, 1.9, -41.0),
    (19, 1, 0.212, 0.057, 0.18, 1.2, -21.0),
    (18, 1, 0.207, 0.050, 0.15, 1.4, -28.0),
    (17, 1, 0.198, 0.037, 0.12, 1.6, -33.0),
    (16, 1, 0.186, 0.025, 0.10, 1.9, -42.0),
    (15, 1, 0.171, 0.015, 0.063, 2.7, -76.0),
];

const BLOSUM62: &[Row] = &[
    (11, 2, 0.297, 0.082, 0.27, 1.1, -10.0),
    (10, 2, 0.291, 0.075, 0.23, 1.3, -15.0),
    (9, 2, 0.279, 0.058, 0.19, 1.5, -19.0),
    (8, 2, 0.264, 0.045, 0.15, 1.8, -26.0),
    (7, 2, 0.239, 0.027, 0.10, 2.5, -46.0),
    (6, 2, 0.201, 0.012, 0.061, 3.3, -58.0),
    (13, 1, 0.292, 0.071, 0.23, 1.2, -11.0),
    (12, 1, 0.283, 0.059, 0.19, 1.5, -19.0),
    (11, 1, 0.267, 0.041, 0.14, 1.9, -30.0),
    (10, 1, 0.243, 0.024, 0.10, 2.5, -44.0),
    (9, 1, 0.206, 0.010, 0.052, 4.0, -87.0),
];

const BLOSUM80: &[Row] = &[
    (25, 2, 0.342, 0.17, 0.66, 0.52, -1.6),
    (13, 2, 0.336, 0.15, 0.57, 0.59, -3.0),
    (9, 2, 0.319, 0.11, 0.42, 0.76, -6.0),
    (8, 2, 0.308, 0.090, 0.35, 0.89, -9.0),
    (7, 2, 0.293, 0.070, 0.27, 1.1, -14.0),
    (6, 2, 0.268, 0.045, 0.19, 1.4, -19.0),
    (11, 1, 0.314, 0.095, 0.35, 0.90, -9.0),
    (10, 1, 0.299, 0.071, 0.27, 1.1, -14.0),
    (9, 1, 0.279, 0.048, 0.20, 1.4, -19.0),
];

const BLOSUM90: &[Row] = &[
    (9, 2, 0.310, 0.12, 0.46, 0.67, -6.0),
    (8, 2, 0.300, 0.099, 0.39, 0.76, -7.0),
    (7, 2, 0.283, 0.072, 0.30, 0.93, -11.0),
    (6, 2, 0.259, 0.048, 0.22, 1.2, -16.0),
    (11, 1, 0.302, 0.093, 0.39, 0.78, -8.0),
    (10, 1, 0.290, 0.075, 0.28, 1.04, -15.0),
    (9, 1, 0.265, 0.044, 0.20, 1.3, -19.0),
];

const PAM30: &[Row] = &[
    (7, 2, 0.305, 0.15, 0.87, 0.35, -3.0),
    (6, 2, 0.287, 0.11, 0.68, 0.42, -4.0),
    (5, 2, 0.264, 0.079, 0.45, 0.59, -7.0),
    (10, 1, 0.309, 0.15, 0.88, 0.35, -3.0),
    (9, 1, 0.294, 0.11, 0.61, 0.48, -6.0),
    (8, 1, 0.270, 0.072, 0.40, 0.68, -10.0),
];

const PAM70: &[Row] = &[
    (8, 2, 0.301, 0.12, 0.54, 0.56, -5.0),
    (7, 2, 0.286, 0.093, 0.43, 0.67, -7.0),
    (6, 2, 0.264, 0.064, 0.29, 0.90, -12.0),
    (11, 1, 0.305, 0.12, 0.52, 0.59, -6.0),
    (10, 1, 0.291, 0.091, 0.41, 0.71, -9.0),
    (9, 1, 0.270, 0.060, 0.28, 0.97, -14.0),
];

const PAM250: &[Row] = &[
    (15, 3, 0.205, 0.049, 0.13, 1.6, -23.0),
    (14, 3, 0.200, 0.043, 0.12, 1.7, -26.0),
    (13, 3, 0.194, 0.036, 0.10, 1.9, -31.0),
    (12, 3, 0.186, 0.029, 0.085, 2.2, -41.0),
    (11, 3, 0.174, 0.020, 0.070, 2.5, -48.0),
    (17, 2, 0.204, 0.047, 0.12, 1.7, -28.0),
    (16, 2, 0.198, 0.038, 0.11, 1.8, -29.0),
    (15, 2, 0.191, 0.031, 0.087, 2.2, -44.0),
    (14, 2, 0.182, 0.024, 0.073, 2.5, -53.0),
    (13, 2, 0.171, 0.017, 0.059, 2.9, -64.0),
    (21, 1, 0.205, 0.045, 0.11, 1.8, -34.0),
    (20, 1, 0.199, 0.037, 0.10, 1.9, -35.0),
    (19, 1, 0.192, 0.029, 0.083, 2.3, -52.0),
    (18, 1, 0.183, 0.021, 0.070, 2.6, -60.0),
    (17, 1, 0.171, 0.014, 0.052, 3.3, -86.0),
];

/// blastn tables: (match, mismatch, rows); gap costs (0, 0) rows (BLAST's greedy
/// extension) are left out.
const DNA: &[(i32, i32, &[Row])] = &[
    (1, -5, &[(3, 3, 1.39, 0.747, 1.38, 1.00, 0.0)]),
    (
        1,
        -4,
        &[
            (1, 2, 1.36, 0.67, 1.2, 1.1, 0.0),
            (2, 1, 1.35, 0.61, 1.1, 1.2, -1.0),
            (1, 1, 1.22, 0.35, 0.72, 1.7, -3.0),
        ],
    ),
    (
        2,
        -7,
        &[
            (2, 4, 0.68, 0.67, 1.2, 0.55, 0.0),
            (4, 2, 0.675, 0.62, 1.1, 0.6, -1.0),
            (2, 2, 0.61, 0.35, 0.72, 1.7, -3.0),
        ],
    ),
    (
        1,
        -3,
        &[
            (2, 2, 1.37, 0.70, 1.2, 1.1, 0.0),
            (1, 2, 1.35, 0.64, 1.1, 1.2, -1.0),
            (2, 1, 1.34, 0.60, 1.1, 1.2, -1.0),
            (1, 1, 1.21, 0.34, 0.71, 1.7, -2.0),
        ],
    ),
    (
        2,
        -5,
        &[
            (2, 4, 0.67, 0.59, 1.1, 0.6, -1.0),
            (4, 2, 0.67, 0.61, 1.0, 0.65, -2.0),
            (2, 2, 0.56, 0.32, 0.59, 0.95, -4.0),
        ],
    ),
    (
        1,
        -2,
        &[
            (2, 2, 1.33, 0.62, 1.1, 1.2, 0.0),
            (1, 2, 1.30, 0.52, 0.93, 1.4, -2.0),
            (3, 1, 1.32, 0.57, 1.0, 1.3, -1.0),
            (2, 1, 1.29, 0.49, 0.92, 1.4, -1.0),
            (1, 1, 1.14, 0.26, 0.52, 2.2, -5.0),
        ],
    ),
    (
        2,
        -3,
        &[
            (4, 4, 0.63, 0.42, 0.84, 0.75, -2.0),
            (2, 4, 0.615, 0.37, 0.72, 0.85, -3.0),
            (3, 3, 0.615, 0.37, 0.68, 0.9, -3.0),
            (6, 2, 0.63, 0.42, 0.84, 0.75, -2.0),
            (5, 2, 0.625, 0.41, 0.78, 0.8, -2.0),
            (4, 2, 0.61, 0.35, 0.68, 0.9, -3.0),
            (2, 2, 0.515, 0.14, 0.33, 1.55, -9.0),
        ],
    ),
    (
        3,
        -4,
        &[
            (6, 3, 0.389, 0.25, 0.56, 0.7, -5.0),
            (5, 3, 0.375, 0.21, 0.47, 0.8, -6.0),
            (4, 3, 0.351, 0.14, 0.35, 1.0, -9.0),
            (6, 2, 0.362, 0.16, 0.45, 0.8, -4.0),
            (5, 2, 0.330, 0.092, 0.28, 1.2, -13.0),
            (4, 2, 0.281, 0.046, 0.16, 1.8, -23.0),
        ],
    ),
    (
        4,
        -5,
        &[
            (6, 5, 0.28, 0.21, 0.47, 0.6, -7.0),
            (5, 5, 0.27, 0.17, 0.39, 0.7, -9.0),
            (4, 5, 0.25, 0.10, 0.31, 0.8, -10.0),
            (3, 5, 0.23, 0.065, 0.25, 0.9, -11.0),
        ],
    ),
    (
        1,
        -1,
        &[
            (3, 2, 1.09, 0.31, 0.55, 2.0, -2.0),
            (2, 2, 1.07, 0.27, 0.49, 2.2, -3.0),
            (1, 2, 1.02, 0.21, 0.36, 2.8, -6.0),
            (0, 2, 0.80, 0.064, 0.17, 4.8, -16.0),
            (4, 1, 1.08, 0.28, 0.54, 2.0, -2.0),
            (3, 1, 1.06, 0.25, 0.46, 2.3, -4.0),
            (2, 1, 0.99, 0.17, 0.30, 3.3, -10.0),
        ],
    ),
    (3, -2, &[(5, 5, 0.208, 0.030, 0.072, 2.9, -47.0)]),
    (
        5,
        -4,
        &[
            (10, 6, 0.163, 0.068, 0.16, 1.0, -19.0),
            (8, 6, 0.146, 0.039, 0.11, 1.3, -29.0),
        ],
    ),
];

fn from_row(row: &Row, even_scores_only: bool) -> KarlinParams {
    let &(_, _, lambda, k, h, alpha, beta) = row;
    KarlinParams {
        lambda,
        k,
        h,
        alpha,
        beta,
        even_scores_only,
    }
}

/// BLAST's default gap costs (open, extend) for a built-in matrix: the combination its
/// tables mark best (11/1 for BLOSUM62, 9/1 for PAM30, 14/2 for BLOSUM45 and PAM250...).
pub fn default_gap_costs(matrix: &str) -> Option<(i32, i32)> {
    Some(match matrix.to_ascii_uppercase().as_str() {
        "BLOSUM45" => (14, 2),
        "BLOSUM50" => (13, 2),
        "BLOSUM62" => (11, 1),
        "BLOSUM80" | "BLOSUM90" | "PAM70" => (10, 1),
        "PAM30" => (9, 1),
        "PAM250" => (14, 2),
        _ => return None,
    })
}

impl KarlinParams {
    /// BLAST's parameters for a built-in protein matrix (by name, case-insensitive) and
    /// gap costs, or `None` when BLAST has no table row for the combination.
    pub fn lookup(matrix: &str, gap_open: i32, gap_extend: i32) -> Option<KarlinParams> {
        let table = match matrix.to_ascii_uppercase().as_str() {
            "BLOSUM45" => BLOSUM45,
            "BLOSUM50" => BLOSUM50,
            "BLOSUM62" => BLOSUM62,
            "BLOSUM80" => BLOSUM80,
            "BLOSUM90" => BLOSUM90,
            "PAM30" => PAM30,
            "PAM70" => PAM70,
            "PAM250" => PAM250,
            _ => return None,
        };
        table
            .iter()
            .find(|r| r.0 == gap_open && r.1 == gap_extend)
            .map(|r| from_row(r, false))
    }

    /// BLAST's (blastn) parameters for DNA match/mismatch scores and gap costs.
    pub fn lookup_dna(
        match_score: i32,
        mismatch: i32,
        gap_open: i32,
        gap_extend: i32,
    ) -> Option<KarlinParams> {
        let &(_, _, rows) = DNA
            .iter()
            .find(|(m, x, _)| *m == match_score && *x == mismatch)?;
        let even_only = match_score == 2 && matches!(mismatch, -3 | -5 | -7);
        rows.iter()
            .find(|r| r.0 == gap_open && r.1 == gap_extend)
            .map(|r| from_row(r, even_only))
    }

    fn effective_score(&self, score: i32) -> f64 {
        if self.even_scores_only && score % 2 != 0 {
            (score - 1) as f64
        } else {
            score as f64
        }
    }

    /// The bit score of raw `score`: `(lambda * S - ln K) / ln 2` (with the raw score
    /// even where E-values round it down to even, as blastn prints them).
    pub fn bit_score(&self, score: i32) -> f64 {
        (self.lambda * score as f64 - self.k.ln()) / std::f64::consts::LN_2
    }

    /// BLAST's length adjustment for a query of `query_len` against a database of
    /// `db_residues` residues in `db_sequences` sequences.
    pub fn length_adjustment(&self, query_len: u64, db_residues: u64, db_sequences: u64) -> u64 {
        let m = query_len as f64;
        let n = db_residues as f64;
        let big_n = db_sequences as f64;
        let log_k = self.k.ln();
        let alpha_d_lambda = self.alpha / self.lambda;
        let (a, mb, c) = (big_n, m * big_n + n, n * m - m.max(n) / self.k);
        if c < 0.0 {
            return 0;
        }
        let mut ell_max = 2.0 * c / (mb + (mb * mb - 4.0 * a * c).sqrt());
        let mut ell_min = 0.0f64;
        let mut ell_next = 0.0f64;
        let mut converged = false;
        for i in 1..=20 {
            let ell = ell_next;
            let space = (m - ell) * (n - big_n * ell);
            let ell_bar = alpha_d_lambda * (log_k + space.ln()) + self.beta;
            if ell_bar >= ell {
                ell_min = ell;
                if ell_bar - ell_min <= 1.0 {
                    converged = true;
                    break;
                }
                if ell_min == ell_max {
                    break;
                }
            } else {
                ell_max = ell;
            }
            ell_next = if ell_min <= ell_bar && ell_bar <= ell_max {
                ell_bar
            } else if i == 1 {
                ell_max
            } else {
                (ell_min + ell_max) / 2.0
            };
        }
        let mut adjustment = ell_min.floor();
        if converged {
            let ceiling = ell_min.ceil();
            if ceiling <= ell_max {
                let space = (m - ceiling) * (n - big_n * ceiling);
                if alpha_d_lambda * (log_k + space.ln()) + self.beta >= ceiling {
                    adjustment = ceiling;
                }
            }
        }
        adjustment.max(0.0) as u64
    }

    /// The effective search space of a query against a database (at least 1).
    pub fn search_space(&self, query_len: u64, db_residues: u64, db_sequences: u64) -> f64 {
        let ell = self.length_adjustment(query_len, db_residues, db_sequences);
        let m = query_len.saturating_sub(ell).max(1) as f64;
        let n = db_residues
            .saturating_sub(db_sequences.saturating_mul(ell))
            .max(1) as f64;
        m * n
    }

    /// Expected number of chance hits scoring at least `score` in `search_space`.
    pub fn evalue(&self, score: i32, search_space: f64) -> f64 {
        self.k * search_space * (-self.lambda * self.effective_score(score)).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blosum62_default_row() {
        let p = KarlinParams::lookup("blosum62", 11, 1).unwrap();
        assert_eq!((p.lambda, p.k), (0.267, 0.041));
        assert!(KarlinParams::lookup("BLOSUM62", 5, 5).is_none());
        assert!(KarlinParams::lookup("mine.txt", 11, 1).is_none());
        assert!(KarlinParams::lookup_dna(2, -3, 5, 2).is_some());
        assert!(KarlinParams::lookup_dna(2, -3, 9, 9).is_none());
    }

    #[test]
    fn default_gaps_have_tables() {
        for name in crate::ScoreMatrix::builtin_names() {
            let (open, extend) = default_gap_costs(name).unwrap();
            assert!(KarlinParams::lookup(name, open, extend).is_some(), "{name}");
        }
    }

    #[test]
    fn bit_scores_as_blast() {
        let p = KarlinParams::lookup("BLOSUM62", 11, 1).unwrap();
        // 100 raw -> (0.267 * 100 - ln 0.041) / ln 2 = 43.13 bits.
        assert!(
            (p.bit_score(100) - 43.1282).abs() < 1e-3,
            "{}",
            p.bit_score(100)
        );
        // blastn 2.12 prints 718 bits for a 795 score and 29.2 for 31 (the raw score),
        // while scores 24 and 25 get the same E-value (rounded down to even).
        let dna = KarlinParams::lookup_dna(2, -3, 5, 2).unwrap();
        assert_eq!(dna.bit_score(795) as i64, 718);
        assert!((dna.bit_score(31) - 29.24).abs() < 0.01);
        assert_eq!(dna.evalue(25, 1e6), dna.evalue(24, 1e6));
    }

    #[test]
    fn length_adjustment_is_a_fixed_point() {
        let p = KarlinParams::lookup("BLOSUM62", 11, 1).unwrap();
        let (m, n, big_n) = (375u64, 186_700_000u64, 516_371u64);
        let ell = p.length_adjustment(m, n, big_n) as f64;
        let space = (m as f64 - ell) * (n as f64 - big_n as f64 * ell);
        let target = p.alpha / p.lambda * (p.k.ln() + space.ln()) + p.beta;
        assert!(ell <= target && target < ell + 1.0, "{ell} vs {target}");
        assert!(p.evalue(200, p.search_space(m, n, big_n)) < 1e-10);
        assert!(p.evalue(20, p.search_space(m, n, big_n)) > 1.0);
    }
}
