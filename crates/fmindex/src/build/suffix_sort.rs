//! The suffix array in buckets that fit a memory budget.
//!
//! Suffixes are grouped by their first `P` characters (a *prefix code*; `4^P` codes). One
//! pass over the text counts every code; consecutive codes are then grouped into
//! *buckets* whose suffixes fit the budget, and the buckets are produced in order, each
//! as the contiguous run of suffix-array rows it is:
//! 1. the text is cut into one chunk per thread, and each thread scans its chunk for
//!    the bucket's codes and places those positions (a counting sort by code, each
//!    code's positions in text order whatever the chunks), each with the next 20
//!    characters and the BWT symbol read while that stretch of text is in cache
//!    ([`Entry`]);
//! 2. every thread sorts its codes' groups: first by the 20 characters in hand, then,
//!    for runs that still tie, 21 characters at a time as integer keys read from the
//!    text (sort by key, refine runs of equal keys), and by direct comparison for pairs
//!    and deep repeats.
//!
//! The result does not depend on the budget or the thread count: suffixes are distinct,
//! so their order is unique. Costs (`n` text characters, `B` buckets, `L` the mean
//! longest common prefix of neighbouring suffixes): `B` scans of the text (shared by the
//! threads), one random write per suffix (the counting sort), `O(n · L/21)` key reads
//! (random, one cache miss each) for the suffixes whose first `P + 20` characters are
//! not unique, plus the sorting of each group; `12` bytes per suffix of a bucket (`16`
//! past 2^32 characters) plus the code tables (`8 · 4^P` bytes, and as much per
//! thread) and the keys of each thread's sweep (24 bytes per suffix, up to a whole
//! group: [`sweep_key_bytes`]). An exact repeat of length
//! `R` costs `O(R^2/21)` sequential key reads (its copies tie until its end).

use std::ops::Range;

use seqfarm_farm::threads::spawn_scoped_or_run;

use super::huge::HugeArray;
use super::text::{PackedText, KEY_CHARS};

/// A text position as a bucket stores it: `u32` while the text allows, else `u64`.
pub(crate) trait Position: Copy + Default + Send + Sync + Ord + bytemuck::Pod {
    /// From a position known to fit.
    fn from_u64(p: u64) -> Self;
    /// As a text position.
    fn get(self) -> u64;
}

impl Position for u32 {
    #[inline(always)]
    fn from_u64(p: u64) -> Self {
        p as u32
    }
    #[inline(always)]
    fn get(self) -> u64 {
        u64::from(self)
    }
}

impl Position for u64 {
    #[inline(always)]
    fn from_u64(p: u64) -> Self {
        p
    }
    #[inline(always)]
    fn get(self) -> u64 {
        self
    }
}

/// A suffix in a bucket: its position, the next [`HEAD_CHARS`] characters after its
/// prefix code, and the BWT symbol of its row, read when it is placed (the text just
/// scanned is in cache) so that most suffixes are sorted and written without touching
/// the text again.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, packed)]
pub(crate) struct Entry<P> {
    /// Characters `P..P + 20` as 3-bit key values (bits 63..4), BWT symbol in bits 2..0
    /// (0..=3 a base, 4 a separator).
    head: u64,
    pos: P,
}

// SAFETY: `repr(C, packed)` of two plain integers: no padding, every bit pattern valid.
unsafe impl<P: Position> bytemuck::Zeroable for Entry<P> {}
// SAFETY: as above; `Copy` and `'static`.
unsafe impl<P: Position> bytemuck::Pod for Entry<P> {}

impl<P: Position> Entry<P> {
    /// The entry of the suffix at `p`, whose prefix code has `plen` characters.
    #[inline]
    fn of(text: &PackedText, p: u64, plen: u64) -> Self {
        let previous = match p.checked_sub(1).map(|q| text.symbol(q)) {
            Some(Some(symbol)) => u64::from(symbol),
            _ => 4,
        };
        Self {
            head: (text.key(p + plen) >> 3 << 4) | previous,
            pos: P::from_u64(p),
        }
    }

