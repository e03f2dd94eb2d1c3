//! Super-maximal exact matches (SMEMs), for one read at a time or for many reads
//! interleaved.
//!
//! Two searches, each a step at a time. A read's SMEMs of a minimum length are a
//! [`SmemSweep`]: it tests a window of that length by backward search and skips past
//! where the window stops occurring, so a read far from the reference costs a few
//! steps per window, not BWA's walk from every short match's end. The SMEMs that
//! contain one position and have a minimum number of occurrences (re-seeding) are a
//! [`SmemWalk`], BWA's `smem1`: extend right from the position, keeping each interval
//! where the size is about to drop, then extend all of them left together.
//!
//! Each step is a table lookup or one or two `Occ4` lookups, and the cache lines it
//! reads are known one step ahead. On an index many times the size of the cache nearly
//! every lookup misses it, so one read's search is a chain of dependent memory loads.
//! [`smems_many`] and [`smems_at_many`] keep [`LANES`] searches in flight: they step
//! each in turn and prefetch the lines of its next step, so the misses of the batch
//! overlap instead of adding up. The single-read functions run the same searches to
//! the end, so both give the same SMEMs (a test compares them, and both with brute
//! force).

mod sweep;

use std::ops::Range;

use seqfarm_core::nucleotide::AMBIGUOUS;

use self::sweep::SmemSweep;
use crate::search::{BiInterval, Searcher};

/// Reads searched at once by [`smems_many`].
const LANES: usize = 16;

/// A super-maximal exact match: `query[start..end]` occurs in the reference (either
/// strand), no longer exact match of the query contains it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Smem {
    /// First query position.
    pub start: u32,
    /// One past the last query position.
    pub end: u32,
    /// Its occurrences (both strands).
    pub interval: BiInterval,
}

impl Smem {
    /// Length of the match.
    pub fn len(&self) -> u32 {
        self.end - self.start
    }

    /// Whether the match is empty (never for a reported SMEM).
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// Reusable buffers for [`crate::FmIndex::smems`] and [`crate::FmIndex::smems_at`]
/// (one per worker thread).
#[derive(Debug, Default, Clone)]
pub struct SmemScratch {
    walk: SmemWalk,
    sweep: SmemSweep,
}

/// Reusable buffers for [`crate::FmIndex::smems_many`] (one per worker thread).
#[derive(Debug, Default, Clone)]
pub struct SmemBatchScratch {
    sweeps: Vec<(usize, SmemSweep)>,
    walks: Vec<(usize, WalkLane)>,
}

/// Which part of BWA's search a [`SmemWalk`] is in.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Extending `query[x..end]` to the right.
    Right,
    /// Extending every kept interval to the left.
    Left,
    /// Finished (or never started).
    #[default]
    Done,
}

/// The search for the SMEMs containing one query position, a step at a time.
#[derive(Debug, Default, Clone)]
struct SmemWalk {
    phase: Phase,
    x: usize,
    min_size: u64,
    /// Right phase: the next position to append. Left phase: the next position to
    /// prepend (-1: before the query).
    i: isize,
    /// Right phase: the interval of `query[x..end]`.
    iv: BiInterval,
    end: usize,
    /// How many matches the output held when the search started.
    first_found: usize,
    /// Where the next search of a sweep starts.
    next_start: usize,
    prev: Vec<(BiInterval, u32)>,
    curr: Vec<(BiInterval, u32)>,
}

impl SmemWalk {
    /// Starts the search from `x` for matches with at least `min_size` rows; false
    /// when there is nothing to search (`x` past the end or ambiguous, or its base
    /// too rare), with [`SmemWalk::next_start`] at `x + 1`.
    fn start(
        &mut self,
        searcher: &Searcher<'_>,
        query: &[u8],
        x: usize,
        min_size: u64,
        found: usize,
    ) -> bool {
        self.phase = Phase::Done;
        self.next_start = x + 1;
        if x >= query.len() || query[x] >= AMBIGUOUS {
            return false;
        }
        let min_size = min_size.max(1);
        let iv = searcher
            .table_interval(&query[x..x + 1])
            .unwrap_or_else(|| searcher.extend_left(searcher.everything(), query[x]));
        if iv.size < min_size {
            return false;
        }
        self.phase = Phase::Right;
        self.x = x;
        self.min_size = min_size;
        self.i = x as isize + 1;
        self.iv = iv;
        self.end = x + 1;
        self.first_found = found;
        self.prev.clear();
        self.curr.clear();
        self.prefetch_next(searcher, query);
        true
    }

