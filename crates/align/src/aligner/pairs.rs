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
//!    for each of the best [`RESCUE_ANCHORS`] places of either mate (every place tied
//!    for the best when more tie, [`rescue_anchors`]), the other mate is aligned by the
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

use std::ops::Range;

use super::{oriented_in, read_hash, Aligner, ReadInput, ReadResult, Unaligned};
use crate::candidate::{fetch_window, n_columns, place, Placement};
use crate::dp::ExtendJob;
use crate::mapq::{bowtie2_mapq, pair_mapq, Bowtie2MapqVersion, Bowtie2Scores, MapqModel};
use crate::pair::{MateOrientation, PairClass, PairFit, PairInput, PairParams, PairResult};

/// Places kept per mate for pairing.
const MATE_PLACEMENTS: usize = 8;
/// Places of a mate that anchor a rescue of the other, at least: more when more of its
/// searched places tie for its best score (see [`rescue_anchors`]).
const RESCUE_ANCHORS: usize = 3;
/// Band half-width of the rescue jobs: each covers `2·64 + 1` diagonals.
const RESCUE_BAND: usize = 64;
/// Diagonals shared by neighbouring rescue tiles (room for an indel at a seam).
const RESCUE_TILE_OVERLAP: usize = 16;
/// Most rescue tiles per anchor (a window of about 14 kbp; larger `-X` are searched
/// near the anchor's side up to that).
const MAX_RESCUE_TILES: usize = 128;
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

/// A rescue job: align mate `mate` of pair `pair` on strand `reverse` in a window.
#[derive(Debug, Clone)]
struct RescueJob {
    pair: usize,
    mate: usize,
    reverse: bool,
    window: Range<usize>,
    window_start: i64,
    /// When bowtie2 meets the anchor place (it searches the partner right after).
    met: u64,
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

    /// Mate rescue for `which` pairs: aligns each mate in the windows its mate's places
    /// define ([`Aligner::rescue_anchor_places`]), adding what it finds to its places.
    fn rescue(&mut self, which: &[usize], pairing: &PairParams, mates: &mut [MatePlaces]) {
        self.windows.clear();
        let mut jobs: Vec<RescueJob> = Vec::new();
        for &i in which {
            for anchor_mate in 0..2 {
                let other = 1 - anchor_mate;
                let len = self.read_len(2 * i + other);
                // Reads too short for the fragment, or that a filter dropped, are not aligned
                // at all.
                let filtered = mates[2 * i + other]
                    .unaligned
                    .is_some_and(Unaligned::filtered);
                if filtered || len == 0 || len as u64 > pairing.max_fragment {
                    continue;
                }
                let anchors =
                    self.rescue_anchor_places(pairing, &mates[2 * i..2 * i + 2], anchor_mate);
                for (a, fragment) in anchors {
                    let anchor = &mates[2 * i + anchor_mate].places[a];
                    let (reverse, mut window) = rescue_window(pairing, anchor, anchor_mate == 0);
                    if let Some(fragment) = fragment {
                        window = near_fragment(window, anchor, fragment, len);
                    }
                    if !self.prepared[2 * i + other].strands[usize::from(reverse)] {
                        continue;
                    }
                    let before = jobs.len();
                    self.queue_rescue(i, other, reverse, window, anchor.contig, len, &mut jobs);
                    let met = mates[2 * i + anchor_mate].met[a];
                    for job in &mut jobs[before..] {
                        job.met = met;
                    }
                }
            }
        }
        if jobs.is_empty() {
            return;
        }
        let specs: Vec<ExtendJob<'_>> = jobs
            .iter()
            .map(|job| {
                let (read, penalties) = oriented_in(
                    &self.prepared[2 * job.pair + job.mate],
                    job.reverse,
                    &self.codes,
                    &self.penalties,
                );
                ExtendJob {
                    read,
                    penalties,
                    window: &self.windows[job.window.clone()],
                    band: RESCUE_BAND,
                    min_score: self.params.scoring.min_score(read.len()),
                }
            })
            .collect();
        self.extender
            .extend(&specs, &self.params.scoring, &mut self.extensions);
        drop(specs);
        for (j, job) in jobs.iter().enumerate() {
            let Some(ext) = self.extensions[j].take() else {
                continue;
            };
            let (read, _) = self.oriented(2 * job.pair + job.mate, job.reverse);
            let window = &self.windows[job.window.clone()];
            if n_columns(read, window, &ext) > self.params.scoring.max_ns(read.len()) {
                continue;
            }
            let Some(found) = place(
                self.index,
                read,
                window,
                job.window_start,
                job.reverse,
                &ext,
            ) else {
                continue;
            };
            let target = &mut mates[2 * job.pair + job.mate];
            let known = target.places.iter().any(|p| {
                p.contig == found.contig
                    && p.reverse == found.reverse
                    && p.position == found.position
            });
            if !known {
                target.places.push(found);
                target.met.push(job.met);
            }
        }
    }

