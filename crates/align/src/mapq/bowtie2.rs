//! bowtie2's mapping quality (its `BowtieMapq2`, the default of bowtie2 2.x): a table
//! lookup from how far the best score sits above the minimum valid score, relative to
//! the span from that minimum to a perfect score, and, when a second-best alignment was
//! found, how far the best is ahead of it. Filters written for bowtie2's output
//! (`samtools view -q 30`, ENCODE's pipelines, MACS2 and deepTools'
//! `--minMappingQuality`) expect these values: 0–42 end to end, 0–44 in local mode.

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

/// The mapping quality bowtie2 gives an alignment with `scores`. `monotone`: no match
/// bonus (bowtie2's end-to-end mode), so scores only fall as differences add up.
pub fn bowtie2_mapq(scores: &Bowtie2Scores, monotone: bool) -> u8 {
    let diff = (scores.perfect - scores.min).max(1);
    let best_over = scores.best - scores.min;
    // bowtie2 compares the integer differences, as doubles, with single-precision
    // constants widened to double (`diff * (double)0.8f`): the same widening here.
    let at_least = |value: i64, share: f32| value as f64 >= diff as f64 * f64::from(share);
    let perfect = best_over == diff;
    let Some(second) = scores.second else {
        let steps: &[(f32, u8)] = if monotone {
            &[(0.8, 42), (0.7, 40), (0.6, 24), (0.5, 23), (0.4, 8), (0.3, 3)]
        } else {
            &[(0.8, 44), (0.7, 42), (0.6, 41), (0.5, 36), (0.4, 28), (0.3, 24)]
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
    const ROWS: [(f32, u8, &[(f32, u8)], u8); 9] = [
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

#[cfg(test)]
mod tests {
    use super::{bowtie2_mapq, Bowtie2Scores};

    fn e2e(best: i64, second: Option<i64>, len: i64) -> u8 {
        // bowtie2's default end-to-end minimum, -0.6 - 0.6·L, truncated.
        let min = (-0.6 - 0.6 * len as f64) as i64;
        bowtie2_mapq(
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
        // 100 bp: minimum -60, so the steps fall at -12, -18, -24, -30, -36 and -42.
        assert_eq!(e2e(0, None, 100), 42);
        assert_eq!(e2e(-12, None, 100), 42);
        assert_eq!(e2e(-13, None, 100), 40);
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
        assert_eq!(e2e(0, Some(-48), 100), 38);
        // Within a tenth of the span (6.0000001 here, the constant widened from single
        // precision): 6 for a good alignment.
        assert_eq!(e2e(0, Some(-6), 100), 6);
        // A pair (2 x 100 bp) 7 below perfect
        // with the next concordant pair 9 behind it.
        let pair = bowtie2_mapq(
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
            bowtie2_mapq(
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
        let short = bowtie2_mapq(
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
}
