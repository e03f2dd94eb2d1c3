//! [`Aligner::align_pairs`]: both mates of every pair of a batch aligned together, then
//! paired (see [`crate::pair`]).
//!
//! 1. Both mates of every pair go through the single-read pipeline as one batch, each
//!    keeping up to [`MATE_PLACEMENTS`] distinct places (best first).
//! 2. Every combination of a mate-1 place and a mate-2 place is classified; the
//!    concordant combination with the highest score sum is the pair (among equal sums,
//!    the one whose mates the learned fragment lengths make likeliest right).
//! 3. Pairs with no concordant combination, or whose best one leaves out a mate's best
//!    place, or where a place tied for a mate's best has no partner, get mate rescue:
//!    for each of the best [`RESCUE_ANCHORS`](rescue::RESCUE_ANCHORS) places of either
//!    mate (every place tied for the best when more tie,
//!    [`rescue_anchors`](rescue::rescue_anchors)), the other mate is aligned by the
//!    banded SIMD dynamic programme over the whole window where a concordant place
//!    could lie (tiles of 129 diagonals), and the places found join that mate's list.
//!    Then step 2 again.
//! 4. Still no concordant pair: a discordant pair when both mates aligned uniquely,
//!    else each mate on its own (unless `--no-mixed`).
//!
//! Two outcomes beat the best concordant pair, as in BWA-MEM: a pair just outside
//! `-I/-X` that the batch's learned fragment lengths make likely (reported as
//! discordant, see [`FragmentModel`]), and the mates' own best places when they score
//! more than [`UNPAIRED_PENALTY`] mismatches above the pair.
//!
//! The mapping quality of a concordant mate is pair-aware: the pair's own quality (from
//! the best and second-best concordant score sums) lifts the mate's single-read
//! quality by at most 40, as BWA-MEM does, so a mate in a repeat is placed confidently
//! by a unique mate but never above what the pair supports.
//!
//! The fragment model is in [`fragments`], mate rescue in [`rescue`], what the chosen pair
//! is weighed against in [`rivals`].

mod fragments;
mod rescue;
mod rivals;
#[cfg(test)]
mod tests;

use super::{read_hash, Aligner, ReadInput, ReadResult, Unaligned};
use crate::candidate::Placement;
use crate::mapq::{bowtie2_mapq, pair_mapq, Bowtie2MapqVersion, Bowtie2Scores, MapqModel};
use crate::pair::{MateOrientation, PairClass, PairFit, PairInput, PairParams, PairResult};
use fragments::FragmentModel;
use rescue::{needs_rescue, unpartnered};
use rivals::{best_elsewhere, best_rival, mates_alone_better};

/// Places kept per mate for pairing.
const MATE_PLACEMENTS: usize = 8;
/// A single-read quality is lifted by at most this much by its pair.
const PAIR_LIFT: u8 = 40;
/// How many mismatches' worth of score the mates' own best places must gain over the
/// best concordant pair before the pair is given up (BWA-MEM's unpaired penalty, 17 at
/// its scores of +1 per match and -4 per mismatch, is 3.4 mismatches).
const UNPAIRED_PENALTY: i32 = 3;

/// One mate's candidate places during pairing.
#[derive(Debug, Clone, Default)]
struct MatePlaces {
    /// Distinct places, the single-read pipeline's best first.
    places: Vec<Placement>,
    /// How many of `places` came from the single-read pipeline (the rest from rescue).
    searched: usize,
    /// The single-read mapping quality of `places[0]`.
    single_mapq: u8,
    /// The best score at another place, as the single-read pipeline found it.
    second_best: Option<i32>,
    /// Why the mate has no place, when it has none.
    unaligned: Option<Unaligned>,
    /// The mate's length.
    read_len: usize,
    /// When bowtie2 meets each place (see `Aligner::bowtie2_meets`; `u64::MAX`: never,
    /// or seqfarm's own mapping quality).
    met: Vec<u64>,
}

impl MatePlaces {
    /// Whether the places are a sample of a repeat: every place the single-read
    /// pipeline kept ties for the best and it kept as many as it may (`limit`), so more
    /// equally good places may have been left out (a repeat of many copies), and the
    /// kept ones are in no useful order.
    fn is_sample(&self, limit: usize) -> bool {
        self.searched >= limit && tied_best(self) == self.searched
    }
}

/// A concordant combination: score sum, index into mate 1's and mate 2's places.
type Combination = (i32, usize, usize);

