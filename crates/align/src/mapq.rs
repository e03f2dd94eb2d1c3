//! Mapping quality, by one of two models ([`MapqModel`]):
//!
//! * bowtie2's ([`bowtie2_mapq`], the default): what bowtie2 prints for the same best
//!   and second-best scores, so that filters written for bowtie2 keep the same reads;
//! * seqfarm's calibrated one ([`mapq`], [`pair_mapq`]): how likely the reported
//!   placement is wrong, from the best score, the runner-up (found, or bounded by the
//!   fast path), how good the best alignment is, and how much of the search was left
//!   unexplored. Calibrated on reads simulated from real genomes (docs/ALIGNER.md gives
//!   the measurements).

mod bowtie2;

pub use bowtie2::{bowtie2_mapq, Bowtie2MapqVersion, Bowtie2Scores};

use crate::scoring::Scoring;

/// Which mapping quality the aligner reports (`--mapq`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapqModel {
    /// bowtie2's values, from the best score and the second best found, by the model
    /// `--mapq-v` picks (its default: 0–42 end to end, 0–44 local).
    Bowtie2(Bowtie2MapqVersion),
    /// seqfarm's own, calibrated on simulated reads (0–60).
    Calibrated,
}

impl Default for MapqModel {
    fn default() -> Self {
        MapqModel::Bowtie2(Bowtie2MapqVersion::default())
    }
}

impl Scoring {
    /// The scores bowtie2's model reads for an alignment of `best` by a `len`-base read,
    /// `second` the second best: its minimum as the `--score-min` function gives it
    /// (before seqfarm's clamp, as bowtie2 computes its MAPQ) and its perfect score.
    pub fn bowtie2_scores(&self, best: i32, second: Option<i32>, len: usize) -> Bowtie2Scores {
        Bowtie2Scores {
            best: i64::from(best),
            second: second.map(i64::from),
            min: self.min_score.at(len) as i64,
            perfect: i64::from(self.perfect_score(len)),
        }
    }

    /// Whether scores only fall as an alignment adds differences (no match bonus):
    /// bowtie2's end-to-end tables apply.
    pub fn monotone(&self) -> bool {
        self.match_bonus == 0
    }
}

/// What the mapping quality is computed from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapqInput {
    /// Best alignment score.
    pub best: i32,
    /// Second-best score at another place, if one was found.
    pub second: Option<i32>,
    /// When no second-best was searched for: the most any other placement can score.
    pub second_bound: Option<i32>,
    /// How many of the seeds behind `second_bound` occur exactly once in the genome.
    pub unique_seeds: usize,
    /// Alignments scoring exactly `best` (at different places).
    pub best_count: usize,
    /// Read length.
    pub read_len: usize,
    /// Fraction of the read covered only by seeds too repetitive to locate fully.
    pub repetitive_fraction: f32,
    /// Candidate regions found but not extended.
    pub unexplored: usize,
}

/// Highest mapping quality reported.
pub const MAX_MAPQ: u8 = 60;

/// Mapping quality per mismatch-equivalent between the best score and the runner-up's,
/// for a read whose search extended every candidate region. Calibrated on simulated
/// reads (`bench/mapq_calibration.py`): with it, the reads one mismatch ahead fall in
/// the band 15-19, where well under 1 % of them are misplaced, and almost none is above
/// it.
pub const RUNNER_UP_PER_MISMATCH: f64 = 18.0;

/// Mapping quality per mismatch-equivalent between a pair's score sum and its best
/// rival's. Calibrated on 35 sets of simulated pairs (`bench/align-calibration.sh`):
/// with it, a pair one mismatch ahead gets 24, and every MAPQ band's misplaced mates
/// are as few as its quality says or fewer, on each of three genomes. With 18 (a read's
/// factor) the bands 10-19 were misplaced as rarely as qualities of 18-27 say; with 30,
/// chr20's band 15-19 held too many.
pub const PAIR_RUNNER_UP_PER_MISMATCH: f64 = 24.0;

/// Mapping quality per mismatch-equivalent over the runner-up for a read whose search
/// left candidate regions unextended (lowered further for each of them): a better
/// place may lie in one. Calibrated as [`RUNNER_UP_PER_MISMATCH`]: half its factor
/// keeps the errors of every MAPQ band of simulated reads at or below the band's
/// quality (docs/ALIGNER.md §6).
pub const UNEXTENDED_PER_MISMATCH: f64 = 9.0;

/// The mapping quality of a read's best alignment.
pub fn mapq(scoring: &Scoring, input: &MapqInput) -> u8 {
    if let Some(q) = tie_quality(input.best_count) {
        return q;
    }
    let unit = mismatch_unit(scoring);
    let fit = fit(
        input.best,
        scoring.min_score(input.read_len),
        scoring.perfect_score(input.read_len),
    );
    let q = match (input.second, input.second_bound) {
        // A runner-up was found, and no candidate region was left unextended.
        (Some(second), _) if input.unexplored == 0 => {
            RUNNER_UP_PER_MISMATCH * f64::from(input.best - second) / unit
        }
        // Regions were left unextended, and the true place may lie in one of them:
        // lowered below for each of them.
        (Some(second), _) => UNEXTENDED_PER_MISMATCH * f64::from(input.best - second) / unit,
        // The fast path proved every other place mismatches each of its unique seeds.
        // The bound is a worst case: with two unique seeds or more, real alternatives
        // are far below it (no such read was misplaced in the calibration sets); with
        // one, the read is mostly repeat and the bound is taken as the runner-up.
        (None, Some(bound)) if input.unique_seeds >= 2 => {
            24.0 + 18.0 * f64::from(input.best - bound) / unit
        }
        (None, Some(bound)) => 6.0 * f64::from(input.best - bound) / unit,
        // The full search found nothing else.
        (None, None) => f64::from(MAX_MAPQ),
    };
    let q = q * fit - 4.343 * (1.0 + input.unexplored as f64).ln();
    let q = q * (1.0 - f64::from(input.repetitive_fraction)).clamp(0.0, 1.0);
    q.round().clamp(0.0, f64::from(MAX_MAPQ)) as u8
}

