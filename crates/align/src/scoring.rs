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

/// A function of the read length `L` (bowtie2's `C,a`, `L,a,b`, `S,a,b` and `G,a,b`):
/// `a`, `a + b·L`, `a + b·sqrt(L)` or `a + b·ln(L)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LengthFunction {
    /// `constant` whatever the length.
    Constant {
        /// The value.
        constant: f64,
    },
    /// `constant + coefficient · L`.
    Linear {
        /// The constant term.
        constant: f64,
        /// The coefficient of `L`.
        coefficient: f64,
    },
    /// `constant + coefficient · sqrt(L)`.
    Sqrt {
        /// The constant term.
        constant: f64,
        /// The coefficient of `sqrt(L)`.
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
            LengthFunction::Constant { constant } => constant,
            LengthFunction::Linear {
                constant,
                coefficient,
            } => constant + coefficient * x,
            LengthFunction::Sqrt {
                constant,
                coefficient,
            } => constant + coefficient * x.sqrt(),
            LengthFunction::Log {
                constant,
                coefficient,
            } => constant + coefficient * x.ln(),
        }
    }

    /// The constant term and the coefficient (0 for a constant function).
    pub fn terms(&self) -> (f64, f64) {
        match *self {
            LengthFunction::Constant { constant } => (constant, 0.0),
            LengthFunction::Linear {
                constant,
                coefficient,
            }
            | LengthFunction::Sqrt {
                constant,
                coefficient,
            }
            | LengthFunction::Log {
                constant,
                coefficient,
            } => (constant, coefficient),
        }
    }

    /// Parses bowtie2's function syntax `TYPE[,CONSTANT[,COEFFICIENT]]`, TYPE one of `C`
    /// (`Constant`), `L` (`Linear`), `S` (`Sqrt`), `G` (`Log`). A term left out keeps
    /// its value in `default`, as bowtie2 does; as in bowtie2, empty terms are skipped
    /// (`L,,-0.2` is `L,-0.2`).
    pub fn parse(text: &str, default: LengthFunction) -> Result<Self, String> {
        let tokens: Vec<&str> = text
            .split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .collect();
        if tokens.len() > 3 || tokens.is_empty() {
            return Err(format!(
                "{text:?}: expected TYPE,CONSTANT,COEFFICIENT, e.g. L,-0.6,-0.6"
            ));
        }
        let (default_constant, default_coefficient) = default.terms();
        let number = |i: usize, fallback: f64| -> Result<f64, String> {
            match tokens.get(i) {
                None => Ok(fallback),
                Some(t) => match t.parse::<f64>() {
                    Ok(v) if v.is_finite() => Ok(v),
                    _ => Err(format!("{text:?}: {t:?} is not a number")),
                },
            }
        };
        let constant = number(1, default_constant)?;
        let coefficient = number(2, default_coefficient)?;
        Ok(match tokens[0] {
            "C" | "Constant" => LengthFunction::Constant { constant },
            "L" | "Linear" => LengthFunction::Linear {
                constant,
                coefficient,
            },
            "S" | "Sqrt" => LengthFunction::Sqrt {
                constant,
                coefficient,
            },
            "G" | "Log" => LengthFunction::Log {
                constant,
                coefficient,
            },
            other => {
                return Err(format!(
                    "{text:?}: function type {other:?} is not C (constant), L (linear), \
                     S (square root) or G (natural log)"
                ))
            }
        })
    }
}

