//! Seeds: super-maximal exact matches (SMEMs) of the read on either strand, re-seeded
//! inside long unique ones, located in the genome as anchors.

mod bowtie2;

use std::ops::Range;

use seqfarm_core::Strand;
use seqfarm_fmindex::{FmIndex, Hit, LocateScratch, Smem, SmemBatchScratch};

use crate::params::AlignParams;

pub use bowtie2::Bowtie2Seeding;

/// An exact match between the oriented read (reverse-complemented for the reverse
/// strand) and the forward reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Anchor {
    /// Whether the read aligns reverse-complemented.
    pub reverse: bool,
    /// First base of the match in the oriented read.
    pub query_start: u32,
    /// Length of the match.
    pub len: u32,
    /// Global reference coordinate of the match's first base.
    pub ref_start: u64,
    /// Whether the match is one of bowtie2's seeds ([`Bowtie2Seeding`]).
    pub bowtie2: bool,
}

impl Anchor {
    /// Reference coordinate of the oriented read's first base if the match extends
    /// without gaps.
    pub fn diagonal(&self) -> i64 {
        self.ref_start as i64 - i64::from(self.query_start)
    }
}

/// What seeding saw, for the mapping quality.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SeedStats {
    /// Fraction of the read covered by seeds with more occurrences than were located.
    pub repetitive_fraction: f32,
}

/// A fixed-length seed of the fast path: its place in the read (as given) and its
/// number of occurrences on both strands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedSeed {
    /// First base in the read.
    pub start: u32,
    /// Occurrences (0 when the seed holds an N or matches nowhere).
    pub count: u64,
}

/// Starts of the fast path's seeds: non-overlapping `k`-base pieces tiling a
/// `len`-base read, evenly spread, the first at 0 and the last ending at `len` (none
/// when fewer than two fit).
pub fn tiling(len: usize, k: usize) -> impl Iterator<Item = usize> {
    let n = len.checked_div(k).unwrap_or(0);
    let n = if n < 2 { 0 } else { n };
    let span = len.saturating_sub(k);
    (0..n).map(move |i| i * span / (n - 1))
}

/// Finds seeds and anchors; one per worker (reuses its buffers).
#[derive(Debug, Default)]
pub struct Seeder {
    batch: SmemBatchScratch,
    smems: Vec<Smem>,
    smem_ranges: Vec<Range<usize>>,
    more: Vec<Smem>,
    more_ranges: Vec<Range<usize>>,
    /// The read of each re-seeding job.
    job_reads: Vec<usize>,
    /// The read of each job tried again from the base before the middle, and what
    /// those found.
    retry_reads: Vec<usize>,
    again: Vec<Smem>,
    again_ranges: Vec<Range<usize>>,
    /// One read's seeds, before sorting.
    merged: Vec<Smem>,
    locate_scratch: LocateScratch,
    /// The occurrences of the seeds [`Seeder::locate_seeds`] was given, and the range of
    /// each seed's.
    located: Vec<Option<Hit>>,
    located_ranges: Vec<Range<usize>>,
    /// Suffix-array rows to locate, and their patterns' lengths.
    rows: Vec<u64>,
    lens: Vec<u64>,
    /// Per read base: covered by a seed with more occurrences than are located.
    repetitive: Vec<bool>,
}