/// The mapping quality of a pair whose mates are `lens` bases long: as a read's
/// ([`mapq`]), with the pair's score sum `best` in place of a read's score and its best
/// rival `second` (another concordant pair, or a penalised non-concordant combination;
/// `None`: none) as the runner-up, both weighed by the caller by how likely their
/// fragment lengths are, as BWA-MEM weighs pairs. `ties`: the pairs that rank equally
/// with it, itself included.
pub fn pair_mapq(
    scoring: &Scoring,
    best: i32,
    second: Option<i32>,
    ties: usize,
    lens: [usize; 2],
) -> u8 {
    if let Some(q) = tie_quality(ties) {
        return q;
    }
    let [a, b] = lens;
    let fit = fit(
        best,
        scoring.min_score(a) + scoring.min_score(b),
        scoring.perfect_score(a) + scoring.perfect_score(b),
    );
    let q = match second {
        Some(second) => {
            PAIR_RUNNER_UP_PER_MISMATCH * f64::from(best - second) / mismatch_unit(scoring)
        }
        None => f64::from(MAX_MAPQ),
    };
    (q * fit).round().clamp(0.0, f64::from(MAX_MAPQ)) as u8
}

/// Equally good places make a coin toss: 1 for two, 0 for more (bowtie2 reports 0 or 1
/// too); `None` for one.
fn tie_quality(count: usize) -> Option<u8> {
    (count > 1).then_some(u8::from(count == 2))
}

/// One high-quality mismatch: the unit score differences are measured in.
fn mismatch_unit(scoring: &Scoring) -> f64 {
    f64::from((scoring.mismatch_max + scoring.match_bonus).max(1))
}

/// How well a score sits between the valid minimum and a perfect alignment's (0 to 1,
/// square root of the share): a barely valid alignment is often a wrong one.
fn fit(best: i32, min: i32, perfect: i32) -> f64 {
    (f64::from(best - min) / f64::from((perfect - min).max(1)))
        .clamp(0.0, 1.0)
        .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(best: i32, second: Option<i32>, bound: Option<i32>) -> MapqInput {
        MapqInput {
            best,
            second,
            second_bound: bound,
            unique_seeds: 3,
            best_count: 1,
            read_len: 150,
            repetitive_fraction: 0.0,
            unexplored: 0,
        }
    }

    #[test]
    fn ties_differences_and_bounds() {
        let s = Scoring::end_to_end();
        assert_eq!(
            mapq(
                &s,
                &MapqInput {
                    best_count: 2,
                    ..input(-6, Some(-6), None)
                }
            ),
            1
        );
        assert_eq!(
            mapq(
                &s,
                &MapqInput {
                    best_count: 3,
                    ..input(0, Some(0), None)
                }
            ),
            0
        );
        // Larger differences give higher qualities, up to the cap.
        let by_diff: Vec<u8> = [1, 6, 12, 18]
            .iter()
            .map(|d| mapq(&s, &input(-6, Some(-6 - d), None)))
            .collect();
        assert!(by_diff.windows(2).all(|w| w[0] < w[1]), "{by_diff:?}");
        assert_eq!(mapq(&s, &input(-6, Some(-66), None)), MAX_MAPQ);
        // A runner-up one mismatch behind stays below 20, two behind do not; with
        // regions left unextended, two behind stay below 20.
        assert!((15..20).contains(&by_diff[1]), "{by_diff:?}");
        assert!(by_diff[2] >= 30, "{by_diff:?}");
        let unextended = MapqInput {
            unexplored: 1,
            ..input(-6, Some(-18), None)
        };
        assert!(mapq(&s, &unextended) < 20);
        // Four behind reach 20 all the same, even with three regions unextended.
        let far_ahead = MapqInput {
            unexplored: 3,
            ..input(-6, Some(-30), None)
        };
        assert!(mapq(&s, &far_ahead) >= 20);
        assert_eq!(mapq(&s, &input(0, None, None)), MAX_MAPQ);
        assert_eq!(mapq(&s, &input(0, None, Some(-30))), MAX_MAPQ);
        assert!(mapq(&s, &input(-6, None, Some(-8))) >= 20);
        // Poor alignments, unexplored regions and repeats lower it.
        assert!(mapq(&s, &input(-80, None, None)) < 30);
        assert!(
            mapq(
                &s,
                &MapqInput {
                    unexplored: 10,
                    ..input(0, None, None)
                }
            ) <= 50
        );
        assert!(
            mapq(
                &s,
                &MapqInput {
                    repetitive_fraction: 0.9,
                    ..input(0, None, None)
                }
            ) <= 6
        );
    }
}