    /// The text position.
    #[inline(always)]
    pub fn pos(&self) -> u64 {
        let p = self.pos;
        p.get()
    }

    /// The BWT symbol of the suffix's row: `None` for a separator.
    #[inline(always)]
    pub fn bwt_symbol(&self) -> Option<u8> {
        let s = (self.head & 7) as u8;
        (s < 4).then_some(s)
    }

    #[inline(always)]
    fn head_key(&self) -> u64 {
        self.head >> 4
    }
}

/// Characters of a suffix stored in its [`Entry`].
const HEAD_CHARS: u64 = 20;
/// Groups at most this large are sorted by direct comparison.
const SMALL_GROUP: usize = 2;
/// Past this depth (characters), groups are sorted by direct comparison: deep ties are
/// long repeats, where each comparison reads the text sequentially.
const DEEP: u64 = 1 << 14;

/// The prefix length for a text of `n` characters: `4^P` about `n / 64`, within 1..=8.
/// The code table is read and written at random once per character, so it must stay in
/// a core's cache: 8 bytes times `4^8` is 512 KiB (at `P = 12` it took 128 MiB and the
/// count alone cost a cache miss per character).
pub(crate) fn prefix_len(n: u64) -> u32 {
    let log4 = (63 - n.max(1).leading_zeros()) / 2;
    log4.saturating_sub(3).clamp(1, 8)
}

/// Calls `f(p, code)` for every suffix `p` in `range` (within `0..n`), in order, with
/// `code` its first `plen` characters (first most significant), the characters from
/// the first separator or the end of the text on counted as `A` (such a suffix sorts
/// before every other suffix with that code). A scan may start anywhere: the calls are
/// those a scan of the whole text makes for `range`.
fn scan_codes(text: &PackedText, plen: u32, range: Range<u64>, mut f: impl FnMut(u64, usize)) {
    let n = text.len();
    let plen = u64::from(plen);
    let mask = (1u64 << (2 * plen)) - 1;
    let seps = text.separators();
    let end = range.end.min(n);
    let mut p = range.start;
    // The first separator at or after `p`.
    let mut barrier = seps.partition_point(|&s| s < p);
    let mut code = 0u64;
    for k in p..p + plen - 1 {
        code = (code << 2) | u64::from(text.code(k));
    }
    while p < end {
        while barrier < seps.len() && seps[barrier] < p {
            barrier += 1;
        }
        let stop = seps.get(barrier).copied().unwrap_or(u64::MAX).min(n);
        // Fast stretch: no separator and not the end in the code of the positions up to
        // `quiet`.
        let quiet = stop.saturating_sub(plen - 1).min(end);
        while p < quiet {
            code = ((code << 2) | u64::from(text.code(p + plen - 1))) & mask;
            f(p, code as usize);
            p += 1;
        }
        if p >= end {
            break;
        }
        // Near a separator or the end: the characters from it on count as `A`.
        code = ((code << 2) | u64::from(text.code(p + plen - 1))) & mask;
        let c = if stop < p + plen {
            code & !((1u64 << (2 * (p + plen - stop))) - 1)
        } else {
            code
        };
        f(p, c as usize);
        p += 1;
    }
}

/// The most chunks the text is cut into for its scans: each chunk holds three code
/// tables (its counts, and its cursors and ends while a bucket is placed), 512 KiB each
/// at the largest `P`; past 16 threads the sort still uses them all.
pub(crate) const MAX_CHUNKS: usize = 16;

/// The suffixes of every prefix code, over the whole text and per chunk of the text:
/// each chunk is scanned by one thread, both when counting and when a bucket's suffixes
/// are placed, so every bucket costs one scan of the text in all rather than one per
/// thread.
pub(crate) struct CodeCounts {
    /// Suffixes of each code.
    totals: HugeArray<u64>,
    /// `per_chunk[t * codes + c]`: suffixes of code `c` starting in chunk `t`.
    per_chunk: HugeArray<u64>,
    /// The text's chunks, in order.
    chunks: Vec<Range<u64>>,
}