    /// The places of mate `anchor_mate` of the pair `mates` around which its partner is
    /// searched over the whole window `-X` allows: its best ones ([`rescue_anchors`]).
    /// With bowtie2's mapping quality, also every other place that pairs with none of
    /// the partner's, as bowtie2 searches for the partner beside every alignment it
    /// finds of a mate (a second concordant pair it so finds counts in its MAPQ): when
    /// the mates already pair elsewhere, only near where that pair's fragment length
    /// puts the partner (a paralog keeps its copy's layout), given with the place.
    fn rescue_anchor_places(
        &self,
        pairing: &PairParams,
        mates: &[MatePlaces],
        anchor_mate: usize,
    ) -> Vec<(usize, Option<i64>)> {
        let m = &mates[anchor_mate];
        let best = rescue_anchors(m);
        let mut anchors: Vec<(usize, Option<i64>)> = (0..best).map(|a| (a, None)).collect();
        if self.bowtie2_runner_ups() {
            let combos = concordant(pairing, &mates[0], &mates[1]);
            let fragment = combos.first().map(|&(_, a, b)| {
                let (lo1, end1) = crate::pair::aligned_extent(&mates[0].places[a]);
                let (lo2, end2) = crate::pair::aligned_extent(&mates[1].places[b]);
                end1.max(end2) - lo1.min(lo2)
            });
            let lonely = unpartnered(&mates[0], &mates[1], &combos);
            anchors.extend(
                lonely
                    .into_iter()
                    .filter(|&(mate, a)| mate == anchor_mate && a >= best)
                    .map(|(_, a)| (a, fragment)),
            );
        }
        anchors
    }

