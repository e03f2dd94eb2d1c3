//! The sweep for all the SMEMs of one read of a minimum length: a window tested by
//! backward search and skipped past where it stops occurring, the longest match from
//! its start extended right, then a search back for the next start, a step at a time.

use seqfarm_core::nucleotide::AMBIGUOUS;

use super::{next_right, prefetch_right, Lane, Smem};
use crate::search::{BiInterval, Searcher};

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
/// [`SmemWalk`](super::SmemWalk) from every SMEM's end (a test compares it with brute
/// force at several lengths).
#[derive(Debug, Default, Clone)]
pub(super) struct SmemSweep {
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
    pub(super) found: Vec<Smem>,
}

impl SmemSweep {
    /// Starts the search of `query` for SMEMs of `min_len` bases or more (at least 1);
    /// false when none can be found.
    pub(super) fn begin(&mut self, searcher: &Searcher<'_>, query: &[u8], min_len: u32) -> bool {
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
    pub(super) fn step(&mut self, searcher: &Searcher<'_>, query: &[u8]) -> bool {
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

impl Lane for SmemSweep {
    fn found(&self) -> &[Smem] {
        &self.found
    }
}