impl CodeCounts {
    /// Counts the suffixes of every code of `plen` characters, the text cut into
    /// `chunks` (at most [`MAX_CHUNKS`]) equal ranges scanned in parallel.
    pub fn new(text: &PackedText, plen: u32, chunks: usize) -> std::io::Result<Self> {
        let codes = 1usize << (2 * plen);
        let n = text.len();
        let parts = (chunks.clamp(1, MAX_CHUNKS) as u64).min(n.max(1));
        let chunks: Vec<Range<u64>> = (0..parts)
            .map(|t| n * t / parts..n * (t + 1) / parts)
            .collect();
        let mut per_chunk = HugeArray::zeroed(codes * chunks.len())?;
        std::thread::scope(|scope| {
            for (range, counts) in chunks.iter().zip(per_chunk.chunks_mut(codes)) {
                let range = range.clone();
                spawn_scoped_or_run(scope, "seqfarm-index-count", move || {
                    scan_codes(text, plen, range, |_, c| counts[c] += 1)
                });
            }
        });
        let mut totals = HugeArray::<u64>::zeroed(codes)?;
        for counts in per_chunk.chunks(codes) {
            for (total, count) in totals.iter_mut().zip(counts) {
                *total += count;
            }
        }
        Ok(Self {
            totals,
            per_chunk,
            chunks,
        })
    }