    /// One step: one right extension, or one round of left extensions (which may
    /// append a match to `out`). False once the search has ended.
    fn step(&mut self, searcher: &Searcher<'_>, query: &[u8], out: &mut Vec<Smem>) -> bool {
        let going = match self.phase {
            Phase::Right => {
                self.step_right(searcher, query);
                true
            }
            Phase::Left => self.step_left(searcher, query, out),
            Phase::Done => false,
        };
        if going {
            self.prefetch_next(searcher, query);
        }
        going
    }

    /// Appends `query[i]`; where the size is about to drop, keeps the interval before.
    /// At the end of the right extension, turns to the left with the kept intervals,
    /// longest first.
    fn step_right(&mut self, searcher: &Searcher<'_>, query: &[u8]) {
        let i = self.i as usize;
        let mut stop = i >= query.len() || query[i] >= AMBIGUOUS;
        if !stop {
            let next = next_right(searcher, query, self.x, i, self.iv);
            if next.size != self.iv.size {
                self.curr.push((self.iv, self.end as u32));
                stop = next.size < self.min_size;
            }
            if !stop {
                self.iv = next;
                self.end = i + 1;
                self.i += 1;
            }
        }
        if stop {
            if self.curr.last().map(|&(_, e)| e as usize) != Some(self.end) {
                self.curr.push((self.iv, self.end as u32));
            }
            self.curr.reverse();
            self.next_start = self.curr[0].1 as usize;
            std::mem::swap(&mut self.prev, &mut self.curr);
            self.i = self.x as isize - 1;
            self.phase = Phase::Left;
        }
    }

    /// Prepends `query[i]` to every kept interval; a match that cannot grow is an SMEM
    /// when no longer one survived and the match just reported does not contain it.
    fn step_left(&mut self, searcher: &Searcher<'_>, query: &[u8], out: &mut Vec<Smem>) -> bool {
        let i = self.i;
        self.curr.clear();
        let c = if i >= 0 { query[i as usize] } else { AMBIGUOUS };
        for &(p, p_end) in &self.prev {
            let extended = if c < AMBIGUOUS {
                searcher.extend_left(p, c)
            } else {
                BiInterval::default()
            };
            if c >= AMBIGUOUS || extended.size < self.min_size {
                let start = (i + 1) as u32;
                if self.curr.is_empty()
                    && (out.len() == self.first_found
                        || out.last().is_some_and(|m| start < m.start))
                {
                    out.push(Smem {
                        start,
                        end: p_end,
                        interval: p,
                    });
                }
            } else if self
                .curr
                .last()
                .is_none_or(|&(q, _)| q.size != extended.size)
            {
                self.curr.push((extended, p_end));
            }
        }
        if self.curr.is_empty() {
            self.phase = Phase::Done;
            return false;
        }
        std::mem::swap(&mut self.prev, &mut self.curr);
        self.i -= 1;
        true
    }

    /// Starts loading the cache lines the next step reads (which on a large index
    /// arrive while other searches of a batch take their steps).
    fn prefetch_next(&self, searcher: &Searcher<'_>, query: &[u8]) {
        match self.phase {
            Phase::Right => prefetch_right(searcher, query, self.x, self.i as usize, self.iv),
            Phase::Left => {
                for &(p, _) in &self.prev {
                    searcher.bwt.prefetch(p.fwd);
                    searcher.bwt.prefetch(p.fwd + p.size);
                }
            }
            Phase::Done => {}
        }
    }
}

/// Starts loading what [`next_right`] reads to append `query[i]` to `query[x..i]`.
#[inline]
fn prefetch_right(searcher: &Searcher<'_>, query: &[u8], x: usize, i: usize, iv: BiInterval) {
    if i >= query.len() || query[i] >= AMBIGUOUS {
        return;
    }
    if i + 1 - x <= searcher.kmer_len as usize {
        searcher.prefetch_table(&query[x..=i]);
    } else {
        searcher.bwt.prefetch(iv.rev);
        searcher.bwt.prefetch(iv.rev + iv.size);
    }
}

/// The interval of `query[x..=i]` from that of `query[x..i]`: from the table while it
/// reaches, else one right extension.
#[inline]
fn next_right(
    searcher: &Searcher<'_>,
    query: &[u8],
    x: usize,
    i: usize,
    iv: BiInterval,
) -> BiInterval {
    if i + 1 - x <= searcher.kmer_len as usize {
        if let Some(t) = searcher.table_interval(&query[x..=i]) {
            return t;
        }
    }
    searcher.extend_right(iv, query[i])
}

/// A [`SmemWalk`] and the matches it appends, run by [`smems_at_many`].
#[derive(Debug, Default, Clone)]
struct WalkLane {
    walk: SmemWalk,
    found: Vec<Smem>,
}

