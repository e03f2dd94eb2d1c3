//! The fast path: reads whose unique tiling seeds agree on one place (see
//! docs/ALIGNER.md, "Fast path").

use std::ops::Range;

use seqfarm_core::nucleotide::AMBIGUOUS;
use seqfarm_core::Strand;
use seqfarm_fmindex::Hit;

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

    /// The fast path's seeds of every read of `which`, searched all at once, and each
    /// tiling's first unique seed located. A search stops as soon as one row is left:
    /// the seed then occurs once or nowhere, which the text settles (see
    /// docs/ALIGNER.md, "Fast path"), so every count is exact when this returns.
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
                });
            }
            self.tiling_ranges.push(first..self.tiling_seeds.len());
        }
        self.index.intervals_until_unique_many(
            &patterns,
            &mut self.tiling_intervals,
            &mut self.tiling_searched,
        );
        for (seed, iv) in self.tiling_seeds.iter_mut().zip(&self.tiling_intervals) {
            seed.count = iv.size;
        }
        self.locate_anchors(which);
        self.fetch_windows(which);
        self.settle_partial_seeds(which);
    }

    /// Each tiling's first seed that occurs once, located into `tiling_anchors`. A seed
    /// searched only in part is located by its searched end: it is the one if the text
    /// there holds the rest of it, else it occurs nowhere and the tiling's next
    /// one-row seed is tried, in another batched walk.
    fn locate_anchors(&mut self, which: &[usize]) {
        let k = self.params.fast_seed_len;
        let one_row_from = |seeds: &[FixedSeed], range: &Range<usize>, from: usize| {
            (from..range.end).find(|&s| seeds[s].count == 1)
        };
        let mut pending: Vec<(usize, usize)> = self
            .tiling_ranges
            .iter()
            .enumerate()
            .filter_map(|(n, range)| {
                Some((n, one_row_from(&self.tiling_seeds, range, range.start)?))
            })
            .collect();
        self.tiling_anchors.clear();
        self.tiling_anchors.resize(self.tiling_ranges.len(), None);
        let mut hits = Vec::new();
        while !pending.is_empty() {
            let rows = pending.iter().map(|&(_, s)| {
                (
                    self.tiling_intervals[s].start,
                    u64::from(self.tiling_searched[s]),
                )
            });
            self.seeder.locate_unique(self.index, rows, &mut hits);
            let mut retry = Vec::new();
            for (&(n, s), &hit) in pending.iter().zip(&hits) {
                let Some(hit) = hit else { continue };
                let searched = std::mem::replace(&mut self.tiling_searched[s], k as u32);
                let whole = if searched as usize == k {
                    Some(hit)
                } else {
                    self.whole_seed(which[n], s, searched, hit)
                };
                match whole {
                    Some(hit) => self.tiling_anchors[n] = Some((s, hit)),
                    None => {
                        self.tiling_seeds[s].count = 0;
                        let range = &self.tiling_ranges[n];
                        retry
                            .extend(one_row_from(&self.tiling_seeds, range, s + 1).map(|t| (n, t)));
                    }
                }
            }
            pending = retry;
        }
    }

    /// The occurrence of tiling seed `s` of read `r`, known to occur at most once, from
    /// that of its `searched` last bases (`end`): there if the text holds the rest.
    fn whole_seed(&mut self, r: usize, s: usize, searched: u32, end: Hit) -> Option<Hit> {
        let k = self.params.fast_seed_len as u64;
        let missing = k - u64::from(searched);
        let reverse = end.strand == Strand::Reverse;
        // The searched end is the seed's last bases: its first on the reverse strand.
        let start = if reverse {
            end.pos
        } else {
            end.pos.checked_sub(missing)?
        };
        let (contig, _) = self.index.contig_of(end.pos)?;
        let info = &self.index.contigs()[contig];
        if start < info.offset || start + k > info.offset + info.len {
            return None;
        }
        self.index
            .reference()
            .fetch_codes(start, start + k, &mut self.scratch);
        let q = self.oriented_start(r, s, reverse);
        let (codes, _) = self.oriented(r, reverse);
        (self.scratch[..] == codes[q..q + k as usize]).then_some(Hit {
            pos: start,
            strand: end.strand,
        })
    }

    /// The reference each tiling's anchor points at, fetched once into
    /// `tiling_windows` (see [`Aligner::fetch_window`]) for the settling of its seeds
    /// and for the fast path.
    fn fetch_windows(&mut self, which: &[usize]) {
        self.tiling_windows.clear();
        self.tiling_window.clear();
        for (n, &r) in which.iter().enumerate() {
            let window =
                self.tiling_anchors[n].and_then(|(anchor, hit)| self.fetch_window(r, anchor, hit));
            self.tiling_window.push(window);
        }
    }

    /// Appends to `tiling_windows` the reference around read `r` placed by its anchor
    /// seed `anchor` at `hit`: the read's span on that diagonal and [`FAST_PATH_SHIFT`]
    /// bases on either side. Returns where it lies there and the diagonal; `None` when
    /// the span leaves the contig.
    fn fetch_window(&mut self, r: usize, anchor: usize, hit: Hit) -> Option<TilingWindow> {
        let reverse = hit.strand == Strand::Reverse;
        let len = (self.prepared[r].codes.end - self.prepared[r].codes.start) / 2;
        let diagonal = hit.pos as i64 - self.oriented_start(r, anchor, reverse) as i64;
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
        let first = self.tiling_windows.len();
        self.tiling_windows.extend_from_slice(&self.scratch);
        Some(TilingWindow {
            bases: first..self.tiling_windows.len(),
            diagonal,
        })
    }

    /// Settles the seeds still searched only in part (one row left, their tiling's
    /// anchor found) against the reference on the anchor's diagonal, where the fast
    /// path looks: the seed is there (it occurs once), or its searched end is there
    /// without the rest (it occurs nowhere). The searches of those the reference cannot
    /// settle go on to the seed's first base.
    fn settle_partial_seeds(&mut self, which: &[usize]) {
        let k = self.params.fast_seed_len;
        let mut rest = Vec::new();
        for (n, &r) in which.iter().enumerate() {
            for s in self.tiling_ranges[n].clone() {
                let searched = self.tiling_searched[s] as usize;
                if searched == k {
                    continue;
                }
                let count = self.tiling_window[n].as_ref().and_then(|w| {
                    let (_, hit) = self.tiling_anchors[n]?;
                    let reverse = hit.strand == Strand::Reverse;
                    let window = &self.tiling_windows[w.bases.clone()];
                    let q = self.oriented_start(r, s, reverse);
                    let (codes, _) = self.oriented(r, reverse);
                    if shifted_match(window, q, &codes[q..q + k]).is_some() {
                        return Some(1);
                    }
                    let end = if reverse { q } else { q + k - searched };
                    shifted_match(window, end, &codes[end..end + searched]).map(|_| 0)
                });
                match count {
                    Some(count) => {
                        self.tiling_seeds[s].count = count;
                        self.tiling_searched[s] = k as u32;
                    }
                    None => rest.push((r, s)),
                }
            }
        }
        if rest.is_empty() {
            return;
        }
        let patterns: Vec<&[u8]> = rest
            .iter()
            .map(|&(r, s)| {
                let at = self.prepared[r].codes.start + self.tiling_seeds[s].start as usize;
                &self.codes[at..at + k]
            })
            .collect();
        let mut intervals = rest
            .iter()
            .map(|&(_, s)| self.tiling_intervals[s])
            .collect();
        let mut searched = rest.iter().map(|&(_, s)| self.tiling_searched[s]).collect();
        self.index
            .resume_intervals_many(&patterns, &mut intervals, &mut searched);
        for (&(_, s), iv) in rest.iter().zip(&intervals) {
            self.tiling_seeds[s].count = iv.size;
            self.tiling_searched[s] = k as u32;
        }
    }

    /// Where tiling seed `s` of read `r` starts in the read oriented to the reference.
    fn oriented_start(&self, r: usize, s: usize, reverse: bool) -> usize {
        let p = &self.prepared[r];
        let len = (p.codes.end - p.codes.start) / 2;
        let start = self.tiling_seeds[s].start as usize;
        if reverse {
            len - start - self.params.fast_seed_len
        } else {
            start
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
        unique.extend(seeds.clone().filter(|&s| self.tiling_seeds[s].count == 1));
        let region = self.tiling_window[n].as_ref().and_then(|w| {
            let ((_, hit), diagonal) = (self.tiling_anchors[n]?, w.diagonal);
            let reverse = hit.strand == Strand::Reverse;
            let window = &self.tiling_windows[w.bases.clone()];
            let (codes, _) = self.oriented(r, reverse);
            // Each unique seed must match exactly on the diagonal or one shifted by a
            // small indel; the nearest shift wins.
            let (mut low, mut high) = (0i64, 0i64);
            for &s in &unique {
                let q = self.oriented_start(r, s, reverse);
                let found = shifted_match(window, q, &codes[q..q + k])?;
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
                bowtie2: false,
                diagonals: Vec::new(),
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
                self.queue(r, &region, len, crate::candidate::WIDE_BAND_MARGIN);
                self.prepared[r].fast_region = Some(region);
                true
            }
            None => false,
        };
        self.unique_seeds = unique;
        self.prepared[r].candidates = first..self.candidates.len();
        settled
    }
}

/// The reference a tiling's anchor (in `tiling_anchors`) points at (see
/// [`Aligner::fetch_window`]).
#[derive(Debug, Clone)]
pub(super) struct TilingWindow {
    /// Its bases in the round's `tiling_windows`.
    bases: Range<usize>,
    /// The read's diagonal by its anchor.
    diagonal: i64,
}

/// The shift (nearest first, within [`FAST_PATH_SHIFT`]) at which `piece`, starting at
/// `q` in the oriented read, matches `window` (from [`Aligner::fetch_window`]).
fn shifted_match(window: &[u8], q: usize, piece: &[u8]) -> Option<i64> {
    let shift = FAST_PATH_SHIFT as i64;
    (0..=shift).flat_map(|d| [d, -d]).find(|&d| {
        let at = (q as i64 + shift + d) as usize;
        &window[at..at + piece.len()] == piece
    })
}

#[cfg(test)]
pub(super) mod tests {
    use seqfarm_core::nucleotide::{encode, reverse_complement_letters};
    use seqfarm_fmindex::{build, BuildOptions, FmIndex, ReferenceBuilder};

    use crate::aligner::{Aligner, ReadInput};
    use crate::params::AlignParams;

    /// A xorshift step: the same genome and reads on every run.
    pub(in crate::aligner) fn next(state: &mut u64, n: u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state % n
    }

    /// Every tiling seed's count is its number of occurrences and each tiling's hit is
    /// its first unique seed's, although the searches stop at one row: on a small
    /// genome with a short k-mer table most stop early, and the text settles them.
    #[test]
    fn tiling_counts_and_anchors_are_exact() {
        let mut state = 29u64;
        let mut contigs: Vec<Vec<u8>> = (0..3)
            .map(|_| {
                (0..6000)
                    .map(|_| b"ACGT"[next(&mut state, 4) as usize])
                    .collect()
            })
            .collect();
        // Diverged copies, so some seeds occur twice or once elsewhere.
        for _ in 0..6 {
            let from = next(&mut state, 5500) as usize;
            let to = next(&mut state, 5500) as usize;
            let mut piece = contigs[0][from..from + 400].to_vec();
            for _ in 0..8 {
                let i = next(&mut state, 400) as usize;
                piece[i] = b"ACGT"[next(&mut state, 4) as usize];
            }
            contigs[1][to..to + 400].copy_from_slice(&piece);
        }
        let mut reference = ReferenceBuilder::new();
        for (i, c) in contigs.iter().enumerate() {
            reference.add_contig(&format!("c{i}"), c).unwrap();
        }
        let options = BuildOptions {
            sa_rate: 8,
            kmer_len: Some(5),
            threads: 1,
            ..BuildOptions::default()
        };
        let index = FmIndex::from_image(&build(reference, &options, &mut |_| {}).unwrap()).unwrap();
        let reads: Vec<Vec<u8>> = (0..400)
            .map(|_| {
                let contig = &contigs[next(&mut state, 3) as usize];
                let at = next(&mut state, 6000 - 150) as usize;
                let mut read = contig[at..at + 150].to_vec();
                for _ in 0..next(&mut state, 6) {
                    let i = next(&mut state, 150) as usize;
                    read[i] = b"ACGTN"[next(&mut state, 5) as usize];
                }
                if next(&mut state, 2) == 1 {
                    reverse_complement_letters(&mut read);
                }
                read
            })
            .collect();
        let mut aligner = Aligner::new(&index, AlignParams::default()).unwrap();
        for read in &reads {
            let input = ReadInput {
                name: b"r",
                bases: read,
                qualities: None,
            };
            aligner.prepare(&input, [true, true], true, false);
        }
        let which: Vec<usize> = (0..reads.len()).collect();
        aligner.seed_tilings(&which);

        let k = aligner.params.fast_seed_len;
        let mut stopped = 0;
        let (mut located, mut nowhere) = (0, 0);
        for (n, read) in reads.iter().enumerate() {
            let codes: Vec<u8> = read.iter().map(|&b| encode(b).unwrap_or(4)).collect();
            let range = aligner.tiling_ranges[n].clone();
            let mut first_unique = None;
            for seed in &aligner.tiling_seeds[range] {
                let piece = &codes[seed.start as usize..seed.start as usize + k];
                let interval = index.interval(piece);
                assert_eq!(
                    seed.count, interval.size,
                    "read {n}, seed at {}",
                    seed.start
                );
                if first_unique.is_none() && interval.size == 1 {
                    let mut hits = Vec::new();
                    index.locate(interval, k as u64, 1, &mut hits);
                    first_unique = hits.first().copied();
                }
                let mut searched = Vec::new();
                let mut one = Vec::new();
                index.intervals_until_unique_many(&[piece], &mut one, &mut searched);
                if (searched[0] as usize) < k {
                    stopped += 1;
                    if interval.size == 0 {
                        nowhere += 1;
                    }
                }
            }
            let anchor_hit = aligner.tiling_anchors[n].map(|(_, hit)| hit);
            assert_eq!(anchor_hit, first_unique, "read {n}");
            located += usize::from(first_unique.is_some());
        }
        assert!(
            stopped > 1000 && nowhere > 50 && located > 300,
            "{stopped} {nowhere} {located}"
        );
    }
}