impl Aligner<'_> {
    /// Aligns `pairs`; `results[i]` is pair `i`'s outcome. Each pair's result depends on
    /// that pair and on the fragment lengths learned from the whole batch, so the same
    /// batches give the same output at any thread count.
    pub fn align_pairs(
        &mut self,
        pairs: &[PairInput<'_>],
        pairing: &PairParams,
        results: &mut Vec<PairResult>,
    ) {
        let reads: Vec<ReadInput<'_>> = pairs.iter().flat_map(|p| p.mates).collect();
        let mut single = Vec::new();
        let kept = std::mem::replace(&mut self.kept_placements, MATE_PLACEMENTS);
        let strands = mate_strands(
            pairing,
            [self.params.align_forward, self.params.align_reverse],
        );
        self.mates = true;
        self.align_reads(&reads, |i| strands[i % 2], &mut single);
        self.mates = false;
        self.kept_placements = kept;
        let mut mates: Vec<MatePlaces> = single
            .into_iter()
            .zip(&reads)
            .enumerate()
            .map(|(i, (result, read))| {
                let mut m = MatePlaces {
                    read_len: read.bases.len(),
                    ..mate_places(result)
                };
                m.met = self.prepared[i].met.clone();
                m.met.resize(m.places.len(), u64::MAX);
                m
            })
            .collect();
        let pair_combos =
            |mates: &[MatePlaces], i: usize| concordant(pairing, &mates[2 * i], &mates[2 * i + 1]);
        let mut combos: Vec<Vec<Combination>> =
            (0..pairs.len()).map(|i| pair_combos(&mates, i)).collect();
        let every_place = self.bowtie2_runner_ups();
        let unpaired: Vec<usize> = (0..pairs.len())
            .filter(|&i| {
                let (m1, m2) = (&mates[2 * i], &mates[2 * i + 1]);
                needs_rescue(m1, m2, &combos[i])
                    || (every_place && !unpartnered(m1, m2, &combos[i]).is_empty())
            })
            .collect();
        if !unpaired.is_empty() {
            self.rescue(&unpaired, pairing, &mut mates);
            for &i in &unpaired {
                combos[i] = pair_combos(&mates, i);
            }
        }
        let fragments = FragmentModel::learn(pairing, &mates);
        results.clear();
        for ((i, pair), combos) in pairs.iter().enumerate().zip(combos) {
            let (m1, m2) = (&mates[2 * i], &mates[2 * i + 1]);
            results.push(self.conclude_pair(pair, m1, m2, combos, pairing, &fragments));
        }
    }

    /// bowtie2's mapping qualities of the mates `mates` of a concordant or discordant
    /// pair, reported at their places `chosen`, the next concordant pair scoring
    /// `second` (bowtie2's default model rates both mates by the two score sums; its
    /// other models each mate by its own score and second best).
    fn bowtie2_pair_mapqs(
        &self,
        version: Bowtie2MapqVersion,
        mates: [&MatePlaces; 2],
        chosen: [usize; 2],
        second: Option<i32>,
    ) -> [MateQuality; 2] {
        let scoring = &self.params.scoring;
        let own = |k: usize| {
            let m = mates[k];
            let score = m.places[chosen[k]].score;
            scoring.bowtie2_scores(score, best_elsewhere(m, chosen[k]), m.read_len)
        };
        let [a, b] = [own(0), own(1)];
        let quality = |scores: &Bowtie2Scores| {
            MateQuality::Own(bowtie2_mapq(version, scores, scoring.monotone(), true))
        };
        if version.rates_pairs_by_sums() {
            let sums = Bowtie2Scores {
                best: a.best + b.best,
                second: second.map(i64::from),
                min: a.min + b.min,
                perfect: a.perfect + b.perfect,
            };
            [quality(&sums); 2]
        } else {
            [quality(&a), quality(&b)]
        }
    }

    /// The score sum of the second concordant pair bowtie2 reports for the pair whose
    /// concordant combinations are `combos`, the reported one first: as for a read
    /// (`bowtie2::second_best_met`), each pair met when the first of its two places is.
    fn second_pair_met(
        &self,
        m1: &MatePlaces,
        m2: &MatePlaces,
        combos: &[Combination],
    ) -> Option<i32> {
        let best = combos.first()?.0;
        let perfect = self.params.scoring.perfect_score(m1.read_len)
            + self.params.scoring.perfect_score(m2.read_len);
        let others = combos[1..]
            .iter()
            .map(|&(score, a, b)| (m1.met[a].min(m2.met[b]), score))
            .collect();
        super::bowtie2::second_best_met(best, perfect, others)
    }

    /// The mapping quality of a mate reported on its own: its single-read quality, or,
    /// by bowtie2's model, that of its best place against every other place found for
    /// it, by its own search or its mate's rescue.
    fn mate_alone_mapq(&self, m: &MatePlaces, chosen: usize) -> u8 {
        match self.params.mapq {
            MapqModel::Calibrated => m.single_mapq,
            MapqModel::Bowtie2(version) => {
                let scoring = &self.params.scoring;
                let second = best_elsewhere(m, chosen);
                bowtie2_mapq(
                    version,
                    &scoring.bowtie2_scores(m.places[chosen].score, second, m.read_len),
                    scoring.monotone(),
                    false,
                )
            }
        }
    }

    /// Whether a mate aligned at one place only, as a discordant pair needs: with
    /// bowtie2's mapping quality, a place the search beside its partner found counts
    /// too, as bowtie2 keeps every alignment it finds of a mate, by its seeds or by
    /// that search, and pairs discordantly only mates with one each.
    fn unique_mate(&self, m: &MatePlaces) -> bool {
        self.places_found(m) == 1 && m.second_best.is_none()
    }

    /// How many of a mate's places count as found: with bowtie2's mapping quality,
    /// those found near its partner too (bowtie2's mate search finds them), else those
    /// its own search found.
    fn places_found(&self, m: &MatePlaces) -> usize {
        if self.bowtie2_runner_ups() {
            m.places.len()
        } else {
            m.searched
        }
    }

    /// The pair's outcome from its mates' places and their concordant combinations
    /// (`combos`, as [`concordant`] lists them).
    fn conclude_pair(
        &self,
        pair: &PairInput<'_>,
        m1: &MatePlaces,
        m2: &MatePlaces,
        mut combos: Vec<Combination>,
        pairing: &PairParams,
        fragments: &FragmentModel,
    ) -> PairResult {
        let unit = self.params.scoring.mismatch_max + self.params.scoring.match_bonus;
        let lens = [pair.mates[0].bases.len(), pair.mates[1].bases.len()];
        // When both mates' places are samples of many equally good ones, the pairs
        // found are a sample too: other copies of the repeat may pair as well, so the
        // pair is reported as one of several equal ones (MAPQ 0), however few were found.
        let limit = self.params.report.max(MATE_PLACEMENTS);
        let sampled = m1.is_sample(limit) && m2.is_sample(limit);
        let quality_ties = |ties: usize| if sampled { ties.max(3) } else { ties };
        let best_concordant = combos.first().map(|c| c.0);
        // A concordant pair's score sum lowered by how unlikely its own length is, as a
        // stretched pair's is: pairs are compared, and their MAPQ measured, by it.
        let weighed = |c: &Combination| {
            let length = fragment_length(&m1.places[c.1], &m2.places[c.2]);
            c.0 - fragments.length_penalty(length, unit)
        };
        // The best concordant pair so weighed (the likeliest of the best-scoring ones).
        let concordant_weighed = best_concordant
            .and_then(|best| combos.iter().take_while(|c| c.0 == best).map(weighed).max());
        // A stretched pair scores at most the mates' best places, less a penalty: when
        // the best concordant pair already pairs them at a likely length, none is
        // looked for.
        let top = |m: &MatePlaces| m.places.iter().map(|p| p.score).max();
        let unbeatable = concordant_weighed.is_some()
            && concordant_weighed == top(m1).zip(top(m2)).map(|(s1, s2)| s1 + s2);
        let stretched = if unbeatable {
            None
        } else {
            fragments.best_stretched(pairing, m1, m2, unit)
        };
        if let Some(stretched) = stretched {
            if concordant_weighed.is_none_or(|b| stretched.0 > b)
                && !mates_alone_better(pairing, m1, m2, stretched.0, unit)
            {
                let (a, b) = (stretched.1, stretched.2);
                if self.bowtie2_runner_ups() && !(self.unique_mate(m1) && self.unique_mate(m2)) {
                    // bowtie2 has no such pair: it reports mates with other places
                    // found each on its own.
                    let alone = |m: &MatePlaces, chosen: usize| ReadResult::Aligned {
                        placements: vec![m.places[chosen].clone()],
                        second_best: best_elsewhere(m, chosen),
                        mapq: self.mate_alone_mapq(m, chosen),
                    };
                    return PairResult {
                        class: PairClass::Unpaired,
                        mates: [alone(m1, a), alone(m2, b)],
                        other_pairs: false,
                    };
                }
                let other = best_rival(pairing, fragments, m1, m2, unit, Some((a, b)));
                let rival = [concordant_weighed, other.map(|r| r.0)]
                    .into_iter()
                    .flatten()
                    .max();
                let quality = match self.params.mapq {
                    MapqModel::Bowtie2(version) => {
                        self.bowtie2_pair_mapqs(version, [m1, m2], [a, b], None)
                    }
                    MapqModel::Calibrated => {
                        [MateQuality::Lifted(pair_mapq(
                            &self.params.scoring,
                            stretched.0,
                            rival,
                            quality_ties(1),
                            lens,
                        )); 2]
                    }
                };
                return PairResult {
                    class: PairClass::Discordant,
                    mates: [
                        paired_mate(m1, vec![m1.places[a].clone()], a, quality[0]),
                        paired_mate(m2, vec![m2.places[b].clone()], b, quality[1]),
                    ],
                    other_pairs: false,
                };
            }
        }
        let best = match best_concordant {
            Some(b) if !mates_alone_better(pairing, m1, m2, b, unit) => b,
            _ => return self.unpaired(m1, m2, pairing),
        };
        let tied = combos.iter().take_while(|c| c.0 == best).count();
        let ties = fragments.rank_equal_pairs(&mut combos[..tied], m1, m2);
        if ties > 1 {
            let seed = self.params.tie_seed;
            let hash =
                read_hash(&pair.mates[0], seed) ^ read_hash(&pair.mates[1], seed).rotate_left(1);
            combos.swap(0, (hash % ties as u64) as usize);
        }
        let rival_combination = best_rival(pairing, fragments, m1, m2, unit, None);
        let second = combos[1..].iter().map(weighed).max();
        let rival = [second, rival_combination.map(|r| r.0)]
            .into_iter()
            .flatten()
            .max();
        let reported = &combos[..combos.len().min(self.params.report.max(1))];
        let (a, b) = (reported[0].1, reported[0].2);
        let pair_quality = match self.params.mapq {
            MapqModel::Bowtie2(version) => {
                let second = self.second_pair_met(m1, m2, &combos);
                self.bowtie2_pair_mapqs(version, [m1, m2], [a, b], second)
            }
            MapqModel::Calibrated => {
                [MateQuality::Lifted(pair_mapq(
                    &self.params.scoring,
                    weighed(&combos[0]),
                    rival,
                    quality_ties(ties),
                    lens,
                )); 2]
            }
        };
        let placements = |m: &MatePlaces, pick: fn(&Combination) -> usize| {
            reported.iter().map(|c| m.places[pick(c)].clone()).collect()
        };
        PairResult {
            class: PairClass::Concordant,
            mates: [
                paired_mate(m1, placements(m1, |c| c.1), a, pair_quality[0]),
                paired_mate(m2, placements(m2, |c| c.2), b, pair_quality[1]),
            ],
            other_pairs: combos.len() > 1,
        }
    }

    /// No concordant pair: discordant when both mates aligned uniquely, else each mate
    /// on its own (`--no-mixed`: none).
    fn unpaired(&self, m1: &MatePlaces, m2: &MatePlaces, pairing: &PairParams) -> PairResult {
        let unique = |m: &MatePlaces| self.unique_mate(m);
        // bowtie2 finds discordant pairs among the mates' own alignments, which it keeps
        // only when mates may be reported alone; with `--no-mixed`, only those its
        // search for a mate beside its aligned mate finds.
        let found = |m1: &MatePlaces, m2: &MatePlaces| {
            pairing.mixed || pairing.near_miss(&m1.places[0], &m2.places[0])
        };
        let class = if pairing.discordant && unique(m1) && unique(m2) && found(m1, m2) {
            PairClass::Discordant
        } else {
            PairClass::Unpaired
        };
        let report = self.params.report.max(1);
        let discordant_quality = match (class, self.params.mapq) {
            (PairClass::Discordant, MapqModel::Bowtie2(version)) => Some(
                self.bowtie2_pair_mapqs(version, [m1, m2], [0, 0], None)
                    .map(MateQuality::value),
            ),
            _ => None,
        };
        let single = |m: &MatePlaces, mate: usize| {
            // A discordant mate is reported at the place that made it unique, which in
            // bowtie2 mode may be one found around its partner only.
            let found = if class == PairClass::Discordant {
                self.places_found(m)
            } else {
                m.searched
            };
            // A mate the filters dropped says why (`YF:Z`) with or without `--no-mixed`.
            if found == 0 {
                return ReadResult::Unaligned(m.unaligned.unwrap_or(Unaligned::NoAlignment));
            }
            if class == PairClass::Unpaired && !pairing.mixed {
                return ReadResult::Unaligned(Unaligned::NoAlignment);
            }
            ReadResult::Aligned {
                placements: m.places[..found.min(report)].to_vec(),
                second_best: m.second_best,
                mapq: discordant_quality.map_or_else(|| self.mate_alone_mapq(m, 0), |q| q[mate]),
            }
        };
        PairResult {
            class,
            mates: [single(m1, 0), single(m2, 1)],
            other_pairs: false,
        }
    }
}

