//! bowtie2's mapping quality. Its default model (`BowtieMapq2`, `--mapq-v 2`) is a table
//! lookup from how far the best score sits above the minimum valid score, relative to
//! the span from that minimum to a perfect score, and, when a second-best alignment was
//! found, how far the best is ahead of it. Filters written for bowtie2's output
//! (`samtools view -q 30`, ENCODE's pipelines, MACS2 and deepTools'
//! `--minMappingQuality`) expect these values: 0–42 end to end, 0–44 in local mode.
//! bowtie2's two other models (`--mapq-v 3`, and any other number for its first) read
//! the same scores.

/// Which of bowtie2's models (`--mapq-v`): 2 is bowtie2's default, 3 its binned
/// tables, any other number its first model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Bowtie2MapqVersion {
    /// `BowtieMapq`: 37, 25 or 10 without a second best, 1–6 with one.
    V1,
    /// `BowtieMapq2`, the default.
    #[default]
    V2,
    /// `BowtieMapq3`: tables binned by tenths of the score span; 44 for every mate of
    /// a pair.
    V3,
}

impl Bowtie2MapqVersion {
    /// The model `--mapq-v N` selects, as bowtie2 picks it.
    pub fn from_number(n: i64) -> Self {
        match n {
            2 => Bowtie2MapqVersion::V2,
            3 => Bowtie2MapqVersion::V3,
            _ => Bowtie2MapqVersion::V1,
        }
    }

    /// Whether a concordant or discordant pair's mates both get the pair's quality,
    /// from the sums of the two mates' scores ([`Bowtie2MapqVersion::V2`]); the other
    /// models rate each mate by its own score and its own second best (`XS`), or give
    /// 44 (V3).
    pub fn rates_pairs_by_sums(self) -> bool {
        self == Bowtie2MapqVersion::V2
    }
}

/// The scores bowtie2's model reads. For a concordant or discordant pair every field is
/// the sum over both mates (the pair's score, the second-best concordant pair's score,
/// the two mates' minimum and perfect scores).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bowtie2Scores {
    /// The reported alignment's score.
    pub best: i64,
    /// The best score among the alignments not chosen (the second best, which equals
    /// `best` when two tie); `None` when nothing else was found.
    pub second: Option<i64>,
    /// The minimum valid score, as bowtie2's `--score-min` function gives it before any
    /// clamping (truncated towards zero).
    pub min: i64,
    /// The score of a perfect alignment (0 end to end, the match bonus times the length
    /// in local mode).
    pub perfect: i64,
}

/// The mapping quality bowtie2's model `version` gives an alignment with `scores`, of
/// a mate of a concordant or discordant pair when `paired`. `monotone`: no match bonus
/// (bowtie2's end-to-end mode), so scores only fall as differences add up.
pub fn bowtie2_mapq(
    version: Bowtie2MapqVersion,
    scores: &Bowtie2Scores,
    monotone: bool,
    paired: bool,
) -> u8 {
    match version {
        Bowtie2MapqVersion::V1 => first_model(scores),
        Bowtie2MapqVersion::V2 => default_model(scores, monotone),
        Bowtie2MapqVersion::V3 if paired => PAIR_NO_SECOND_PERFECT,
        Bowtie2MapqVersion::V3 => binned_model(scores),
    }
}

/// `BowtieMapq2`.
fn default_model(scores: &Bowtie2Scores, monotone: bool) -> u8 {
    let diff = (scores.perfect - scores.min).max(1);
    let best_over = scores.best - scores.min;
    // bowtie2 compares the integer differences, as doubles, with single-precision
    // constants widened to double (`diff * (double)0.8f`): the same widening here.
    let at_least = |value: i64, share: f32| value as f64 >= diff as f64 * f64::from(share);
    let perfect = best_over == diff;
    let Some(second) = scores.second else {
        let steps: &[(f32, u8)] = if monotone {
            &[
                (0.8, 42),
                (0.7, 40),
                (0.6, 24),
                (0.5, 23),
                (0.4, 8),
                (0.3, 3),
            ]
        } else {
            &[
                (0.8, 44),
                (0.7, 42),
                (0.6, 41),
                (0.5, 36),
                (0.4, 28),
                (0.3, 24),
            ]
        };
        let floor = if monotone { 0 } else { 22 };
        return steps
            .iter()
            .find(|&&(share, _)| at_least(best_over, share))
            .map_or(floor, |&(_, q)| q);
    };
    // bowtie2's distance between the two: the difference of their absolute values.
    let best_diff = (scores.best.abs() - second.abs()).abs();
    if monotone {
        end_to_end_with_second(best_diff, best_over, perfect, &at_least)
    } else {
        local_with_second(best_diff, best_over, perfect, &at_least)
    }
}

