//! The fragment model: the fragment lengths of a batch learned from its unambiguous
//! pairs, which rank equally scored pairs, let a likely pair just outside `-I/-X` beat a
//! concordant one, and weigh a pair's runner-up for its MAPQ.

use super::{fragment_length, Combination, MatePlaces};
use crate::candidate::Placement;
use crate::pair::{PairFit, PairParams};

/// The fragment lengths of a batch, learned from its unambiguous pairs (each mate at
/// one place, the two on one contig facing each other as the library orientation
/// says, at most [`FRAGMENT_SAMPLE_REACH`] times `-X` apart), as BWA-MEM learns them.
///
/// `-I/-X` alone decide what is concordant. The model ranks what they leave open:
/// - among equally scored concordant pairs, the one whose mates are likeliest at their
///   true places wins ([`FragmentModel::rank_equal_pairs`]);
/// - a pair just outside `-I/-X` but well inside the learned distribution (a
///   "stretched" pair) is reported, as a discordant pair, in place of a concordant one
///   when it scores more once each pair's sum is lowered by its own length's
///   unlikelihood: the concordant one is then a mate forced into a nearby repeat copy;
/// - the same weighing sets how far a pair is ahead of its runner-up, for its MAPQ.
#[derive(Debug, Clone)]
pub(super) struct FragmentModel {
    /// Mean and standard deviation of the lengths inside the outlier bounds; `None`
    /// without enough pairs.
    lengths: Option<(f64, f64)>,
    /// The pairing constraints widened to the mean ± [`STRETCH_DEVIATIONS`] deviations;
    /// `None` without a learned distribution, or when the widened range adds nothing to
    /// `-I/-X`.
    stretch: Option<PairParams>,
}

/// Fewest unambiguous pairs a batch needs for its fragment model.
const MIN_FRAGMENT_SAMPLE: usize = 16;
/// How far apart (in multiples of `-X`) mates may lie to count in the model.
const FRAGMENT_SAMPLE_REACH: u64 = 10;
/// Half-width, in standard deviations, of the learned range of fragment lengths.
const STRETCH_DEVIATIONS: f64 = 4.0;
/// The largest penalty for an unlikely fragment length: far beyond any score difference
/// between two placements, and far from overflowing a score sum when subtracted.
const MAX_LENGTH_PENALTY: i32 = 1 << 20;

impl FragmentModel {
    /// The model of the batch whose mates' places are `mates` (two per pair).
    pub(super) fn learn(pairing: &PairParams, mates: &[MatePlaces]) -> Self {
        let reach = PairParams {
            min_fragment: 0,
            max_fragment: FRAGMENT_SAMPLE_REACH.saturating_mul(pairing.max_fragment.max(1)),
            ..pairing.clone()
        };
        let mut lengths: Vec<u64> = mates
            .chunks_exact(2)
            .filter(|m| m[0].places.len() == 1 && m[1].places.len() == 1)
            .filter(|m| reach.classify(&m[0].places[0], &m[1].places[0]) == PairFit::Concordant)
            .map(|m| fragment_length(&m[0].places[0], &m[1].places[0]))
            .collect();
        if lengths.len() < MIN_FRAGMENT_SAMPLE {
            return Self {
                lengths: None,
                stretch: None,
            };
        }
        lengths.sort_unstable();
        let quartile = |q: usize| lengths[(lengths.len() - 1) * q / 4] as f64;
        let (p25, p75) = (quartile(1), quartile(3));
        // BWA-MEM's outlier bounds: three interquartile ranges beyond the quartiles.
        let (low, high) = (p25 - 3.0 * (p75 - p25), p75 + 3.0 * (p75 - p25));
        let kept: Vec<f64> = lengths
            .iter()
            .map(|&l| l as f64)
            .filter(|&l| l >= low && l <= high)
            .collect();
        let mean = kept.iter().sum::<f64>() / kept.len() as f64;
        let variance = kept.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / kept.len() as f64;
        let sd = variance.sqrt().max(1.0);
        let widened = PairParams {
            min_fragment: pairing
                .min_fragment
                .min((mean - STRETCH_DEVIATIONS * sd).max(0.0) as u64),
            max_fragment: pairing
                .max_fragment
                .max((mean + STRETCH_DEVIATIONS * sd) as u64),
            ..pairing.clone()
        };
        let adds = widened.min_fragment < pairing.min_fragment
            || widened.max_fragment > pairing.max_fragment;
        Self {
            lengths: Some((mean, sd)),
            stretch: adds.then_some(widened),
        }
    }