/// The strands each mate may align on (`[forward, reverse]`), from whether the
/// fragment may align forward and reverse (`--nofw`, `--norc`): a fragment aligns
/// forward when mate 1 is the upstream mate (mate 1 forward for `--fr` and `--ff`,
/// reverse-complemented for `--rf`), as bowtie2 applies the options to pairs.
fn mate_strands(pairing: &PairParams, fragment: [bool; 2]) -> [[bool; 2]; 2] {
    let [forward, reverse] = fragment;
    // Whether each mate is reverse-complemented in a forward fragment.
    let flipped = match pairing.orientation {
        MateOrientation::Fr => [false, true],
        MateOrientation::Rf => [true, false],
        MateOrientation::Ff => [false, false],
    };
    flipped.map(|f| {
        if f {
            [reverse, forward]
        } else {
            [forward, reverse]
        }
    })
}

/// A mate's places from its single-read outcome.
fn mate_places(result: ReadResult) -> MatePlaces {
    match result {
        ReadResult::Aligned {
            placements,
            second_best,
            mapq,
        } => MatePlaces {
            searched: placements.len(),
            places: placements,
            single_mapq: mapq,
            second_best,
            ..MatePlaces::default()
        },
        ReadResult::Unaligned(why) => MatePlaces {
            unaligned: Some(why),
            ..MatePlaces::default()
        },
    }
}