    /// Queues the rescue tiles of one window (global coordinates, clipped to the
    /// contig).
    #[allow(clippy::too_many_arguments)]
    fn queue_rescue(
        &mut self,
        pair: usize,
        mate: usize,
        reverse: bool,
        window: (i64, i64),
        contig: usize,
        len: usize,
        jobs: &mut Vec<RescueJob>,
    ) {
        let info = &self.index.contigs()[contig];
        let (contig_start, contig_end) = (info.offset, info.offset + info.len);
        let start = (contig_start as i64 + window.0).max(contig_start as i64);
        let end = (contig_start as i64 + window.1).min(contig_end as i64);
        if end - start < len as i64 {
            return;
        }
        // Diagonals (window-relative starts of the read) 0..=last.
        let last = (end - start) as usize - len;
        let span = 2 * RESCUE_BAND + 1;
        let stride = span - RESCUE_TILE_OVERLAP;
        let mut first = 0usize;
        for _ in 0..MAX_RESCUE_TILES {
            let tile_start = start + first as i64;
            let from = self.windows.len();
            fetch_window(
                self.index,
                tile_start,
                len + 2 * RESCUE_BAND,
                contig_start,
                contig_end,
                &mut self.scratch,
                &mut self.windows,
            );
            jobs.push(RescueJob {
                pair,
                mate,
                reverse,
                window: from..self.windows.len(),
                window_start: tile_start,
                met: u64::MAX,
            });
            if first + span > last {
                break;
            }
            first += stride;
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
        let found = if self.bowtie2_runner_ups() {
            m.places.len()
        } else {
            m.searched
        };
        found == 1 && m.second_best.is_none()
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
            // A mate the filters dropped says why (`YF:Z`) with or without `--no-mixed`.
            if m.searched == 0 {
                return ReadResult::Unaligned(m.unaligned.unwrap_or(Unaligned::NoAlignment));
            }
            if class == PairClass::Unpaired && !pairing.mixed {
                return ReadResult::Unaligned(Unaligned::NoAlignment);
            }
            ReadResult::Aligned {
                placements: m.places[..m.searched.min(report)].to_vec(),
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
struct FragmentModel {
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
    fn learn(pairing: &PairParams, mates: &[MatePlaces]) -> Self {
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
    fn rank_equal_pairs(
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
    fn length_penalty(&self, length: u64, unit: i32) -> i32 {
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
    fn rival_penalty(
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
    fn best_stretched(
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

/// Whether a pair's mates are worth rescuing, from their concordant `combos`
/// ([`concordant`]): no concordant combination while a mate aligned, the best
/// concordant combination leaves out a mate's best place (its partner there may not
/// have been among the other mate's places), or a place tied for a mate's best pairs
/// with none of the other mate's places: in a repeat, the other mate's copy beside it
/// may be one its own search did not find or keep, and without it the pair found looks
/// unique.
fn needs_rescue(m1: &MatePlaces, m2: &MatePlaces, combos: &[Combination]) -> bool {
    match combos.first() {
        None => !m1.places.is_empty() || !m2.places.is_empty(),
        Some(&(_, a, b)) => {
            m1.places[a].score < m1.places[0].score
                || m2.places[b].score < m2.places[0].score
                || unpaired_best(m1, combos, |c| c.1)
                || unpaired_best(m2, combos, |c| c.2)
        }
    }
}

/// Whether one of the searched places tied for mate `m`'s best is in none of the
/// concordant `combos` (`side` picks the mate's place from a combination).
fn unpaired_best(m: &MatePlaces, combos: &[Combination], side: fn(&Combination) -> usize) -> bool {
    (0..tied_best(m)).any(|k| !combos.iter().any(|c| side(c) == k))
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

/// Whether the mates' own best places, reported as a discordant pair or as unpaired
/// mates, beat the best concordant pair (score sum `concordant`) by more than
/// [`UNPAIRED_PENALTY`] mismatches (`unit`): BWA-MEM's rule for giving a pair up. Then
/// the concordant pair is a forced fit (a mate placed with many more differences in a
/// nearby repeat copy because its true place lies just past `-X`). Never with
/// `--no-mixed`, which would report no alignment at all instead.
fn mates_alone_better(
    pairing: &PairParams,
    m1: &MatePlaces,
    m2: &MatePlaces,
    concordant: i32,
    unit: i32,
) -> bool {
    if !pairing.mixed || m1.searched == 0 || m2.searched == 0 {
        return false;
    }
    let alone = m1.places[0].score + m2.places[0].score;
    alone - UNPAIRED_PENALTY * unit > concordant
}

/// The best non-concordant combination of the mates' places as a rival of the chosen
/// pair (score sum, mate-1 place, mate-2 place), its score sum lowered by how unlikely
/// it is as a fragment ([`FragmentModel::rival_penalty`]). The combination `except`
/// (the reported one, when it is not concordant) is left out.
fn best_rival(
    pairing: &PairParams,
    fragments: &FragmentModel,
    m1: &MatePlaces,
    m2: &MatePlaces,
    unit: i32,
    except: Option<(usize, usize)>,
) -> Option<Combination> {
    let mut rival: Option<Combination> = None;
    for (a, p1) in m1.places.iter().enumerate() {
        for (b, p2) in m2.places.iter().enumerate() {
            if pairing.classify(p1, p2) == PairFit::Concordant || except == Some((a, b)) {
                continue;
            }
            let score = p1.score + p2.score - fragments.rival_penalty(pairing, p1, p2, unit);
            if rival.is_none_or(|r| score > r.0) {
                rival = Some((score, a, b));
            }
        }
    }
    rival
}

/// Whether two mate places lie close together on one contig (within four times `-X`):
/// a fragment just outside the limits, or a tandem copy.
fn close_together(pairing: &PairParams, p1: &Placement, p2: &Placement) -> bool {
    let near = pairing.max_fragment.saturating_mul(4);
    p1.contig == p2.contig && p1.position.abs_diff(p2.position) <= near
}

/// The best score of a mate at a place other than `chosen` (`XS`).
fn best_elsewhere(m: &MatePlaces, chosen: usize) -> Option<i32> {
    let listed = m
        .places
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != chosen)
        .map(|(_, p)| p.score)
        .max();
    match (listed, m.second_best) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// How many of a mate's first places anchor a rescue of the other mate: the
/// [`RESCUE_ANCHORS`] best, or every searched place tied for its best score when more
/// tie. In a repeat of many copies a mate's best places are kept in an arbitrary order,
/// so the copy where both mates score best may be any of them; three anchors would
/// miss it and pair the mate with a worse copy of the other.
/// The places of the mates `m1` and `m2` that pair with none of the other's in
/// `combos`, as (mate, place).
fn unpartnered(m1: &MatePlaces, m2: &MatePlaces, combos: &[Combination]) -> Vec<(usize, usize)> {
    let lonely = |mate: usize, count: usize, side: fn(&Combination) -> usize| {
        (0..count)
            .filter(move |&k| !combos.iter().any(|c| side(c) == k))
            .map(move |k| (mate, k))
    };
    lonely(0, m1.places.len(), |c| c.1)
        .chain(lonely(1, m2.places.len(), |c| c.2))
        .collect()
}

fn rescue_anchors(m: &MatePlaces) -> usize {
    tied_best(m).max(RESCUE_ANCHORS).min(m.places.len())
}

/// Where the other mate must lie for a concordant pair with `anchor` (mate 1 when
/// `anchor_is_mate1`): its strand, and the contig-relative window `[start, end)` holding
/// its aligned bases, measured from the anchor's (bowtie2's `otherMate`, without the
/// dovetail refinements, which the classification applies afterwards).
/// The part of the rescue `window` (of the partner of `anchor`, `len` bases) where the
/// partner lies at fragment length `fragment` from the anchor, give or take
/// [`RESCUE_BAND`] diagonals: one rescue tile.
fn near_fragment(window: (i64, i64), anchor: &Placement, fragment: i64, len: usize) -> (i64, i64) {
    let (lo, end) = crate::pair::aligned_extent(anchor);
    let (slack, len) = (RESCUE_BAND as i64, len as i64);
    // The window lies right of the anchor's start, or left of its end.
    let near = if window.0 == lo {
        (lo + fragment - len - slack, lo + fragment + slack)
    } else {
        (end - fragment - slack, end - fragment + len + slack)
    };
    (near.0.max(window.0), near.1.min(window.1))
}

fn rescue_window(
    pairing: &PairParams,
    anchor: &Placement,
    anchor_is_mate1: bool,
) -> (bool, (i64, i64)) {
    let forward = !anchor.reverse;
    let (other_reverse, other_right) = match pairing.orientation {
        MateOrientation::Fr => (forward, forward),
        MateOrientation::Rf => (forward, !forward),
        MateOrientation::Ff => (!forward, anchor_is_mate1 == forward),
    };
    let (lo, end) = crate::pair::aligned_extent(anchor);
    let max = pairing.max_fragment as i64;
    let window = if other_right {
        (lo, lo + max)
    } else {
        (end - max, end)
    };
    (other_reverse, window)
}

#[cfg(test)]
mod tests {
    use super::{
        close_together, concordant, ln_erfc, mate_places, needs_rescue, rescue_anchors,
        Combination, FragmentModel, MatePlaces, MATE_PLACEMENTS, MAX_LENGTH_PENALTY,
        RESCUE_ANCHORS,
    };
    use crate::aligner::ReadResult;
    use crate::candidate::Placement;
    use crate::cigar::{Cigar, CigarOp};
    use crate::pair::{PairFit, PairParams};

    /// A mate's places: 100 bases aligned at each of `positions`, all scoring 0.
    fn places_at(positions: &[u64], reverse: bool) -> MatePlaces {
        let mut cigar = Cigar::new();
        cigar.push(CigarOp::Match, 100);
        let places: Vec<Placement> = positions
            .iter()
            .map(|&position| Placement {
                contig: 0,
                position,
                reverse,
                score: 0,
                cigar: cigar.clone(),
                edits: Default::default(),
            })
            .collect();
        MatePlaces {
            searched: places.len(),
            places,
            ..MatePlaces::default()
        }
    }

    /// Every searched place tied for a mate's best anchors a rescue when more than
    /// [`RESCUE_ANCHORS`] tie (a repeat of many copies, kept in no useful order);
    /// otherwise the best three, or all there are; places added by a rescue never count.
    #[test]
    fn every_tied_best_place_anchors_a_rescue() {
        let mut m = places_at(
            &[100, 2_000, 4_000, 6_000, 8_000, 10_000, 12_000, 14_000],
            true,
        );
        for (i, p) in m.places.iter_mut().enumerate() {
            p.score = if i < 6 { -13 } else { -19 };
        }
        assert_eq!(rescue_anchors(&m), 6);
        for p in &mut m.places[1..] {
            p.score = -19;
        }
        assert_eq!(rescue_anchors(&m), RESCUE_ANCHORS);
        let mut few = places_at(&[100, 2_000], false);
        assert_eq!(rescue_anchors(&few), 2);
        few.searched = 1;
        assert_eq!(rescue_anchors(&few), 2);
        let tied = places_at(&[100, 2_000, 4_000, 6_000, 8_000], false);
        let mut rescued = tied.clone();
        rescued.searched = 4;
        assert_eq!(rescue_anchors(&tied), 5);
        assert_eq!(rescue_anchors(&rescued), 4);
        assert_eq!(rescue_anchors(&MatePlaces::default()), 0);
    }

    /// A mate whose kept places fill the list and all tie is a sample of a repeat
    /// ([`MatePlaces::is_sample`]). A pair is rescued even when its best concordant
    /// combination holds both mates' best places, when another place tied for a mate's
    /// best pairs with nothing: its partner may be among the places left out.
    #[test]
    fn a_best_place_without_a_partner_is_rescued() {
        let sampled = |positions: &[u64], reverse: bool| {
            let result = ReadResult::Aligned {
                placements: places_at(positions, reverse).places,
                second_best: Some(0),
                mapq: 0,
            };
            mate_places(result)
        };
        let copies: Vec<u64> = (0..MATE_PLACEMENTS as u64)
            .map(|i| 10_000 * i + 1_300)
            .collect();
        let m2 = sampled(&copies, true);
        assert!(m2.is_sample(MATE_PLACEMENTS));
        let m1 = sampled(&[1_000, 50_000], false);
        assert!(!m1.is_sample(MATE_PLACEMENTS));
        assert!(!sampled(&copies[..MATE_PLACEMENTS - 1], true).is_sample(MATE_PLACEMENTS));
        let pairing = crate::pair::PairParams::default();
        let needs_rescue =
            |m1: &MatePlaces, m2: &MatePlaces| needs_rescue(m1, m2, &concordant(&pairing, m1, m2));
        assert!(needs_rescue(&m1, &m2));
        let m1_sampled = sampled(&copies.iter().map(|p| p - 300).collect::<Vec<_>>(), false);
        assert!(m1_sampled.is_sample(MATE_PLACEMENTS));
        assert!(!needs_rescue(&m1_sampled, &m2));
        let m2_few = sampled(&[1_300, 41_300], true);
        assert!(
            needs_rescue(&m1, &m2_few),
            "50,000 and 41,300 pair with nothing"
        );
        let m2_paired = sampled(&[1_300, 50_300], true);
        assert!(!needs_rescue(&m1, &m2_paired));
    }

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