    /// Orders equally scored concordant pairs `combos` so that the pairs whose mates are
    /// likeliest to be at their true places come first, and returns how many lead
    /// equally (chosen between by a hash of the pair).
    ///
    /// Each pair is as likely as its fragment length (the learned normal density; all
    /// alike without a learned distribution). A mate's place is as likely as all the
    /// pairs that hold it together, and a pair ranks by its two places' likelihoods
    /// summed: the number of its mates expected to be right. In a tandem repeat of
    /// period `d`, each copy's own pair has the true length `L`, and the two crossing
    /// pairs `L − d` and `L + d`; the crossing pair at the likelier of those two shares
    /// each of its places with a pair of length `L`, so it places more mates right than
    /// either pair of length `L`.
    pub(super) fn rank_equal_pairs(
        &self,
        combos: &mut [Combination],
        m1: &MatePlaces,
        m2: &MatePlaces,
    ) -> usize {
        if combos.len() < 2 {
            return combos.len();
        }
        let z = |c: &Combination| match self.lengths {
            Some((mean, sd)) => {
                (fragment_length(&m1.places[c.1], &m2.places[c.2]) as f64 - mean).abs() / sd
            }
            None => 0.0,
        };
        let nearest = combos.iter().map(z).fold(f64::INFINITY, f64::min);
        let mut at1 = vec![0.0; m1.places.len()];
        let mut at2 = vec![0.0; m2.places.len()];
        for c in combos.iter() {
            // The density relative to the likeliest pair's, so none that matters
            // underflows to 0.
            let weight = (-(z(c).powi(2) - nearest.powi(2)) / 2.0).exp();
            at1[c.1] += weight;
            at2[c.2] += weight;
        }
        let expected = |c: &Combination| at1[c.1] + at2[c.2];
        let top = combos.iter().map(expected).fold(0.0, f64::max);
        // Expected counts on a fixed grid, so sums of the same weights in another
        // order tie exactly.
        let key = |c: &Combination| (expected(c) / top * f64::from(1u32 << 30)).round() as u64;
        combos.sort_by_key(|c| (std::cmp::Reverse(key(c)), c.1, c.2));
        let lead = key(&combos[0]);
        combos.iter().take_while(|c| key(c) == lead).count()
    }

    /// How unlikely a fragment `length` is, in score: BWA-MEM's
    /// `0.721 · ln(2 · erfc(z / √2))` at +1 per match, scaled to mismatches of `unit`
    /// (BWA-MEM's mismatch costs 5 of its match units); 0 without a learned
    /// distribution.
    ///
    /// At most [`MAX_LENGTH_PENALTY`]: a length tens of deviations out (a concordant pair
    /// far inside a wide `-X`) has a tail probability below what a float holds, and its
    /// penalty is taken from the logarithm, so that it stays finite and the score
    /// arithmetic cannot overflow.
    pub(super) fn length_penalty(&self, length: u64, unit: i32) -> i32 {
        let Some((mean, sd)) = &self.lengths else {
            return 0;
        };
        let z = (length as f64 - mean).abs() / sd;
        let unlikelihood =
            -0.721 * (std::f64::consts::LN_2 + ln_erfc(z / std::f64::consts::SQRT_2));
        (unlikelihood * f64::from(unit) / 5.0)
            .clamp(0.0, f64::from(MAX_LENGTH_PENALTY))
            .round() as i32
    }

    /// How unlikely a non-concordant combination of two mate places is as a fragment,
    /// in score: as a stretched pair is ([`FragmentModel::length_penalty`]) inside the
    /// learned range of lengths; else one mismatch (`unit`) for mates close together on
    /// one contig (a fragment just outside the limits, or a tandem copy), five for mates
    /// far apart.
    pub(super) fn rival_penalty(
        &self,
        pairing: &PairParams,
        p1: &Placement,
        p2: &Placement,
        unit: i32,
    ) -> i32 {
        match &self.stretch {
            Some(widened) if widened.classify(p1, p2) == PairFit::Concordant => {
                self.length_penalty(fragment_length(p1, p2), unit)
            }
            _ if close_together(pairing, p1, p2) => unit,
            _ => 5 * unit,
        }
    }

    /// The best stretched pair (outside `-I/-X`, inside the learned range) of the
    /// mates' places: its score sum lowered by how unlikely its length is
    /// ([`Self::length_penalty`]), then mate 1's and mate 2's place. `None` with
    /// `--no-discordant`.
    pub(super) fn best_stretched(
        &self,
        pairing: &PairParams,
        m1: &MatePlaces,
        m2: &MatePlaces,
        unit: i32,
    ) -> Option<Combination> {
        let widened = self.stretch.as_ref()?;
        if !pairing.discordant {
            return None;
        }
        let mut best: Option<Combination> = None;
        for (a, p1) in m1.places.iter().enumerate() {
            for (b, p2) in m2.places.iter().enumerate() {
                if widened.classify(p1, p2) != PairFit::Concordant
                    || pairing.classify(p1, p2) == PairFit::Concordant
                {
                    continue;
                }
                let score =
                    p1.score + p2.score - self.length_penalty(fragment_length(p1, p2), unit);
                if best.is_none_or(|c| score > c.0) {
                    best = Some((score, a, b));
                }
            }
        }
        best
    }
}

