//! What bowtie2's mapping quality needs of the search: bowtie2's own seeds searched
//! beside the SMEMs, so that the runner-ups bowtie2 finds are found, and the test of
//! whether an alignment holds one of them, so that those bowtie2 cannot find are not
//! counted (see [`crate::seed::Bowtie2Seeding`]).

use std::ops::Range;

use seqfarm_fmindex::{BiInterval, Smem};

use super::{oriented_in, Aligner, Candidate, Outcome, ReadResult};
use crate::candidate::Placement;
use crate::cigar::CigarOp;
use crate::mapq::MapqModel;

/// Most occurrences of a bowtie2 seed whose every hit is extended: bowtie2's own
/// threshold for a "small" seed range, whose elements it all investigates.
const FEW_HITS: u64 = 5;

/// Occurrences of a bowtie2 seed with more than [`FEW_HITS`] that are extended: bowtie2
/// extends one random hit of each large range in turn, and stops after a streak of
/// extensions that find nothing better, so it meets few of a repeat's copies. One per
/// seed agrees with its second best as often as three (measured on simulated human
/// pairs), at a third less work.
const SAMPLED_HITS: usize = 1;

/// How many occurrences of bowtie2's seed `seed` are located (see [`FEW_HITS`]).
pub(super) fn bowtie2_seed_hits(seed: &Smem) -> usize {
    if seed.interval.size <= FEW_HITS {
        FEW_HITS as usize
    } else {
        SAMPLED_HITS
    }
}

impl Aligner<'_> {
    /// Whether the runner-ups follow bowtie2's (its mapping quality is reported).
    pub(super) fn bowtie2_runner_ups(&self) -> bool {
        matches!(self.params.mapq, MapqModel::Bowtie2(_))
    }

    /// bowtie2's seeds of each read of `which` that hold no N, searched all at once,
    /// into `self.bowtie2_seeds`; read `which[i]`'s are `self.bowtie2_seeds[ranges[i]]`.
    /// The index holds both strands, so one search finds a seed's occurrences as it is
    /// and reverse-complemented, as bowtie2 looks both up.
    pub(super) fn search_bowtie2_seeds(&mut self, which: &[usize], ranges: &mut Vec<Range<usize>>) {
        let seeding = self.params.bowtie2_seeding;
        self.bowtie2_seeds.clear();
        ranges.clear();
        let mut patterns: Vec<&[u8]> = Vec::new();
        for &r in which {
            let p = &self.prepared[r];
            let read = oriented_in(p, false, &self.codes, &self.penalties).0;
            let first = self.bowtie2_seeds.len();
            let (len, _) = seeding.layout(read.len(), p.bowtie2_paired);
            for s in seeding.starts(read.len(), p.bowtie2_paired) {
                let seed = &read[s..s + len];
                if len > 0 && seed.iter().all(|&c| c < 4) {
                    patterns.push(seed);
                    self.bowtie2_seeds.push(Smem {
                        start: s as u32,
                        end: (s + len) as u32,
                        interval: BiInterval::default(),
                    });
                }
            }
            ranges.push(first..self.bowtie2_seeds.len());
        }
        let mut intervals = Vec::with_capacity(patterns.len());
        self.index.intervals_many(&patterns, &mut intervals);
        for (seed, iv) in self.bowtie2_seeds.iter_mut().zip(intervals) {
            seed.interval = BiInterval {
                fwd: iv.start,
                rev: iv.start,
                size: iv.size,
            };
        }
    }

    /// When bowtie2 meets candidate `cand`'s extension, if ever: first (0) when it aligns
    /// the whole read without a gap and with one mismatch at most (bowtie2 looks the
    /// whole read up first, exactly and with one mismatch), else by the seed it holds
    /// with the fewest occurrences (bowtie2 extends the hits of its seeds fewest first),
    /// that seed's count; `None` when it holds none of bowtie2's seeds.
    pub(super) fn bowtie2_meets(&self, cand: &Candidate) -> Option<u64> {
        let Outcome::Done(Some(ext)) = &cand.outcome else {
            return None;
        };
        let p = &self.prepared[cand.read];
        let read = oriented_in(p, cand.reverse, &self.codes, &self.penalties).0;
        let window = &self.windows[cand.window.clone()];
        let whole = ext.read_start == 0
            && ext.read_end == read.len()
            && ext.window_end - ext.window_start == read.len();
        if whole {
            let differences = read
                .iter()
                .zip(&window[ext.window_start..ext.window_end])
                .filter(|&(&c, &w)| c >= 4 || c != w)
                .count();
            if differences <= 1 {
                return Some(0);
            }
        }
        let seeds = &self.bowtie2_seeds[p.bowtie2_seeds.clone()];
        let mut fewest: Option<u64> = None;
        self.params.bowtie2_seeding.held_seeds(
            read,
            window,
            ext,
            p.bowtie2_paired,
            cand.reverse,
            |start| {
                // A seed holding an N was not searched: bowtie2 skips it too.
                if let Some(seed) = seeds.iter().find(|m| m.start as usize == start) {
                    let count = seed.interval.size;
                    fewest = Some(fewest.map_or(count, |f| f.min(count)));
                }
            },
        );
        fewest
    }
}