/// bowtie2's end-to-end table when a second best was found. Each row: the share of the
/// span the lead over the second best reaches, the quality of a perfect alignment, then
/// pairs of (share of the span the best sits above the minimum, quality), and the
/// quality below them all.
fn end_to_end_with_second(
    best_diff: i64,
    best_over: i64,
    perfect: bool,
    at_least: &dyn Fn(i64, f32) -> bool,
) -> u8 {
    /// Shares of the span and the qualities they give.
    type Steps = &'static [(f32, u8)];
    const ROWS: [(f32, u8, Steps, u8); 9] = [
        (0.9, 39, &[], 33),
        (0.8, 38, &[], 27),
        (0.7, 37, &[], 26),
        (0.6, 36, &[], 22),
        (0.5, 35, &[(0.84, 25), (0.68, 16)], 5),
        (0.4, 34, &[(0.84, 21), (0.68, 14)], 4),
        (0.3, 32, &[(0.88, 18), (0.67, 15)], 3),
        (0.2, 31, &[(0.88, 17), (0.67, 11)], 0),
        (0.1, 30, &[(0.88, 12), (0.67, 7)], 0),
    ];
    for (lead, top, steps, floor) in ROWS {
        if at_least(best_diff, lead) {
            if perfect {
                return top;
            }
            return steps
                .iter()
                .find(|&&(share, _)| at_least(best_over, share))
                .map_or(floor, |&(_, q)| q);
        }
    }
    let good = at_least(best_over, 0.67);
    match (best_diff > 0, good) {
        (true, true) => 6,
        (true, false) => 2,
        (false, true) => 1,
        (false, false) => 0,
    }
}

/// bowtie2's local-mode table when a second best was found (rows as in
/// [`end_to_end_with_second`], with one split of the best's height at half the span).
fn local_with_second(
    best_diff: i64,
    best_over: i64,
    perfect: bool,
    at_least: &dyn Fn(i64, f32) -> bool,
) -> u8 {
    const WIDE: [(f32, u8); 4] = [(0.9, 40), (0.8, 39), (0.7, 38), (0.6, 37)];
    const ROWS: [(f32, u8, u8, u8); 5] = [
        (0.5, 35, 25, 20),
        (0.4, 34, 21, 19),
        (0.3, 33, 18, 16),
        (0.2, 32, 17, 12),
        (0.1, 31, 14, 9),
    ];
    if let Some(&(_, q)) = WIDE.iter().find(|&&(lead, _)| at_least(best_diff, lead)) {
        return q;
    }
    let upper_half = at_least(best_over, 0.5);
    for (lead, top, upper, lower) in ROWS {
        if at_least(best_diff, lead) {
            return if perfect {
                top
            } else if upper_half {
                upper
            } else {
                lower
            };
        }
    }
    match (best_diff > 0, upper_half) {
        (true, true) => 11,
        (true, false) => 2,
        (false, true) => 1,
        (false, false) => 0,
    }
}