impl Seeder {
    /// The seeds of each of `reads` (as given, codes `0..=4`) of length `min_len` or
    /// more: all SMEMs, plus, inside each SMEM of at least `params.reseed_len` bases
    /// with few occurrences, the longest matches with more occurrences that contain
    /// its middle base (or, when none is `min_len` long, the base before it). Read
    /// `i`'s seeds are `out[ranges[i]]` (both cleared first), sorted by query start,
    /// duplicates removed. The reads' searches run interleaved,
    /// so on a large index their cache misses overlap.
    pub fn seeds_many(
        &mut self,
        index: &FmIndex,
        reads: &[&[u8]],
        min_len: u32,
        params: &AlignParams,
        out: &mut Vec<Smem>,
        ranges: &mut Vec<Range<usize>>,
    ) {
        out.clear();
        ranges.clear();
        index.smems_many(
            reads,
            min_len,
            &mut self.batch,
            &mut self.smems,
            &mut self.smem_ranges,
        );
        // Re-seeding jobs, in read order: each long unique-ish SMEM from its middle base.
        let mut jobs = Vec::new();
        self.job_reads.clear();
        for (r, range) in self.smem_ranges.iter().enumerate() {
            for smem in &self.smems[range.clone()] {
                if smem.len() >= params.reseed_len && smem.interval.size <= params.reseed_max_occ {
                    let middle = (smem.start + smem.end) as usize / 2;
                    jobs.push((reads[r], middle, smem.interval.size + 1));
                    self.job_reads.push(r);
                }
            }
        }
        index.smems_at_many(
            &jobs,
            &mut self.batch,
            &mut self.more,
            &mut self.more_ranges,
        );
        // A job that found nothing long enough is tried again from the base before the
        // middle: a copy that differs from the read at the middle base alone shares no
        // match through it, but shares the one that ends just before it (the longer of
        // the two sides, so the copy's region is not dropped as poorly covered).
        let mut retry = Vec::new();
        self.retry_reads.clear();
        for (j, &(read, middle, min_size)) in jobs.iter().enumerate() {
            let found = &self.more[self.more_ranges[j].clone()];
            if !found.iter().any(|m| m.len() >= min_len) && middle > 0 {
                retry.push((read, middle - 1, min_size));
                self.retry_reads.push(self.job_reads[j]);
            }
        }
        index.smems_at_many(
            &retry,
            &mut self.batch,
            &mut self.again,
            &mut self.again_ranges,
        );
        let (mut job, mut again) = (0, 0);
        for (r, range) in self.smem_ranges.iter().enumerate() {
            let merged = &mut self.merged;
            merged.clear();
            merged.extend_from_slice(&self.smems[range.clone()]);
            let searches = [
                (&self.job_reads, &self.more, &self.more_ranges, &mut job),
                (
                    &self.retry_reads,
                    &self.again,
                    &self.again_ranges,
                    &mut again,
                ),
            ];
            for (reads_of, found, found_ranges, next) in searches {
                // The searches are in read order: read r's are the next ones.
                while reads_of.get(*next) == Some(&r) {
                    let long = found[found_ranges[*next].clone()]
                        .iter()
                        .filter(|m| m.len() >= min_len);
                    merged.extend(long);
                    *next += 1;
                }
            }
            merged.sort_by_key(|m| (m.start, m.end, m.interval.fwd));
            merged.dedup_by_key(|m| (m.start, m.end, m.interval.fwd));
            let first = out.len();
            out.extend_from_slice(merged);
            ranges.push(first..out.len());
        }
    }

    /// The occurrence of each pattern given by its `(suffix-array row, length)`, each
    /// known to occur once, into `out`: one batched walk, so their cache misses overlap.
    pub fn locate_unique(
        &mut self,
        index: &FmIndex,
        rows: impl Iterator<Item = (u64, u64)>,
        out: &mut Vec<Option<Hit>>,
    ) {
        self.rows.clear();
        self.lens.clear();
        for (row, len) in rows {
            self.rows.push(row);
            self.lens.push(len);
        }
        index.locate_rows(&self.rows, &self.lens, &mut self.locate_scratch, out);
    }

    /// Locates `seeds` (the seeds of many reads), at most `max_occ[i]` occurrences of
    /// seed `i` (evenly sampled beyond), in one batched walk so that their cache misses
    /// overlap; [`Seeder::anchors`] then reads them.
    pub fn locate_seeds(&mut self, index: &FmIndex, seeds: &[Smem], max_occ: &[usize]) {
        self.rows.clear();
        self.lens.clear();
        self.located_ranges.clear();
        for (seed, &max_occ) in seeds.iter().zip(max_occ) {
            let first = self.rows.len();
            self.rows.extend(seed.interval.spread_rows(max_occ));
            self.lens.resize(self.rows.len(), u64::from(seed.len()));
            self.located_ranges.push(first..self.rows.len());
        }
        let scratch = &mut self.locate_scratch;
        index.locate_rows(&self.rows, &self.lens, scratch, &mut self.located);
    }

    /// The anchors of one read of `read_len` bases: the occurrences of its seeds
    /// `seeds[which]`, which [`Seeder::locate_seeds`] located (with all of `seeds`);
    /// those from `bowtie2_from` on are bowtie2's seeds.
    pub fn anchors(
        &mut self,
        seeds: &[Smem],
        which: Range<usize>,
        bowtie2_from: usize,
        read_len: usize,
        params: &AlignParams,
        out: &mut Vec<Anchor>,
    ) -> SeedStats {
        out.clear();
        let repetitive = &mut self.repetitive;
        repetitive.clear();
        repetitive.resize(read_len, false);
        let located_ranges = &self.located_ranges[which.clone()];
        for ((i, seed), located) in seeds[which.clone()].iter().enumerate().zip(located_ranges) {
            let bowtie2 = which.start + i >= bowtie2_from;
            if seed.interval.size > params.max_occ as u64 {
                repetitive[seed.start as usize..seed.end as usize].fill(true);
            }
            for hit in self.located[located.clone()].iter().flatten() {
                let reverse = hit.strand == Strand::Reverse;
                let query_start = if reverse {
                    read_len as u32 - seed.end
                } else {
                    seed.start
                };
                out.push(Anchor {
                    reverse,
                    query_start,
                    len: seed.len(),
                    ref_start: hit.pos,
                    bowtie2,
                });
            }
        }
        let covered = repetitive.iter().filter(|&&r| r).count();
        SeedStats {
            repetitive_fraction: covered as f32 / read_len.max(1) as f32,
        }
    }
}