/// The longest read the range checks of [`Scoring::check`] guarantee: every score a
/// read up to this length can reach fits the 16-bit lanes of the extension kernels.
pub const CHECKED_READ_LEN: usize = 1000;

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
    /// bowtie2's `--bwa-sw-like` rule for the lowest valid score instead of
    /// [`Scoring::min_score`]'s function: the match bonus times `max(30, 5.5·ln(L))`,
    /// BWA-SW's threshold. The function still gives bowtie2's mapping quality its
    /// minimum, as there.
    pub bwa_sw_minimum: bool,
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
            // bowtie2's defaults are single-precision constants, widened: -0.6 is
            // -0.6000000238, so a 9-base read's minimum is -6.0000002, truncated to
            // -6 (the double -0.6 would give -5.9999999 and -5).
            min_score: LengthFunction::Linear {
                constant: f64::from(-0.6f32),
                coefficient: f64::from(-0.6f32),
            },
            n_ceiling: LengthFunction::Linear {
                constant: 0.0,
                coefficient: f64::from(0.15f32),
            },
            gap_barrier: 4,
            bwa_sw_minimum: false,
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

    /// Checks that the parameters make sense and that every score of a read of up to
    /// [`CHECKED_READ_LEN`] bases stays within the 16-bit range of the extension
    /// kernels (scores saturate at ±32,767). The error says which value is wrong.
    pub fn check(&self) -> Result<(), String> {
        let ranges = [
            ("match bonus (--ma)", self.match_bonus, 0, 30),
            (
                "maximum mismatch penalty (--mp MX)",
                self.mismatch_max,
                0,
                30,
            ),
            (
                "minimum mismatch penalty (--mp ,MN)",
                self.mismatch_min,
                0,
                30,
            ),
            ("N penalty (--np)", self.n_penalty, 0, 30),
            ("read gap open penalty (--rdg)", self.read_gap_open, 0, 100),
            (
                "read gap extension penalty (--rdg)",
                self.read_gap_extend,
                1,
                30,
            ),
            (
                "reference gap open penalty (--rfg)",
                self.ref_gap_open,
                0,
                100,
            ),
            (
                "reference gap extension penalty (--rfg)",
                self.ref_gap_extend,
                1,
                30,
            ),
        ];
        for (what, value, lo, hi) in ranges {
            if value < lo || value > hi {
                return Err(format!("{what} is {value}; it must be {lo} to {hi}"));
            }
        }
        if self.mismatch_min > self.mismatch_max {
            return Err(format!(
                "--mp {},{}: the minimum mismatch penalty exceeds the maximum",
                self.mismatch_max, self.mismatch_min
            ));
        }
        for len in [1, 10, 100, CHECKED_READ_LEN] {
            let v = self.min_score.at(len);
            if !v.is_finite() || v.abs() > 30_000.0 {
                return Err(format!(
                    "--score-min gives {v} for a {len}-base read; scores must stay within \
                     ±30000"
                ));
            }
        }
        let lengths = [1, 10, 20, 50, 100, 150, 250, 500, CHECKED_READ_LEN];
        if self.match_bonus > 0 && lengths.iter().any(|&len| self.min_score.at(len) <= 0.0) {
            return Err(format!(
                "the match bonus is greater than 0 ({}) but the --score-min function can \
                 be less than or equal to zero; either let the match bonus be 0 or make \
                 --score-min always positive",
                self.match_bonus
            ));
        }
        Ok(())
    }

    /// Penalty of a mismatch at a base of Phred quality `quality`.
    #[inline]
    pub fn mismatch_penalty(&self, quality: u8) -> i32 {
        let q = i32::from(quality.min(40));
        // Bowtie2 truncates the product as a float; the integer form is the same.
        self.mismatch_min + (self.mismatch_max - self.mismatch_min) * q / 40
    }

    /// The lowest score a valid alignment of a `len`-base read may have (the function's
    /// value truncated towards zero, as bowtie2 converts it). As in bowtie2, a value
    /// above 0 end to end (where no alignment scores above 0), or below 0 in local mode
    /// (where every alignment scores 0 or more), is 0 instead; see
    /// [`Scoring::min_score_clamped_at`].
    pub fn min_score(&self, len: usize) -> i32 {
        if self.bwa_sw_minimum {
            // bowtie2's arithmetic: float factors, the logarithm in double precision.
            let a = self.match_bonus as f32;
            let by_length = (f64::from(a * 5.5) * (len.max(1) as f64).ln()) as f32;
            return (a * 30.0).max(by_length) as i32;
        }
        let v = self.min_score.at(len) as i32;
        match self.mode {
            AlignMode::EndToEnd => v.min(0),
            AlignMode::Local => v.max(0),
        }
    }

    /// The first read length, of the lengths from 1 to [`CHECKED_READ_LEN`], at which
    /// [`Scoring::min_score`] replaces the function's value by 0, if any: the reads a
    /// run warns about.
    pub fn min_score_clamped_at(&self) -> Option<usize> {
        if self.bwa_sw_minimum {
            return None;
        }
        (1..=CHECKED_READ_LEN).find(|&len| self.min_score.at(len) as i32 != self.min_score(len))
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
    fn functions_parse_like_bowtie2() {
        let d = Scoring::end_to_end().min_score;
        assert_eq!(
            LengthFunction::parse("L,0,-0.2", d),
            Ok(LengthFunction::Linear {
                constant: 0.0,
                coefficient: -0.2
            })
        );
        assert_eq!(
            LengthFunction::parse("G,20,8", d),
            Ok(LengthFunction::Log {
                constant: 20.0,
                coefficient: 8.0
            })
        );
        assert_eq!(
            LengthFunction::parse("C,-18", d),
            Ok(LengthFunction::Constant { constant: -18.0 })
        );
        // A term left out keeps the default's, bowtie2's single-precision -0.6 widened.
        assert_eq!(
            LengthFunction::parse("L,-1", d),
            Ok(LengthFunction::Linear {
                constant: -1.0,
                coefficient: f64::from(-0.6f32)
            })
        );
        // bowtie2's defaults are single-precision: a 9-base read's minimum is -6 (-0.6
        // as a double would give -5.9999999, truncated to -5), as are 4, 14, 19 and
        // 149 bases' (-3, -9, -12, -90).
        let e2e = Scoring::end_to_end();
        let minima: Vec<i32> = [4, 9, 14, 19, 149, 150]
            .iter()
            .map(|&l| e2e.min_score(l))
            .collect();
        assert_eq!(minima, [-3, -6, -9, -12, -90, -90]);
        // bowtie2's tokenizer skips empty terms: `L,,-0.2` is `L,-0.2`.
        assert_eq!(
            LengthFunction::parse("L,,-0.2", d),
            LengthFunction::parse("L,-0.2", d)
        );
        assert!(LengthFunction::parse(",,", d).is_err());
        let s = LengthFunction::parse("S,1,1.15", d).unwrap();
        assert!((s.at(100) - 12.5).abs() < 1e-9);
        assert!(LengthFunction::parse("Q,1,2", d).is_err());
        assert!(LengthFunction::parse("L,x,2", d).is_err());
        assert!(LengthFunction::parse("L,1,2,3", d).is_err());
        assert!(LengthFunction::parse("", d).is_err());
    }

    #[test]
    fn checks_keep_scores_in_sixteen_bits() {
        assert_eq!(Scoring::end_to_end().check(), Ok(()));
        assert_eq!(Scoring::local().check(), Ok(()));
        let big_bonus = Scoring {
            match_bonus: 40,
            ..Scoring::local()
        };
        assert!(big_bonus.check().is_err());
        let inverted = Scoring {
            mismatch_min: 7,
            ..Scoring::end_to_end()
        };
        assert!(inverted.check().is_err());
        let huge_minimum = Scoring {
            min_score: LengthFunction::Linear {
                constant: 0.0,
                coefficient: -50.0,
            },
            ..Scoring::end_to_end()
        };
        assert!(huge_minimum.check().unwrap_err().contains("--score-min"));
        let negative_local = Scoring {
            min_score: LengthFunction::Constant { constant: -5.0 },
            ..Scoring::local()
        };
        assert!(negative_local.check().is_err());
        // A bonus end-to-end needs a positive minimum, as in bowtie2.
        let bonus_end_to_end = Scoring {
            match_bonus: 3,
            ..Scoring::end_to_end()
        };
        assert!(bonus_end_to_end
            .check()
            .unwrap_err()
            .contains("match bonus"));
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
        assert_eq!(
            (e2e.min_score_clamped_at(), local.min_score_clamped_at()),
            (None, None)
        );
    }

    #[test]
    fn minimums_on_the_wrong_side_of_0_are_0_as_in_bowtie2() {
        let positive = Scoring {
            min_score: LengthFunction::Linear {
                constant: -10.0,
                coefficient: 0.2,
            },
            ..Scoring::end_to_end()
        };
        assert_eq!(positive.min_score(40), -2);
        assert_eq!(positive.min_score(100), 0);
        assert_eq!(positive.min_score_clamped_at(), Some(55));
        let negative = Scoring {
            match_bonus: 0,
            min_score: LengthFunction::Constant { constant: -5.0 },
            ..Scoring::local()
        };
        assert_eq!(negative.min_score(100), 0);
        assert_eq!(negative.min_score_clamped_at(), Some(1));
    }

    #[test]
    fn bwa_sw_like_minimum_is_bwa_sw_s_threshold() {
        // bowtie2's --bwa-sw-like: a·max(30, 5.5 ln L), whatever --score-min says.
        let s = Scoring {
            match_bonus: 1,
            bwa_sw_minimum: true,
            ..Scoring::local()
        };
        assert_eq!(s.min_score(100), 30);
        // 5.5 ln 300 = 31.37
        assert_eq!(s.min_score(300), 31);
        let doubled = Scoring {
            match_bonus: 2,
            ..s.clone()
        };
        assert_eq!(doubled.min_score(100), 60);
        assert_eq!(doubled.min_score(1000), 75);
        assert_eq!(s.min_score_clamped_at(), None);
    }
}