/// `BowtieMapq`, bowtie2's first model.
fn first_model(scores: &Bowtie2Scores) -> u8 {
    let diff = scores.perfect - scores.min;
    // bowtie2 widens 0.1666f to double here, and compares the score as a float.
    let sixth = f64::from(0.1666f32);
    let cut = |k: f64| (scores.perfect as f64 - diff as f64 * sixth * k) as f32;
    let Some(second) = scores.second else {
        let best = scores.best as f32;
        return if best >= cut(2.0) {
            37
        } else if best >= cut(3.0) {
            25
        } else {
            10
        };
    };
    let best_diff = (scores.best.abs() - second.abs()).abs() as f64;
    // Here the constant is a double: 0.1666.
    (1..=5)
        .rev()
        .find(|&k| best_diff >= diff as f64 * 0.1666 * f64::from(k))
        .map_or(1, |k| k as u8 + 1)
}

/// `BowtieMapq3`'s quality of a mate of a pair: its `pair_nosec_perf`.
const PAIR_NO_SECOND_PERFECT: u8 = 44;

/// `BowtieMapq3`'s tables (bowtie2's `unique.cpp`): without a second best, by tenths of
/// the span the best score falls short of a perfect one; with one, by that and by
/// tenths of the span between the two.
fn binned_model(scores: &Bowtie2Scores) -> u8 {
    const NO_SECOND_PERFECT: u8 = 44;
    const NO_SECOND: [u8; 11] = [43, 42, 41, 36, 32, 27, 20, 11, 4, 1, 0];
    const SECOND_PERFECT: [u8; 11] = [2, 16, 23, 30, 31, 32, 34, 36, 38, 40, 42];
    const SECOND: [[u8; 11]; 11] = [
        [2, 2, 2, 1, 1, 0, 0, 0, 0, 0, 0],
        [20, 14, 7, 3, 2, 1, 0, 0, 0, 0, 0],
        [20, 16, 10, 6, 3, 1, 0, 0, 0, 0, 0],
        [20, 17, 13, 9, 3, 1, 1, 0, 0, 0, 0],
        [21, 19, 15, 9, 5, 2, 2, 0, 0, 0, 0],
        [22, 21, 16, 11, 10, 5, 0, 0, 0, 0, 0],
        [23, 22, 19, 16, 11, 0, 0, 0, 0, 0, 0],
        [24, 25, 21, 30, 0, 0, 0, 0, 0, 0, 0],
        [30, 26, 29, 0, 0, 0, 0, 0, 0, 0, 0],
        [30, 27, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        [30, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ];
    let span = (scores.perfect - scores.min) as f64;
    let bin = |value: i64| ((value as f64 * (10.0 / span) + 0.5) as usize).min(10);
    // bowtie2's "best" here is the shortfall from a perfect score, and it takes the
    // alignment for perfect when that shortfall equals the perfect score (a score of 0).
    let shortfall = scores.perfect - scores.best;
    let perfect = shortfall == scores.perfect;
    match scores.second {
        Some(_) if perfect => SECOND_PERFECT[bin(shortfall)],
        Some(second) => SECOND[bin(scores.best - second)][bin(shortfall)],
        None if perfect => NO_SECOND_PERFECT,
        None => NO_SECOND[bin(shortfall)],
    }
}

#[cfg(test)]
mod tests {
    use super::{bowtie2_mapq, Bowtie2MapqVersion, Bowtie2Scores};

    fn v2(scores: &Bowtie2Scores, monotone: bool) -> u8 {
        bowtie2_mapq(Bowtie2MapqVersion::V2, scores, monotone, false)
    }

    fn e2e(best: i64, second: Option<i64>, len: i64) -> u8 {
        // bowtie2's default end-to-end minimum, -0.6 - 0.6·L, truncated.
        let min = (-0.6 - 0.6 * len as f64) as i64;
        v2(
            &Bowtie2Scores {
                best,
                second,
                min,
                perfect: 0,
            },
            true,
        )
    }

    #[test]
    fn unique_end_to_end_alignments_by_score() {
        // 100 bp: minimum -60, span 60. The shares are single-precision constants
        // widened to double, so 0.8 of 60 is 48.0000007: 42 needs 49 above the
        // minimum (-11), and the steps fall at -11, -18, -23, -30, -35 and -41.
        assert_eq!(e2e(0, None, 100), 42);
        assert_eq!(e2e(-11, None, 100), 42);
        assert_eq!(e2e(-12, None, 100), 40);
        assert_eq!(e2e(-18, None, 100), 40);
        assert_eq!(e2e(-19, None, 100), 24);
        assert_eq!(e2e(-25, None, 100), 23);
        assert_eq!(e2e(-31, None, 100), 8);
        assert_eq!(e2e(-37, None, 100), 3);
        assert_eq!(e2e(-43, None, 100), 0);
    }

    #[test]
    fn second_best_end_to_end() {
        // Ties: 1 when the best is in the top third of the span, else 0.
        assert_eq!(e2e(-6, Some(-6), 100), 1);
        assert_eq!(e2e(-30, Some(-30), 100), 0);
        // A perfect read with a second best far behind, then closer.
        assert_eq!(e2e(0, Some(-60), 100), 39);
        assert_eq!(e2e(0, Some(-49), 100), 38);
        assert_eq!(e2e(0, Some(-48), 100), 37);
        // Within a tenth of the span (6.0000001 here, the constant widened from single
        // precision): 6 for a good alignment.
        assert_eq!(e2e(0, Some(-6), 100), 6);
        // A pair (2 x 100 bp) 7 below perfect
        // with the next concordant pair 9 behind it.
        let pair = v2(
            &Bowtie2Scores {
                best: -7,
                second: Some(-16),
                min: -120,
                perfect: 0,
            },
            true,
        );
        assert_eq!(pair, 6);
        assert_eq!(e2e(-10, Some(-22), 100), 7);
        assert_eq!(e2e(-30, Some(-48), 100), 0);
    }

    #[test]
    fn local_mode() {
        // 100 bp local: perfect 200, minimum 20 + 8 ln(100) = 56.84, truncated to 56.
        let local = |best: i64, second: Option<i64>| {
            v2(
                &Bowtie2Scores {
                    best,
                    second,
                    min: 56,
                    perfect: 200,
                },
                false,
            )
        };
        assert_eq!(local(200, None), 44);
        assert_eq!(local(150, None), 41);
        assert_eq!(local(60, None), 22);
        assert_eq!(local(200, Some(60)), 40);
        assert_eq!(local(200, Some(130)), 34);
        assert_eq!(local(190, Some(130)), 21);
        assert_eq!(local(100, Some(100)), 0);
        assert_eq!(local(150, Some(150)), 1);
        // 13 bp, AS 26, XS 16, minimum C,12 (bowtie2 reports 38).
        let short = v2(
            &Bowtie2Scores {
                best: 26,
                second: Some(16),
                min: 12,
                perfect: 26,
            },
            false,
        );
        assert_eq!(short, 38);
    }

    #[test]
    fn the_other_models() {
        let e2e = |best, second| Bowtie2Scores {
            best,
            second,
            min: -60,
            perfect: 0,
        };
        let v1 = |s: &Bowtie2Scores| bowtie2_mapq(Bowtie2MapqVersion::V1, s, true, false);
        // Span 60: cuts at -19.992 and -29.988 without a second best.
        assert_eq!(v1(&e2e(-19, None)), 37);
        assert_eq!(v1(&e2e(-20, None)), 25);
        assert_eq!(v1(&e2e(-31, None)), 10);
        assert_eq!(v1(&e2e(0, Some(-60))), 6);
        assert_eq!(v1(&e2e(0, Some(-10))), 2);
        assert_eq!(v1(&e2e(-5, Some(-5))), 1);
        let v3 = |s: &Bowtie2Scores, paired| bowtie2_mapq(Bowtie2MapqVersion::V3, s, true, paired);
        assert_eq!(v3(&e2e(0, None), false), 44);
        assert_eq!(v3(&e2e(-6, None), false), 42);
        assert_eq!(v3(&e2e(0, Some(-30)), false), 2);
        assert_eq!(v3(&e2e(-12, Some(-30)), false), 13);
        assert_eq!(v3(&e2e(-30, Some(-31)), true), 44);
        assert_eq!(Bowtie2MapqVersion::from_number(7), Bowtie2MapqVersion::V1);
    }
}
