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

use std::ops::Range;

use seqfarm_core::nucleotide::AMBIGUOUS;

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

/// Which part of a [`SmemSweep`]'s search comes next.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Look up the last bases of the window `query[x..x + min_len]` in the k-mer table.
    Window,
    /// Prepend `query[i - 1]` to the interval of `query[i..x + min_len]`.
    Test,
    /// Append `query[i]` to the interval of `query[x..i]`.
    Right,
    /// Look up `query[i..=reach]` in the k-mer table.
    BackTable,
    /// Prepend `query[i - 1]` to the interval of `query[i..=reach]`.
    Back,
    /// Finished (or never started).
    #[default]
    Done,
}

/// All the SMEMs of one read of at least `min_len` bases, a step at a time, by
/// skipping (Gagie's search, as ropebwt3 has it) rather than BWA's walk from every
/// SMEM end:
///
/// 1. **Test** the window `query[x..x + min_len]` by backward search from its end. If
///    `query[f..x + min_len]` does not occur, no such SMEM starts in `x..=f`: go on
///    from `f + 1`. A read far from the reference (adapters, another strain) rarely
///    gets past a few bases of a window, so most of it is skipped.
/// 2. Otherwise **extend right** to the end `reach` of the longest match from `x`:
///    `query[x..reach]` is an SMEM, because `query[x - 1..reach]` does not occur
///    (whatever moved the search to `x` found a part of it that does not).
/// 3. **Search back** from `reach` for the first start `x' > x` whose match reaches
///    past it (every start between gives a match inside the one just found), and go
///    on from `x'`: straight to step 2 when `query[x'..=reach]` already holds
///    `min_len` bases.
///
/// The first bases of steps 1 and 3 come from the k-mer table. The result is exactly
/// the SMEMs of at least `min_len` bases, sorted by start: those BWA finds with a
/// [`SmemWalk`] from every SMEM's end (a test compares it with brute force at several
/// lengths).
#[derive(Debug, Default, Clone)]
struct SmemSweep {
    stage: Stage,
    min_len: usize,
    /// The start of the window (Window, Test) or of the match (Right, Back).
    x: usize,
    /// The next position to read (see [`Stage`]).
    i: usize,
    /// Back and BackTable: the end of the match just reported, which the next must pass.
    reach: usize,
    /// The interval of the bases read so far (see [`Stage`]).
    iv: BiInterval,
    /// The read's SMEMs so far, sorted by start.
    found: Vec<Smem>,
}

impl SmemSweep {
    /// Starts the search of `query` for SMEMs of `min_len` bases or more (at least 1);
    /// false when none can be found.
    fn begin(&mut self, searcher: &Searcher<'_>, query: &[u8], min_len: u32) -> bool {
        self.found.clear();
        self.min_len = (min_len as usize).max(1);
        self.window_at(searcher, query, 0);
        self.stage != Stage::Done
    }

    /// The number of window bases the table gives at once.
    fn table_len(&self, searcher: &Searcher<'_>) -> usize {
        self.min_len.min(searcher.kmer_len as usize)
    }

    /// Moves the window to `x`, past any window holding an ambiguous base, and starts
    /// loading its table entry.
    fn window_at(&mut self, searcher: &Searcher<'_>, query: &[u8], mut x: usize) {
        let k = self.table_len(searcher);
        loop {
            let end = x + self.min_len;
            if end > query.len() {
                self.stage = Stage::Done;
                return;
            }
            let tail = &query[end - k..end];
            match tail.iter().rposition(|&c| c >= AMBIGUOUS) {
                Some(a) => x = end - k + a + 1,
                None => {
                    searcher.prefetch_table(tail);
                    self.stage = Stage::Window;
                    self.x = x;
                    return;
                }
            }
        }
    }

