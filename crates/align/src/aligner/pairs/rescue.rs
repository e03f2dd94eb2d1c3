//! Mate rescue: the partner of a mate's best places searched for over the whole window
//! where a concordant place could lie, for pairs whose own searches left them without a
//! concordant pair or with a best place unpaired (see the steps in [`super`]).

use std::ops::Range;

use super::{concordant, tied_best, Combination, MatePlaces};
use crate::aligner::{oriented_in, Aligner, Unaligned};
use crate::candidate::{fetch_window, n_columns, place, Placement};
use crate::dp::ExtendJob;
use crate::pair::{MateOrientation, PairParams};

/// Places of a mate that anchor a rescue of the other, at least: more when more of its
/// searched places tie for its best score (see [`rescue_anchors`]).
pub(super) const RESCUE_ANCHORS: usize = 3;
/// Band half-width of the rescue jobs: each covers `2·64 + 1` diagonals.
const RESCUE_BAND: usize = 64;
/// Band half-width of a rescue near a known fragment length (bowtie2's second pair
/// beside a paralog's first): the copies of a segmental duplication keep their layout
/// within a few bases.
const NEAR_FRAGMENT_BAND: usize = 16;
/// Diagonals shared by neighbouring rescue tiles (room for an indel at a seam).
const RESCUE_TILE_OVERLAP: usize = 16;
/// Most rescue tiles per anchor (a window of about 14 kbp; larger `-X` are searched
/// near the anchor's side up to that).
const MAX_RESCUE_TILES: usize = 128;

/// A rescue job: align mate `mate` of pair `pair` on strand `reverse` in a window.
#[derive(Debug, Clone)]
struct RescueJob {
    pair: usize,
    mate: usize,
    reverse: bool,
    window: Range<usize>,
    window_start: i64,
    /// Band half-width of its extension.
    band: usize,
    /// When bowtie2 meets the anchor place (it searches the partner right after).
    met: u64,
}

impl Aligner<'_> {
    /// Mate rescue for `which` pairs: aligns each mate in the windows its mate's places
    /// define ([`Aligner::rescue_anchor_places`]), adding what it finds to its places.
    pub(super) fn rescue(
        &mut self,
        which: &[usize],
        pairing: &PairParams,
        mates: &mut [MatePlaces],
    ) {
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
                    let mut band = RESCUE_BAND;
                    if let Some(fragment) = fragment {
                        band = NEAR_FRAGMENT_BAND;
                        window = near_fragment(window, anchor, fragment, len, band);
                    }
                    if !self.prepared[2 * i + other].strands[usize::from(reverse)] {
                        continue;
                    }
                    let before = jobs.len();
                    let tiles = (window, band);
                    self.queue_rescue(i, other, reverse, tiles, anchor.contig, len, &mut jobs);
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
                    band: job.band,
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

    /// Queues the rescue tiles of band half-width `tiles.1` over one window `tiles.0`
    /// (global coordinates, clipped to the contig).
    #[allow(clippy::too_many_arguments)]
    fn queue_rescue(
        &mut self,
        pair: usize,
        mate: usize,
        reverse: bool,
        (window, band): ((i64, i64), usize),
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
        let span = 2 * band + 1;
        let stride = span - RESCUE_TILE_OVERLAP;
        let mut first = 0usize;
        for _ in 0..MAX_RESCUE_TILES {
            let tile_start = start + first as i64;
            let from = self.windows.len();
            fetch_window(
                self.index,
                tile_start,
                len + 2 * band,
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
                band,
                met: u64::MAX,
            });
            if first + span > last {
                break;
            }
            first += stride;
        }
    }
}

/// Whether a pair's mates are worth rescuing, from their concordant `combos`
/// ([`concordant`]): no concordant combination while a mate aligned, the best
/// concordant combination leaves out a mate's best place (its partner there may not
/// have been among the other mate's places), or a place tied for a mate's best pairs
/// with none of the other mate's places: in a repeat, the other mate's copy beside it
/// may be one its own search did not find or keep, and without it the pair found looks
/// unique.
pub(super) fn needs_rescue(m1: &MatePlaces, m2: &MatePlaces, combos: &[Combination]) -> bool {
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

/// How many of a mate's first places anchor a rescue of the other mate: the
/// [`RESCUE_ANCHORS`] best, or every searched place tied for its best score when more
/// tie. In a repeat of many copies a mate's best places are kept in an arbitrary order,
/// so the copy where both mates score best may be any of them; three anchors would
/// miss it and pair the mate with a worse copy of the other.
pub(super) fn rescue_anchors(m: &MatePlaces) -> usize {
    tied_best(m).max(RESCUE_ANCHORS).min(m.places.len())
}

/// The places of the mates `m1` and `m2` that pair with none of the other's in
/// `combos`, as (mate, place).
pub(super) fn unpartnered(
    m1: &MatePlaces,
    m2: &MatePlaces,
    combos: &[Combination],
) -> Vec<(usize, usize)> {
    let lonely = |mate: usize, count: usize, side: fn(&Combination) -> usize| {
        (0..count)
            .filter(move |&k| !combos.iter().any(|c| side(c) == k))
            .map(move |k| (mate, k))
    };
    lonely(0, m1.places.len(), |c| c.1)
        .chain(lonely(1, m2.places.len(), |c| c.2))
        .collect()
}

/// Where the other mate must lie for a concordant pair with `anchor` (mate 1 when
/// `anchor_is_mate1`): its strand, and the contig-relative window `[start, end)` holding
/// its aligned bases, measured from the anchor's (bowtie2's `otherMate`, without the
/// dovetail refinements, which the classification applies afterwards).
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

/// The part of the rescue `window` (of the partner of `anchor`, `len` bases) where the
/// partner lies at fragment length `fragment` from the anchor, give or take
/// `band` diagonals: one rescue tile of that band.
fn near_fragment(
    window: (i64, i64),
    anchor: &Placement,
    fragment: i64,
    len: usize,
    band: usize,
) -> (i64, i64) {
    let (lo, end) = crate::pair::aligned_extent(anchor);
    let (slack, len) = (band as i64, len as i64);
    // The window lies right of the anchor's start, or left of its end.
    let near = if window.0 == lo {
        (lo + fragment - len - slack, lo + fragment + slack)
    } else {
        (end - fragment - slack, end - fragment + len + slack)
    };
    (near.0.max(window.0), near.1.min(window.1))
}

#[cfg(test)]
mod tests {
    use super::{rescue_anchors, RESCUE_ANCHORS};
    use crate::aligner::pairs::tests::places_at;
    use crate::aligner::pairs::MatePlaces;

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
}
