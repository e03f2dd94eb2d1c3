//! The fast path: reads whose unique tiling seeds agree on one place (see
//! docs/ALIGNER.md, "Fast path").

use seqfarm_core::nucleotide::AMBIGUOUS;
use seqfarm_core::Strand;
use seqfarm_fmindex::BiInterval;

use super::{Aligner, ReadResult, FAST_PATH_SHIFT};
use crate::chain::Region;
use crate::seed::{tiling, FixedSeed, SeedStats};

impl Aligner<'_> {
    /// Whether a fast-path result stands: aligned, and better than anything elsewhere
    /// could be. With a single unique seed (a read mostly in a repeat) the margin over
    /// the bound must be four mismatches or more; otherwise the full search looks for
    /// the runner-up, which the mapping quality needs.
    pub(super) fn settled(&self, r: usize, result: &ReadResult) -> bool {
        let prepared = &self.prepared[r];
        let scoring = &self.params.scoring;
        let margin = if prepared.unique_seeds >= 2 {
            1
        } else {
            4 * (scoring.mismatch_max + scoring.match_bonus)
        };
        match (result, prepared.second_bound) {
            (ReadResult::Aligned { placements, .. }, Some(bound)) => placements
                .first()
                .is_some_and(|p| p.score >= bound + margin),
            _ => false,
        }
    }

    /// The fast path's seeds of every read of `which`, searched all at once.
    pub(super) fn seed_tilings(&mut self, which: &[usize]) {
        let k = self.params.fast_seed_len;
        self.tiling_seeds.clear();
        self.tiling_ranges.clear();
        let mut patterns: Vec<&[u8]> = Vec::new();
        for &r in which {
            let p = &self.prepared[r];
            let len = (p.codes.end - p.codes.start) / 2;
            let first = self.tiling_seeds.len();
            for start in tiling(len, k) {
                let at = p.codes.start + start;
                patterns.push(&self.codes[at..at + k]);
                self.tiling_seeds.push(FixedSeed {
                    start: start as u32,
                    count: 0,
                    interval: BiInterval::default(),
                });
            }
            self.tiling_ranges.push(first..self.tiling_seeds.len());
        }
        self.index
            .intervals_many(&patterns, &mut self.tiling_intervals);
        for (seed, iv) in self.tiling_seeds.iter_mut().zip(&self.tiling_intervals) {
            seed.interval = *iv;
            seed.count = iv.size;
        }
        // Each tiling's first unique seed, located all at once.
        let firsts: Vec<(usize, &FixedSeed)> = self
            .tiling_ranges
            .iter()
            .enumerate()
            .filter_map(|(n, range)| {
                let seeds = &self.tiling_seeds[range.clone()];
                Some((n, seeds.iter().find(|s| s.count == 1)?))
            })
            .collect();
        let mut hits = Vec::new();
        self.seeder
            .locate_unique(self.index, firsts.iter().map(|&(_, s)| s), k, &mut hits);
        self.tiling_hits.clear();
        self.tiling_hits.resize(self.tiling_ranges.len(), None);
        for (&(n, _), hit) in firsts.iter().zip(hits) {
            self.tiling_hits[n] = hit;
        }
    }

    /// The fast path: tiling seeds (`n`-th tiling of this round) whose unique ones all
    /// lie on one diagonal (give or take a small indel) give one candidate, and a bound
    /// on any other placement's score (another place mismatches every seed that occurs
    /// at most once). `false` when it does not apply.
    pub(super) fn fast_candidate(&mut self, r: usize, n: usize) -> bool {
        let first = self.candidates.len();
        let len = (self.prepared[r].codes.end - self.prepared[r].codes.start) / 2;
        let k = self.params.fast_seed_len;
        let seeds = self.tiling_ranges[n].clone();
        let mut unique = std::mem::take(&mut self.unique_seeds);
        unique.clear();
        unique.extend(
            self.tiling_seeds[seeds.clone()]
                .iter()
                .filter(|s| s.count == 1),
        );
        let hit = self.tiling_hits[n];
        let region = hit.and_then(|hit| {
            let reverse = hit.strand == Strand::Reverse;
            let oriented = |s: &FixedSeed| {
                if reverse {
                    len - s.start as usize - k
                } else {
                    s.start as usize
                }
            };
            let diagonal = hit.pos as i64 - oriented(&unique[0]) as i64;
            let (contig, _) = self.index.contig_of(hit.pos)?;
            let info = &self.index.contigs()[contig];
            let shift = FAST_PATH_SHIFT as i64;
            let (lo, hi) = (diagonal - shift, diagonal + len as i64 + shift);
            if lo < info.offset as i64 || hi > (info.offset + info.len) as i64 {
                return None;
            }
            self.index
                .reference()
                .fetch_codes(lo as u64, hi as u64, &mut self.scratch);
            let (codes, _) = self.oriented(r, reverse);
            // Each unique seed must match exactly on the diagonal or one shifted by a
            // small indel; the nearest shift wins.
            let (mut low, mut high) = (0i64, 0i64);
            for s in &unique {
                let q = oriented(s);
                let piece = &codes[q..q + k];
                let found = (0..=shift).flat_map(|d| [d, -d]).find(|&d| {
                    let at = (q as i64 + shift + d) as usize;
                    &self.scratch[at..at + k] == piece
                })?;
                low = low.min(found);
                high = high.max(found);
            }
            Some(Region {
                reverse,
                diagonal_min: diagonal + low,
                diagonal_max: diagonal + high,
                main_diagonal: diagonal,
                anchor_ref: hit.pos,
                weight: (unique.len() * k) as u32,
            })
        });
        let settled = match region {
            Some(region) => {
                let scoring = &self.params.scoring;
                let (codes, penalties) = self.oriented(r, false);
                let loss: i32 = self.tiling_seeds[seeds]
                    .iter()
                    .filter(|s| s.count <= 1)
                    .map(|s| {
                        let span = s.start as usize..s.start as usize + k;
                        let cheapest = span
                            .map(|i| {
                                if codes[i] >= AMBIGUOUS {
                                    scoring.n_penalty
                                } else {
                                    i32::from(penalties[i])
                                }
                            })
                            .min()
                            .unwrap_or(0);
                        cheapest + scoring.match_bonus
                    })
                    .sum();
                self.prepared[r].second_bound = Some(scoring.perfect_score(len) - loss);
                self.prepared[r].unique_seeds = unique.len();
                self.prepared[r].stats = SeedStats::default();
                self.prepared[r].dropped_regions = 0;
                self.queue(r, &region, len);
                true
            }
            None => false,
        };
        self.unique_seeds = unique;
        self.prepared[r].candidates = first..self.candidates.len();
        settled
    }
}