    /// Suffixes of each code over the whole text.
    pub fn totals(&self) -> &[u64] {
        &self.totals
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> u64 {
        8 * (self.totals.len() + self.per_chunk.len()) as u64
    }
}

/// The most bytes the sorting threads hold beside a bucket for the keys of their sweeps:
/// a sweep takes whole runs, so it can hold a whole code group (a group with a suffix cut
/// short by a separator is refined from its first character as one run). Each group is
/// sorted by one thread, so at worst the `threads` largest groups are keyed at once.
pub(crate) fn sweep_key_bytes<P: Position>(totals: &[u64], threads: usize) -> u64 {
    let mut largest = totals.to_vec();
    let k = threads.clamp(1, largest.len().max(1));
    if k < largest.len() {
        largest.select_nth_unstable_by(k - 1, |a, b| b.cmp(a));
        largest.truncate(k);
    }
    let per_suffix = size_of::<(u64, Entry<P>)>() as u64;
    per_suffix * (largest.iter().sum::<u64>() + (k * SWEEP) as u64)
}

/// Consecutive code ranges whose suffixes number at most `capacity` each (a single code
/// with more suffixes gets a bucket of its own).
pub(crate) fn plan_buckets(counts: &[u64], capacity: u64) -> Vec<Range<usize>> {
    let mut buckets = Vec::new();
    let (mut start, mut size) = (0, 0u64);
    for (c, &n) in counts.iter().enumerate() {
        if size > 0 && size + n > capacity {
            buckets.push(start..c);
            (start, size) = (c, 0);
        }
        size += n;
    }
    buckets.push(start..counts.len());
    buckets
}

/// Splits `codes` into at most `parts` consecutive ranges of about equal suffix counts.
fn split_codes(counts: &[u64], codes: Range<usize>, parts: usize) -> Vec<Range<usize>> {
    let total: u64 = counts[codes.clone()].iter().sum();
    let share = total.div_ceil(parts as u64).max(1);
    let mut out = Vec::new();
    let (mut start, mut size) = (codes.start, 0u64);
    for c in codes.clone() {
        size += counts[c];
        if size >= share && out.len() + 1 < parts {
            out.push(start..c + 1);
            (start, size) = (c + 1, 0);
        }
    }
    out.push(start..codes.end);
    out
}

/// Sorts the suffixes of the codes in `codes` into `out` (which has exactly their
/// number of slots): the text's chunks place them in parallel (each code's suffixes in
/// text order, as one scan would), then `threads` threads sort the codes' groups.
pub(crate) fn sort_bucket<P: Position>(
    text: &PackedText,
    plen: u32,
    counts: &CodeCounts,
    codes: Range<usize>,
    out: &mut [Entry<P>],
    threads: usize,
) {
    let width = counts.totals.len();
    let chunks = counts.chunks.len();
    // Slot ranges, code by code and within a code chunk by chunk: `starts[t]` holds
    // chunk `t`'s first slot for each code, `ends[t]` the slot after its last.
    let tables = || -> Vec<Vec<u64>> {
        (0..chunks)
            .map(|_| Vec::with_capacity(codes.len()))
            .collect()
    };
    let (mut starts, mut ends) = (tables(), tables());
    let mut group_ends = Vec::with_capacity(codes.len());
    let mut at = 0u64;
    for c in codes.clone() {
        for t in 0..chunks {
            starts[t].push(at);
            at += counts.per_chunk[t * width + c];
            ends[t].push(at);
        }
        group_ends.push(at);
    }
    assert_eq!(at, out.len() as u64, "bucket slots");
    let slots = SharedSlots {
        ptr: out.as_mut_ptr(),
        len: out.len(),
    };
    std::thread::scope(|scope| {
        for ((range, mut cursors), ends) in counts.chunks.iter().zip(starts).zip(ends) {
            let (range, codes, slots) = (range.clone(), codes.clone(), &slots);
            spawn_scoped_or_run(scope, "seqfarm-index-place", move || {
                place(text, plen, range, codes, &mut cursors, &ends, slots)
            });
        }
    });
    let parts = split_codes(&counts.totals, codes.clone(), threads);
    let mut jobs = Vec::new();
    let (mut rest, mut done, mut from) = (&mut *out, 0u64, 0usize);
    for part in &parts {
        let to = from + part.len();
        let part_ends: Vec<u64> = group_ends[from..to].iter().map(|&e| e - done).collect();
        let size = part_ends.last().copied().unwrap_or(0);
        let (mine, others) = std::mem::take(&mut rest).split_at_mut(size as usize);
        jobs.push((mine, part_ends));
        (rest, done, from) = (others, done + size, to);
    }
    std::thread::scope(|scope| {
        for (slots, group_ends) in jobs {
            spawn_scoped_or_run(scope, "seqfarm-index-sort", move || {
                sort_groups(text, plen, slots, &group_ends)
            });
        }
    });
}

/// A bucket's slots as the placing threads share them: every (chunk, code) pair writes
/// only its own range of slots, so no two threads write the same slot.
struct SharedSlots<P> {
    ptr: *mut Entry<P>,
    len: usize,
}

// SAFETY: the slots are written through `place` only, each (chunk, code) pair within its
// own range (checked there), while the slice they come from is borrowed mutably.
unsafe impl<P: Send> Sync for SharedSlots<P> {}

/// Suffixes of a bucket gathered per scan block before they are written: the scan only
/// appends (without a branch on whether a suffix belongs), so the rare members cost no
/// mispredicted jump, and their entries are read from the text while it is in cache.
const PLACE_BLOCK: usize = 4096;

/// Places the suffixes of `range` whose code is in `codes`: suffix `p` of code `c` goes
/// to slot `cursors[c - codes.start]`, which then moves on, never reaching `ends`'s.
fn place<P: Position>(
    text: &PackedText,
    plen: u32,
    range: Range<u64>,
    codes: Range<usize>,
    cursors: &mut [u64],
    ends: &[u64],
    slots: &SharedSlots<P>,
) {
    let width = codes.len();
    let mut found = vec![(0u64, 0usize); PLACE_BLOCK];
    let mut held = 0;
    let mut write = |found: &[(u64, usize)]| {
        for &(p, k) in found {
            let slot = cursors[k];
            assert!(
                slot < ends[k] && (slot as usize) < slots.len,
                "slot out of range"
            );
            // SAFETY: in bounds (checked above), and the range `cursors[k]..ends[k]` is
            // this chunk's alone for this code (`sort_bucket`'s prefix sums).
            unsafe {
                slots
                    .ptr
                    .add(slot as usize)
                    .write(Entry::of(text, p, u64::from(plen)))
            };
            cursors[k] = slot + 1;
        }
    };
    scan_codes(text, plen, range, |p, c| {
        let k = c.wrapping_sub(codes.start);
        found[held] = (p, k);
        held += usize::from(k < width);
        if held == PLACE_BLOCK {
            write(&found[..held]);
            held = 0;
        }
    });
    write(&found[..held]);
}

/// Sorts each group of `slots` (one code's suffixes, ending at `group_ends`): by the
/// characters in hand, then runs that still tie are refined from the text a sweep at a
/// time (so the list of runs stays short).
fn sort_groups<P: Position>(
    text: &PackedText,
    plen: u32,
    slots: &mut [Entry<P>],
    group_ends: &[u64],
) {
    let mut runs = Vec::new();
    let mut pending = 0;
    let mut start = 0;
    let plen = u64::from(plen);
    for &end in group_ends {
        let (from, to) = (start as usize, end as usize);
        start = end;
        if pending >= SWEEP {
            refine_runs(text, slots, &mut runs);
            pending = 0;
        }
        let group = &mut slots[from..to];
        if group.len() < 2 {
            continue;
        }
        // A group holding a suffix cut short by a separator or the end is compared from
        // its first character; the others share their first `plen`.
        pending += to - from;
        if group
            .iter()
            .any(|e| text.has_barrier(e.pos(), e.pos() + plen))
        {
            runs.push((from, to, 0));
            continue;
        }
        group.sort_unstable_by_key(|e| e.head_key());
        let mut run = 0;
        for i in 1..=group.len() {
            if i == group.len() || group[i].head_key() != group[run].head_key() {
                if i - run > 1 {
                    runs.push((from + run, from + i, plen + HEAD_CHARS));
                }
                run = i;
            }
        }
    }
    refine_runs(text, slots, &mut runs);
}

/// Suffixes whose keys are read in one sweep: enough for the reads to overlap.
const SWEEP: usize = 1 << 16;

/// Sorts the runs `(from, to, depth)` of `slots` (leaving the list empty), each a set of suffixes that agree on
/// their first `depth` characters. Runs are taken a sweep at a time: the next 21
/// characters of every suffix of the sweep are read in one pass (prefetched well ahead,
/// so the cache misses overlap across runs), then each run is sorted by them and its
/// ties go back on the list, 21 characters deeper. Pairs and deep runs (long exact
/// repeats) are sorted by direct comparison, which reads the text sequentially.
fn refine_runs<P: Position>(
    text: &PackedText,
    slots: &mut [Entry<P>],
    runs: &mut Vec<(usize, usize, u64)>,
) {
    let mut sweep = Vec::new();
    let mut keyed: Vec<(u64, Entry<P>)> = Vec::new();
    while !runs.is_empty() {
        sweep.clear();
        let mut members = 0;
        while let Some(run) = runs.pop() {
            let (from, to, depth) = run;
            if to - from <= SMALL_GROUP || depth >= DEEP {
                slots[from..to].sort_unstable_by(|a, b| text.compare_from(a.pos(), b.pos(), depth));
                continue;
            }
            sweep.push(run);
            members += to - from;
            if members >= SWEEP {
                break;
            }
        }
        keyed.clear();
        // Exactly the sweep's size, so the scratch stays within `sweep_key_bytes`.
        keyed.reserve_exact(members);
        const AHEAD: usize = 16;
        let mut ahead = sweep
            .iter()
            .flat_map(|&(from, to, depth)| slots[from..to].iter().map(move |e| e.pos() + depth));
        for _ in 0..AHEAD {
            if let Some(p) = ahead.next() {
                text.prefetch(p);
            }
        }
        for &(from, to, depth) in &sweep {
            for e in &slots[from..to] {
                if let Some(p) = ahead.next() {
                    text.prefetch(p);
                }
                keyed.push((text.key(e.pos() + depth), *e));
            }
        }
        drop(ahead);
        let mut at = 0;
        for &(from, to, depth) in &sweep {
            let part = &mut keyed[at..at + (to - from)];
            at += to - from;
            part.sort_unstable_by_key(|(key, e)| (*key, e.pos()));
            let mut run = 0;
            for i in 0..part.len() {
                slots[from + i] = part[i].1;
                if i + 1 == part.len() || part[i + 1].0 != part[run].0 {
                    if i > run {
                        runs.push((from + run, from + i + 1, depth + KEY_CHARS));
                    }
                    run = i + 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