/// The second-best score bowtie2 reports for a read whose best alignment scores
/// `best` (of `perfect` at most), the other alignments being `others` as (when bowtie2
/// meets it, score): bowtie2 takes the first it meets, then raises its minimum score to
/// three quarters of the way from that one to the best (its default `-M` tightening),
/// so that a later one counts only when it scores at least that. Of those it meets
/// together (by seeds as frequent), the best is taken first.
pub(super) fn second_best_met(best: i32, perfect: i32, mut others: Vec<(u64, i32)>) -> Option<i32> {
    others.sort_unstable_by_key(|&(met, score)| (met, std::cmp::Reverse(score)));
    let mut second: Option<i32> = None;
    let mut floor = i32::MIN;
    for (met, score) in others {
        if met == u64::MAX || score < floor || second.is_some_and(|s| score <= s) {
            continue;
        }
        second = Some(score);
        floor = score + (best - score) * 3 / 4;
        if floor < perfect {
            floor += 1;
        }
    }
    second
}

impl Aligner<'_> {
    /// Which reads of `settled`, each placed by the fast path at `results[r]`'s first
    /// placement, hold a bowtie2 seed that may occur somewhere else: bowtie2 may find
    /// a second best there, so the read needs the full search. A seed is searched until
    /// one row is left (as the fast path's are); one that occurs once is the
    /// placement's own when the reference there holds the part searched.
    pub(super) fn seeds_elsewhere(
        &mut self,
        settled: &[usize],
        results: &[ReadResult],
    ) -> Vec<bool> {
        let seeding = self.params.bowtie2_seeding;
        // The seeds, copied out (the reference checks below borrow the aligner).
        let mut bases: Vec<u8> = Vec::new();
        let mut spans: Vec<Range<usize>> = Vec::new();
        // Per seed: its read (index into `settled`) and its start in the read.
        let mut owners: Vec<(usize, usize)> = Vec::new();
        for (n, &r) in settled.iter().enumerate() {
            let p = &self.prepared[r];
            let read = oriented_in(p, false, &self.codes, &self.penalties).0;
            let (len, _) = seeding.layout(read.len(), p.bowtie2_paired);
            for s in seeding.starts(read.len(), p.bowtie2_paired) {
                let seed = &read[s..s + len];
                if seed.iter().all(|&c| c < 4) {
                    spans.push(bases.len()..bases.len() + len);
                    bases.extend_from_slice(seed);
                    owners.push((n, s));
                }
            }
        }
        let patterns: Vec<&[u8]> = spans.iter().map(|span| &bases[span.clone()]).collect();
        let (mut intervals, mut searched) = (Vec::new(), Vec::new());
        self.index
            .intervals_until_unique_many(&patterns, &mut intervals, &mut searched);
        let mut elsewhere = vec![false; settled.len()];
        let mut partial = Vec::new();
        for (k, ((&(n, start), iv), &done)) in
            owners.iter().zip(&intervals).zip(&searched).enumerate()
        {
            if elsewhere[n] || iv.size == 0 {
                continue;
            }
            let r = settled[n];
            let ReadResult::Aligned { placements, .. } = &results[r] else {
                continue;
            };
            let len = self.read_len(r);
            let (seed_len, _) = seeding.layout(len, self.prepared[r].bowtie2_paired);
            let end = start + seed_len;
            let part = end - done as usize..end;
            if iv.size > 1 {
                elsewhere[n] = true;
            } else if !self.placed_there(r, &placements[0], part) {
                // The part searched occurs once, elsewhere: the whole seed there, or
                // nowhere.
                if done as usize == seed_len {
                    elsewhere[n] = true;
                } else {
                    partial.push(k);
                }
            }
        }
        // The seeds whose searched part occurs elsewhere: searched to the end.
        let rest: Vec<&[u8]> = partial.iter().map(|&k| patterns[k]).collect();
        let mut rest_intervals: Vec<_> = partial.iter().map(|&k| intervals[k]).collect();
        let mut rest_searched: Vec<u32> = partial.iter().map(|&k| searched[k]).collect();
        self.index
            .resume_intervals_many(&rest, &mut rest_intervals, &mut rest_searched);
        for (&k, iv) in partial.iter().zip(&rest_intervals) {
            if iv.size > 0 {
                elsewhere[owners[k].0] = true;
            }
        }
        elsewhere
    }

    /// Whether placement `p` of read `r` aligns the read's bases `part` (as given)
    /// without a gap to equal reference bases.
    fn placed_there(&mut self, r: usize, p: &Placement, part: Range<usize>) -> bool {
        let len = self.read_len(r);
        // The part in the oriented read.
        let wanted = if p.reverse {
            len - part.end..len - part.start
        } else {
            part
        };
        let Some(start) = self.index.global_of(p.contig, p.position) else {
            return false;
        };
        // Walk the CIGAR to the match operation that holds the whole part.
        let (mut read_at, mut ref_at) = (0usize, start);
        for (op, n) in p.cigar.ops() {
            let n = n as usize;
            match op {
                CigarOp::Match | CigarOp::SeqMatch | CigarOp::SeqMismatch => {
                    if wanted.start >= read_at && wanted.end <= read_at + n {
                        let from = ref_at + (wanted.start - read_at) as u64;
                        self.index.reference().fetch_codes(
                            from,
                            from + wanted.len() as u64,
                            &mut self.scratch,
                        );
                        let (codes, _) = self.oriented(r, p.reverse);
                        return self.scratch[..] == codes[wanted];
                    }
                    read_at += n;
                    ref_at += n as u64;
                }
                CigarOp::Insertion | CigarOp::SoftClip => read_at += n,
                CigarOp::Deletion | CigarOp::Skip => ref_at += n as u64,
                CigarOp::HardClip | CigarOp::Pad => {}
            }
            if read_at > wanted.start {
                return false;
            }
        }
        false
    }
}