    /// One step: one table lookup or extension (which may append an SMEM). False once
    /// the read is done.
    fn step(&mut self, searcher: &Searcher<'_>, query: &[u8]) -> bool {
        match self.stage {
            Stage::Window => {
                let end = self.x + self.min_len;
                let start = end - self.table_len(searcher);
                let iv = searcher.interval(&query[start..end]);
                if iv.is_empty() {
                    self.window_at(searcher, query, start + 1);
                } else {
                    self.iv = iv;
                    self.i = start;
                    self.tested();
                }
            }
            Stage::Test => {
                let c = query[self.i - 1];
                let next = if c < AMBIGUOUS {
                    searcher.extend_left(self.iv, c)
                } else {
                    BiInterval::default()
                };
                if next.is_empty() {
                    self.window_at(searcher, query, self.i);
                } else {
                    self.iv = next;
                    self.i -= 1;
                    self.tested();
                }
            }
            Stage::Right => {
                let i = self.i;
                let next = if i < query.len() && query[i] < AMBIGUOUS {
                    next_right(searcher, query, self.x, i, self.iv)
                } else {
                    BiInterval::default()
                };
                if next.is_empty() {
                    self.found.push(Smem {
                        start: self.x as u32,
                        end: i as u32,
                        interval: self.iv,
                    });
                    self.back_from(searcher, query, i);
                } else {
                    self.iv = next;
                    self.i += 1;
                }
            }
            Stage::BackTable => {
                let iv = searcher.interval(&query[self.i..=self.reach]);
                if iv.is_empty() {
                    // The start lies among the table's bases: the longest suffix of
                    // those that occurs, a base at a time (rare: the table holds a
                    // length at which most strings occur).
                    let mut start = self.reach + 1;
                    let mut iv = BiInterval::default();
                    while start > self.i + 1 {
                        let longer = searcher.interval(&query[start - 1..=self.reach]);
                        if longer.is_empty() {
                            break;
                        }
                        (iv, start) = (longer, start - 1);
                    }
                    self.next_match_from(searcher, query, start, iv);
                } else {
                    self.iv = iv;
                    self.backed(searcher, query);
                }
            }
            Stage::Back => {
                let next = searcher.extend_left(self.iv, query[self.i - 1]);
                if next.is_empty() {
                    self.next_match_from(searcher, query, self.i, self.iv);
                } else {
                    self.iv = next;
                    self.i -= 1;
                    self.backed(searcher, query);
                }
            }
            Stage::Done => return false,
        }
        self.prefetch_next(searcher, query);
        self.stage != Stage::Done
    }

    /// After a step of the window's test: on to the right extension once the whole
    /// window occurs.
    fn tested(&mut self) {
        self.stage = Stage::Test;
        if self.i == self.x {
            self.stage = Stage::Right;
            self.i = self.x + self.min_len;
        }
    }

    /// After the SMEM `query[x..reach]`: searches back from `reach` for the next start.
    fn back_from(&mut self, searcher: &Searcher<'_>, query: &[u8], reach: usize) {
        if reach == query.len() {
            self.stage = Stage::Done;
        } else if query[reach] >= AMBIGUOUS {
            self.window_at(searcher, query, reach + 1);
        } else {
            let k = (searcher.kmer_len as usize).min(reach - self.x);
            self.reach = reach;
            self.i = reach + 1 - k;
            self.stage = Stage::BackTable;
            searcher.prefetch_table(&query[self.i..=reach]);
        }
    }

    /// After a step of the back search: done when it reaches the base after the last
    /// SMEM's start.
    fn backed(&mut self, searcher: &Searcher<'_>, query: &[u8]) {
        self.stage = Stage::Back;
        if self.i == self.x + 1 {
            self.next_match_from(searcher, query, self.i, self.iv);
        }
    }

    /// Goes on from `start`, the first start after the last SMEM's whose match passes
    /// its end (`iv`: the interval of `query[start..=reach]`; `start` past `reach`
    /// when none does).
    fn next_match_from(
        &mut self,
        searcher: &Searcher<'_>,
        query: &[u8],
        start: usize,
        iv: BiInterval,
    ) {
        if start <= self.reach && self.reach + 1 - start >= self.min_len {
            self.stage = Stage::Right;
            self.x = start;
            self.i = self.reach + 1;
            self.iv = iv;
        } else {
            self.window_at(searcher, query, start);
        }
    }

    /// Starts loading the cache lines the next step reads.
    fn prefetch_next(&self, searcher: &Searcher<'_>, query: &[u8]) {
        match self.stage {
            Stage::Test | Stage::Back => {
                searcher.bwt.prefetch(self.iv.fwd);
                searcher.bwt.prefetch(self.iv.fwd + self.iv.size);
            }
            Stage::Right => prefetch_right(searcher, query, self.x, self.i, self.iv),
            // The table entry was asked for when the stage was set.
            Stage::Window | Stage::BackTable | Stage::Done => {}
        }
    }
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

impl Lane for SmemSweep {
    fn found(&self) -> &[Smem] {
        &self.found
    }
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