/// Whether two mate places lie close together on one contig (within four times `-X`):
/// a fragment just outside the limits, or a tandem copy.
fn close_together(pairing: &PairParams, p1: &Placement, p2: &Placement) -> bool {
    let near = pairing.max_fragment.saturating_mul(4);
    p1.contig == p2.contig && p1.position.abs_diff(p2.position) <= near
}

/// The natural logarithm of the complementary error function at `x >= 0` (Numerical
/// Recipes' `erfcc`, relative error of erfc below 1.2e-7), for the fragment model's tail
/// probabilities: taken as a logarithm, it does not underflow to 0 far in the tail,
/// where erfc itself (below 1e-308 past x = 26.5) would.
fn ln_erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    t.ln() + poly
}

#[cfg(test)]
mod tests {
    use super::{close_together, ln_erfc, FragmentModel, MAX_LENGTH_PENALTY};
    use crate::aligner::pairs::tests::places_at;
    use crate::aligner::pairs::{Combination, MatePlaces};
    use crate::pair::{PairFit, PairParams};

    /// A tandem repeat of period 80: each mate has two equal places, 80 bases apart, and
    /// the true fragment is 410 bases long (the learned mean 400, sd 60). Each copy's
    /// own pair (410) is the likeliest pair, but the crossing pair (330 bases: mate 1 in
    /// the second copy, mate 2 in the first) holds each mate at the place that the
    /// likelier pairs share, so it places more mates right, and it alone leads.
    #[test]
    fn equal_pairs_rank_by_the_mates_likely_right() {
        let model = FragmentModel {
            lengths: Some((400.0, 60.0)),
            stretch: None,
        };
        let m1 = places_at(&[1_000, 1_080], false);
        let m2 = places_at(&[1_310, 1_390], true);
        let mut combos: Vec<Combination> = vec![(0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1)];
        assert_eq!(model.rank_equal_pairs(&mut combos, &m1, &m2), 1);
        assert_eq!((combos[0].1, combos[0].2), (1, 0));
        // At the mean, each pair places as many mates right as any other: all tie.
        let m2 = places_at(&[1_300, 1_380], true);
        assert_eq!(model.rank_equal_pairs(&mut combos, &m1, &m2), 4);
        // Without learned lengths, pairs are alike, and so are their mates' places.
        let flat = FragmentModel {
            lengths: None,
            stretch: None,
        };
        assert_eq!(flat.rank_equal_pairs(&mut combos, &m1, &m2), 4);
    }

    #[test]
    fn ln_erfc_matches_tabulated_values() {
        // erfc(x) as mantissa · 10^exponent (the last is below what an f64 holds).
        for (x, mantissa, exponent) in [
            (0.0, 1.0, 0),
            (0.5, 0.479_500_122, 0),
            (1.0, 0.157_299_207, 0),
            (2.0, 0.004_677_735, 0),
            (4.0, 1.541_725_790, -8),
            (30.0, 2.564_656_204, -393),
        ] {
            let want: f64 = f64::ln(mantissa) + f64::from(exponent) * std::f64::consts::LN_10;
            let got = ln_erfc(x);
            assert!(
                (got - want).abs() <= 2e-7,
                "ln erfc({x}) = {got}, not {want}"
            );
        }
    }

    #[test]
    fn the_largest_fragment_limit_does_not_overflow() {
        let pairing = PairParams {
            max_fragment: u64::MAX,
            ..PairParams::default()
        };
        let mates: Vec<MatePlaces> = (0..20)
            .flat_map(|i| {
                [
                    places_at(&[1000 * i], false),
                    places_at(&[1000 * i + 300 + i], true),
                ]
            })
            .collect();
        let model = FragmentModel::learn(&pairing, &mates);
        let (mean, _) = model.lengths.expect("20 unambiguous pairs");
        assert!((400.0..420.0).contains(&mean), "{mean}");
        let (first, last) = (&mates[0].places[0], &mates[39].places[0]);
        assert!(close_together(&pairing, first, last));
        assert_eq!(pairing.classify(first, last), PairFit::Concordant);
    }

    #[test]
    fn far_fragment_lengths_have_a_finite_growing_penalty() {
        let model = FragmentModel {
            lengths: Some((400.0, 60.0)),
            stretch: None,
        };
        let unit = 6;
        assert_eq!(model.length_penalty(400, unit), 0);
        let lengths = [460, 700, 2_000, 2_700, 5_000, 10_000, 100_000, u64::MAX];
        let penalties: Vec<i32> = lengths
            .iter()
            .map(|&l| model.length_penalty(l, unit))
            .collect();
        assert!(
            penalties
                .windows(2)
                .all(|w| w[0] < w[1] || w[1] == MAX_LENGTH_PENALTY),
            "{penalties:?}"
        );
        // 2,700 bases is 38 deviations out: its tail probability is below f64's range.
        assert!(penalties[3] > penalties[2] && penalties[3] < MAX_LENGTH_PENALTY);
        assert_eq!(*penalties.last().unwrap(), MAX_LENGTH_PENALTY);
    }
}
