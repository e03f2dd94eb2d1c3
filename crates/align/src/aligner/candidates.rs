//! The candidate search of a round: each read's seeds found and located, grouped into
//! regions, and the best regions' windows aligned ungapped or extended in one SIMD pass
//! for the whole batch.

use std::ops::Range;

use super::{bowtie2, oriented_in, Aligner, Candidate, Outcome, FAST_PATH_SHIFT};
use crate::candidate::{band_for, fetch_window, ungapped, BAND_MARGIN, WIDE_BAND_MARGIN};
use crate::chain::{regions, Region};
use crate::dp::ExtendJob;

impl Aligner<'_> {
    /// Finds the seeds of the reads of `which` not searched yet, all at once, into the
    /// seed store. All seeds down to the rescue length are found (the search costs the
    /// same whatever the length cut) and kept for a rescue round.
    pub(super) fn seed_all(&mut self, which: &[usize]) {
        let unseeded: Vec<usize> = which
            .iter()
            .copied()
            .filter(|&r| self.prepared[r].smems.is_none())
            .collect();
        if unseeded.is_empty() {
            return;
        }
        let reads: Vec<&[u8]> = unseeded
            .iter()
            .map(|&r| oriented_in(&self.prepared[r], false, &self.codes, &self.penalties).0)
            .collect();
        let shortest = self.params.rescue_seed_len.min(self.params.min_seed_len);
        let mut ranges = Vec::with_capacity(reads.len());
        self.seeder.seeds_many(
            self.index,
            &reads,
            shortest,
            &self.params,
            &mut self.seeds,
            &mut ranges,
        );
        let base = self.smem_store.len();
        self.smem_store.extend_from_slice(&self.seeds);
        for (&r, range) in unseeded.iter().zip(ranges) {
            self.prepared[r].smems = Some(base + range.start..base + range.end);
        }
    }

    /// Locates the seeds (`min_len` or longer) of the reads of `which`, all in one
    /// batched walk, then groups each read's anchors into regions and queues the best.
    pub(super) fn find_candidates(&mut self, which: &[usize], min_len: u32) {
        self.seeds.clear();
        let mut bowtie2_ranges = Vec::new();
        if self.bowtie2_runner_ups() {
            self.search_bowtie2_seeds(which, &mut bowtie2_ranges);
            for (&r, range) in which.iter().zip(&bowtie2_ranges) {
                self.prepared[r].bowtie2_seeds = range.clone();
            }
        }
        // Per read: its seeds, and where bowtie2's among them start.
        let mut seed_ranges = Vec::with_capacity(which.len());
        let mut max_occ = Vec::new();
        for (n, &r) in which.iter().enumerate() {
            let first = self.seeds.len();
            if !self.prepared[r].runner_ups_only {
                let stored = self.prepared[r].smems.clone().unwrap_or_default();
                self.seeds.extend(
                    self.smem_store[stored]
                        .iter()
                        .filter(|m| m.len() >= min_len),
                );
            }
            max_occ.resize(self.seeds.len(), self.params.max_occ);
            let bowtie2_from = self.seeds.len();
            if let Some(range) = bowtie2_ranges.get(n) {
                for seed in &self.bowtie2_seeds[range.clone()] {
                    self.seeds.push(*seed);
                    max_occ.push(bowtie2::bowtie2_seed_hits(seed));
                }
            }
            // A short read's whole-read matches are bowtie2's too: it finds them first.
            if self.is_short(r) {
                let mut whole = std::mem::take(&mut self.scratch_seeds);
                whole.clear();
                self.whole_read_seeds(r, &mut whole);
                self.seeds.extend_from_slice(&whole);
                max_occ.resize(self.seeds.len(), self.params.max_occ);
                self.scratch_seeds = whole;
            }
            seed_ranges.push((first..self.seeds.len(), bowtie2_from));
        }
        self.seeder.locate_seeds(self.index, &self.seeds, &max_occ);
        for (&r, (seeds, bowtie2_from)) in which.iter().zip(seed_ranges) {
            self.read_candidates(r, seeds, bowtie2_from);
        }
    }

    /// Read `r`'s candidate places from its located seeds `self.seeds[seeds]`, those
    /// from `bowtie2_from` on bowtie2's.
    fn read_candidates(&mut self, r: usize, seeds: Range<usize>, bowtie2_from: usize) {
        let first = self.candidates.len();
        let len = (self.prepared[r].codes.end - self.prepared[r].codes.start) / 2;
        if len == 0 {
            self.prepared[r].candidates = first..first;
            return;
        }
        let stats = self.seeder.anchors(
            &self.seeds,
            seeds,
            bowtie2_from,
            len,
            &self.params,
            &mut self.anchors,
        );
        regions(&mut self.anchors, len, &mut self.covered, &mut self.regions);
        let best_weight = self.regions.first().map_or(0, |g| g.weight);
        let cutoff = (best_weight as f32 * self.params.drop_ratio) as u32;
        let kept = self
            .regions
            .iter()
            .take(self.params.max_candidates)
            .take_while(|g| g.weight >= cutoff)
            .count();
        // A region one of bowtie2's seeds leads to is one bowtie2 extends, however
        // poorly the seeds cover it.
        let bowtie2 = self.bowtie2_runner_ups();
        let regions = std::mem::take(&mut self.regions);
        let runner_ups_only = self.prepared[r].runner_ups_only;
        // With the fast path's placement known, its own region is extended once.
        let fast_region = self.prepared[r]
            .fast_region
            .as_ref()
            .filter(|_| runner_ups_only);
        let placed = |g: &Region| {
            fast_region.is_some_and(|f| {
                f.reverse == g.reverse
                    && g.diagonal_min <= f.diagonal_max + FAST_PATH_SHIFT as i64
                    && g.diagonal_max + FAST_PATH_SHIFT as i64 >= f.diagonal_min
            })
        };
        let queued: Vec<usize> = (0..regions.len())
            .filter(|&g| (g < kept && !runner_ups_only) || (bowtie2 && regions[g].bowtie2))
            .filter(|&g| !placed(&regions[g]))
            .collect();
        self.prepared[r].stats = stats;
        self.prepared[r].dropped_regions = regions.len() - queued.len();
        if let Some(region) = self.prepared[r]
            .fast_region
            .clone()
            .filter(|_| runner_ups_only)
        {
            self.queue(r, &region, len, WIDE_BAND_MARGIN);
        }
        for &g in &queued {
            // A region queued for bowtie2's second best alone is searched in the
            // narrower band of runner-ups.
            let margin = if runner_ups_only || g >= kept {
                BAND_MARGIN
            } else {
                WIDE_BAND_MARGIN
            };
            self.queue(r, &regions[g], len, margin);
        }
        self.regions = regions;
        self.prepared[r].candidates = first..self.candidates.len();
    }

    /// Builds the window of `region` and aligns it ungapped or queues a job.
    ///
    /// The band covers the anchors' diagonals and [`WIDE_BAND_MARGIN`] more either
    /// side, as bowtie2's does; [`BAND_MARGIN`] for a candidate that only looks for
    /// bowtie2's second best.
    pub(super) fn queue(&mut self, r: usize, region: &Region, len: usize, margin: usize) {
        let spread = (region.diagonal_max - region.diagonal_min) as u64;
        let band = band_for(spread, len, &self.params.scoring, margin);
        self.queue_in_band(r, region, len, band);
    }

    /// [`Aligner::queue`] in a band of half-width `band` around the region's main
    /// diagonal.
    pub(super) fn queue_in_band(&mut self, r: usize, region: &Region, len: usize, band: usize) {
        let Some((contig, _)) = self.index.contig_of(region.anchor_ref) else {
            return;
        };
        let info = &self.index.contigs()[contig];
        let scoring = &self.params.scoring;
        let spread = (region.diagonal_max - region.diagonal_min) as u64;
        let window_start = region.main_diagonal - band as i64;
        let start = self.windows.len();
        fetch_window(
            self.index,
            window_start,
            len + 2 * band,
            info.offset,
            info.offset + info.len,
            &mut self.scratch,
            &mut self.windows,
        );
        let window = start..self.windows.len();
        let (codes, penalties) = self.oriented(r, region.reverse);
        let quick = if spread == 0 {
            ungapped(
                codes,
                penalties,
                &self.windows[window.clone()],
                band,
                scoring,
                self.extender.level(),
            )
        } else {
            None
        };
        let outcome = match quick {
            Some(ext) => Outcome::Done(Some(ext)),
            None => {
                self.job_specs.push(self.candidates.len());
                Outcome::Pending
            }
        };
        self.candidates.push(Candidate {
            read: r,
            reverse: region.reverse,
            window,
            window_start,
            band,
            diagonals: region.diagonals.clone(),
            outcome,
        });
    }

    /// Extends the candidates of `self.job_specs` in one SIMD pass.
    pub(super) fn run_jobs(&mut self) {
        let jobs: Vec<ExtendJob<'_>> = self
            .job_specs
            .iter()
            .map(|&c| {
                let cand = &self.candidates[c];
                let (codes, penalties) = oriented_in(
                    &self.prepared[cand.read],
                    cand.reverse,
                    &self.codes,
                    &self.penalties,
                );
                ExtendJob {
                    read: codes,
                    penalties,
                    window: &self.windows[cand.window.clone()],
                    band: cand.band,
                    min_score: self.params.scoring.min_score(codes.len()),
                }
            })
            .collect();
        self.extender
            .extend(&jobs, &self.params.scoring, &mut self.extensions);
        drop(jobs);
        for (j, &c) in self.job_specs.iter().enumerate() {
            let ext = self.extensions[j].take();
            self.candidates[c].outcome = Outcome::Done(ext);
        }
    }
}
