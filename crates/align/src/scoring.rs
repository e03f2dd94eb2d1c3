//! Bowtie2's scoring scheme, exactly: quality-aware mismatch penalties, N penalty, affine
//! read/reference gaps, match bonus in local mode, and the minimum-score functions.
//!
//! Scores are integers. End-to-end alignments score `<= 0` (no match bonus); local ones
//! `>= 0` with a bonus of 2 per matching base. A mismatch at a base of Phred quality
//! `q` costs `MN + floor((MX - MN) * min(q, 40) / 40)` (2 at Q0–9, 6 at Q40); a position
//! where the read or the reference holds an N (or another ambiguity letter) costs 1
//! whatever the quality; a gap of `k` bases costs `5 + 3k`.

/// Whether the whole read must align or its ends may be soft-clipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AlignMode {
    /// Every read base is aligned (bowtie2's default `--end-to-end`).
    #[default]
    EndToEnd,
    /// Ends may be soft-clipped; matches earn a bonus (`--local`).
    Local,
}

/// A function of the read length `L`: `Linear` is `a + b·L`, `Log` is `a + b·ln(L)`
/// (bowtie2's `L,a,b` and `G,a,b`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LengthFunction {
    /// `constant + coefficient · L`.
    Linear {
        /// The constant term.
        constant: f64,
        /// The coefficient of `L`.
        coefficient: f64,
    },
    /// `constant + coefficient · ln(L)`.
    Log {
        /// The constant term.
        constant: f64,
        /// The coefficient of `ln(L)`.
        coefficient: f64,
    },
}

impl LengthFunction {
    /// The value at read length `len`.
    pub fn at(&self, len: usize) -> f64 {
        let x = len.max(1) as f64;
        match *self {
            LengthFunction::Linear {
                constant,
                coefficient,
            } => constant + coefficient * x,
            LengthFunction::Log {
                constant,
                coefficient,
            } => constant + coefficient * x.ln(),
        }
    }
}

/// The scoring parameters (bowtie2's `--ma --mp --np --rdg --rfg --score-min --n-ceil
/// --gbar`). [`Scoring::end_to_end`] and [`Scoring::local`] give bowtie2's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Scoring {
    /// End-to-end or local.
    pub mode: AlignMode,
    /// Bonus for a matching base (0 end-to-end, 2 local).
    pub match_bonus: i32,
    /// Largest mismatch penalty (at quality 40 and above): MX.
    pub mismatch_max: i32,
    /// Smallest mismatch penalty (at quality 0): MN.
    pub mismatch_min: i32,
    /// Penalty of a position where the read or the reference has an N.
    pub n_penalty: i32,
    /// Gap open cost in the read (a deletion from the read's point of view) beyond
    /// the per-base cost: a gap of `k` read-gap bases costs `read_gap_open + k·read_gap_extend`.
    pub read_gap_open: i32,
    /// Per-base cost of a read gap.
    pub read_gap_extend: i32,
    /// Gap open cost in the reference (an insertion in the read).
    pub ref_gap_open: i32,
    /// Per-base cost of a reference gap.
    pub ref_gap_extend: i32,
    /// Minimum score of a valid alignment, as a function of read length.
    pub min_score: LengthFunction,
    /// Most N positions an alignment may overlap, as a function of read length.
    pub n_ceiling: LengthFunction,
    /// No gap within this many positions of either end of the read.
    pub gap_barrier: usize,
}

impl Default for Scoring {
    fn default() -> Self {
        Self::end_to_end()
    }
}

impl Scoring {
    /// Bowtie2's end-to-end defaults: MX 6, MN 2, N 1, gaps 5+3k, minimum `-0.6-0.6·L`.
    pub fn end_to_end() -> Self {
        Self {
            mode: AlignMode::EndToEnd,
            match_bonus: 0,
            mismatch_max: 6,
            mismatch_min: 2,
            n_penalty: 1,
            read_gap_open: 5,
            read_gap_extend: 3,
            ref_gap_open: 5,
            ref_gap_extend: 3,
            min_score: LengthFunction::Linear {
                constant: -0.6,
                coefficient: -0.6,
            },
            n_ceiling: LengthFunction::Linear {
                constant: 0.0,
                coefficient: 0.15,
            },
            gap_barrier: 4,
        }
    }

    /// Bowtie2's `--local` defaults: match bonus 2, minimum `20+8·ln(L)`.
    pub fn local() -> Self {
        Self {
            mode: AlignMode::Local,
            match_bonus: 2,
            min_score: LengthFunction::Log {
                constant: 20.0,
                coefficient: 8.0,
            },
            ..Self::end_to_end()
        }
    }

    /// The defaults of `mode`.
    pub fn for_mode(mode: AlignMode) -> Self {
        match mode {
            AlignMode::EndToEnd => Self::end_to_end(),
            AlignMode::Local => Self::local(),
        }
    }

    /// Penalty of a mismatch at a base of Phred quality `quality`.
    #[inline]
    pub fn mismatch_penalty(&self, quality: u8) -> i32 {
        let q = i32::from(quality.min(40));
        // Bowtie2 truncates the product as a float; the integer form is the same.
        self.mismatch_min + (self.mismatch_max - self.mismatch_min) * q / 40
    }

    /// The lowest score a valid alignment of a `len`-base read may have (the function's
    /// value truncated towards zero, as bowtie2 converts it).
    pub fn min_score(&self, len: usize) -> i32 {
        self.min_score.at(len) as i32
    }

    /// The best score a `len`-base read can reach.
    pub fn perfect_score(&self, len: usize) -> i32 {
        self.match_bonus * len as i32
    }

    /// Most N positions an alignment of a `len`-base read may overlap.
    pub fn max_ns(&self, len: usize) -> usize {
        self.n_ceiling.at(len).max(0.0) as usize
    }

    /// Cost of opening a read gap and extending it by its first base (`5 + 3`).
    #[inline]
    pub fn read_gap_first(&self) -> i32 {
        self.read_gap_open + self.read_gap_extend
    }

    /// Cost of opening a reference gap with its first base.
    #[inline]
    pub fn ref_gap_first(&self) -> i32 {
        self.ref_gap_open + self.ref_gap_extend
    }

    /// The longest gap a valid alignment of a `len`-base read can contain: the bound
    /// the extension band is sized from.
    pub fn max_gap(&self, len: usize) -> usize {
        let budget = self.perfect_score(len) - self.min_score(len);
        let open = self.read_gap_open.min(self.ref_gap_open);
        let extend = self.read_gap_extend.min(self.ref_gap_extend).max(1);
        (budget - open).max(0) as usize / extend as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mismatch_penalties_follow_quality_like_bowtie2() {
        let s = Scoring::end_to_end();
        let expect = [
            (0, 2),
            (9, 2),
            (10, 3),
            (19, 3),
            (20, 4),
            (30, 5),
            (39, 5),
            (40, 6),
            (41, 6),
            (93, 6),
        ];
        for (q, p) in expect {
            assert_eq!(s.mismatch_penalty(q), p, "Q{q}");
        }
    }

    #[test]
    fn minimum_scores_match_bowtie2_defaults() {
        let e2e = Scoring::end_to_end();
        assert_eq!(e2e.min_score(150), -90);
        assert_eq!(e2e.min_score(100), -60);
        let local = Scoring::local();
        // 20 + 8 ln(150) = 60.08
        assert_eq!(local.min_score(150), 60);
        assert_eq!(local.perfect_score(150), 300);
        assert_eq!(e2e.max_ns(150), 22);
        assert_eq!(e2e.max_gap(150), 28);
    }
}