/// Every concordant combination of the mates' places, best score sum first (then in
/// the mates' place order, so the result is deterministic).
fn concordant(pairing: &PairParams, m1: &MatePlaces, m2: &MatePlaces) -> Vec<Combination> {
    let mut combos = Vec::new();
    for (a, p1) in m1.places.iter().enumerate() {
        for (b, p2) in m2.places.iter().enumerate() {
            if pairing.classify(p1, p2) == PairFit::Concordant {
                combos.push((p1.score + p2.score, a, b));
            }
        }
    }
    combos.sort_by_key(|&(score, a, b)| (std::cmp::Reverse(score), a, b));
    combos
}

/// The fragment length of two mate places (outer ends, soft clips counted).
fn fragment_length(p1: &Placement, p2: &Placement) -> u64 {
    let (lo1, end1) = crate::pair::outer_extent(p1);
    let (lo2, end2) = crate::pair::outer_extent(p2);
    (end1.max(end2) - lo1.min(lo2)).unsigned_abs()
}

/// A mate of a pair reported at `placements` (the chosen one, `m.places[chosen]`,
/// first) with the pair's quality `pair_quality`: the mate's own single-read quality
/// counts when the pair chose one of its best places, lifted by the pair by at most
/// [`PAIR_LIFT`].
fn paired_mate(
    m: &MatePlaces,
    placements: Vec<Placement>,
    chosen: usize,
    quality: MateQuality,
) -> ReadResult {
    let mapq = match quality {
        MateQuality::Own(q) => q,
        MateQuality::Lifted(pair_quality) => {
            let single = if chosen < m.searched && m.places[chosen].score == m.places[0].score {
                m.single_mapq
            } else {
                0
            };
            single.max(pair_quality.min(single.saturating_add(PAIR_LIFT)))
        }
    };
    ReadResult::Aligned {
        placements,
        second_best: best_elsewhere(m, chosen),
        mapq,
    }
}

/// How a paired mate's mapping quality follows from its pair's.
#[derive(Debug, Clone, Copy)]
enum MateQuality {
    /// The mate's quality as it is (bowtie2's models).
    Own(u8),
    /// The mate's single-read quality lifted towards the pair's (the calibrated model).
    Lifted(u8),
}

impl MateQuality {
    /// The quality a bowtie2 model gave, or the pair's before the lift.
    fn value(self) -> u8 {
        match self {
            MateQuality::Own(q) | MateQuality::Lifted(q) => q,
        }
    }
}

/// How many of mate `m`'s first searched places tie for its best score (0 without
/// places).
fn tied_best(m: &MatePlaces) -> usize {
    let searched = &m.places[..m.searched];
    searched.first().map_or(0, |best| {
        searched
            .iter()
            .take_while(|p| p.score == best.score)
            .count()
    })
}