impl Searcher<'_> {
    /// Appends to `out` the SMEMs of `query` that contain position `x` and have at
    /// least `min_size` occurrences, as BWA's `smem1`: extend right from `x` keeping
    /// each interval where the size drops, then extend all of them left together.
    /// Returns where the next call should start (the end of the longest right
    /// extension, or `x + 1` when `query[x]` is ambiguous).
    pub fn smems_at(
        &self,
        query: &[u8],
        x: usize,
        min_size: u64,
        scratch: &mut SmemScratch,
        out: &mut Vec<Smem>,
    ) -> usize {
        let walk = &mut scratch.walk;
        if walk.start(self, query, x, min_size, out.len()) {
            while walk.step(self, query, out) {}
        }
        walk.next_start
    }

    /// All SMEMs of `query` (codes, [`AMBIGUOUS`] never matched) of length at least
    /// `min_len`, sorted by start ([`SmemSweep`]).
    pub fn smems(
        &self,
        query: &[u8],
        min_len: u32,
        scratch: &mut SmemScratch,
        out: &mut Vec<Smem>,
    ) {
        let sweep = &mut scratch.sweep;
        if sweep.begin(self, query, min_len) {
            while sweep.step(self, query) {}
        }
        out.clear();
        out.extend_from_slice(&sweep.found);
    }
}

/// What [`in_lock_step`] runs in each lane: a search and the matches it found.
trait Lane: Default {
    fn found(&self) -> &[Smem];
}

impl Lane for WalkLane {
    fn found(&self) -> &[Smem] {
        &self.found
    }
}

/// [`Searcher::smems`] of every read, [`LANES`] at once with prefetching: read `r`'s
/// SMEMs are `out[ranges[r]]` (both cleared first; `out` holds the reads' matches in
/// the order the reads finish, so the ranges are not in ascending order).
pub(crate) fn smems_many<P: AsRef<[u8]>>(
    searcher: &Searcher<'_>,
    reads: &[P],
    min_len: u32,
    scratch: &mut SmemBatchScratch,
    out: &mut Vec<Smem>,
    ranges: &mut Vec<Range<usize>>,
) {
    in_lock_step(
        &mut scratch.sweeps,
        reads.len(),
        |r, sweep| sweep.begin(searcher, reads[r].as_ref(), min_len),
        |r, sweep| sweep.step(searcher, reads[r].as_ref()),
        out,
        ranges,
    );
}

/// [`Searcher::smems_at`] of every `(query, x, min_size)` job, [`LANES`] at once with
/// prefetching: job `j`'s matches are `out[ranges[j]]` (both cleared first).
pub(crate) fn smems_at_many(
    searcher: &Searcher<'_>,
    jobs: &[(&[u8], usize, u64)],
    scratch: &mut SmemBatchScratch,
    out: &mut Vec<Smem>,
    ranges: &mut Vec<Range<usize>>,
) {
    in_lock_step(
        &mut scratch.walks,
        jobs.len(),
        |j, lane| {
            let (query, x, min_size) = jobs[j];
            lane.found.clear();
            lane.walk.start(searcher, query, x, min_size, 0)
        },
        |j, lane| lane.walk.step(searcher, jobs[j].0, &mut lane.found),
        out,
        ranges,
    );
}

/// Runs searches `0..jobs` [`LANES`] at a time, stepping each live one in turn:
/// `begin(job, lane)` starts a job in a lane (false: it has nothing to search), and
/// `step(job, lane)` advances it one step (false: it has ended). Job `j`'s matches go
/// to `out[ranges[j]]` (both cleared first).
fn in_lock_step<L: Lane>(
    lanes: &mut Vec<(usize, L)>,
    jobs: usize,
    mut begin: impl FnMut(usize, &mut L) -> bool,
    mut step: impl FnMut(usize, &mut L) -> bool,
    out: &mut Vec<Smem>,
    ranges: &mut Vec<Range<usize>>,
) {
    out.clear();
    ranges.clear();
    ranges.resize(jobs, 0..0);
    let mut finish = |job: usize, lane: &L| {
        let first = out.len();
        out.extend_from_slice(lane.found());
        ranges[job] = first..out.len();
    };
    lanes.resize_with(LANES, Default::default);
    // The first `live` lanes are searching.
    let mut live = 0;
    let mut next = 0;
    loop {
        while live < LANES && next < jobs {
            let (job, lane) = &mut lanes[live];
            *job = next;
            next += 1;
            if begin(*job, lane) {
                live += 1;
            } else {
                finish(*job, lane);
            }
        }
        if live == 0 {
            break;
        }
        let mut k = 0;
        while k < live {
            let (job, lane) = &mut lanes[k];
            if step(*job, lane) {
                k += 1;
            } else {
                finish(*job, lane);
                live -= 1;
                lanes.swap(k, live);
            }
        }
    }
}
