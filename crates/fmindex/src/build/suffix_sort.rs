//! The suffix array in buckets that fit a memory budget.
//!
//! Suffixes are grouped by their first `P` characters (a *prefix code*; `4^P` codes). One
//! pass over the text counts every code; consecutive codes are then grouped into
//! *buckets* whose suffixes fit the budget, and the buckets are produced in order, each
//! as the contiguous run of suffix-array rows it is:
//! 1. every thread scans the whole text and places the positions of its share of the
//!    bucket's codes (counting sort, so each code's positions are already together),
//!    each with the next 20 characters and the BWT symbol read on the way ([`Entry`]);
//! 2. every thread sorts its codes' groups: first by the 20 characters in hand, then,
//!    for runs that still tie, 21 characters at a time as integer keys read from the
//!    text (sort by key, refine runs of equal keys), and by direct comparison for pairs
//!    and deep repeats.
//!
//! The result does not depend on the budget or the thread count: suffixes are distinct,
//! so their order is unique. Costs (`n` text characters, `B` buckets, `L` the mean
//! longest common prefix of neighbouring suffixes): `B` scans of the text (each on every
//! thread), one random write per suffix (the counting sort), `O(n · L/21)` key reads
//! (random, one cache miss each) for the suffixes whose first `P + 20` characters are
//! not unique, plus the sorting of each group; `12` bytes per suffix of a bucket (`16`
//! past 2^32 characters) plus the `8 · 4^P`-byte code table. An exact repeat of length
//! `R` costs `O(R^2/21)` sequential key reads (its copies tie until its end).

use std::ops::Range;

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
/// prefix code, and the BWT symbol of its row, all read during the sequential scan so
/// that most suffixes are sorted and written without touching the text again.
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

/// Calls `f(p, code, head)` for every suffix `p` in `0..n`: `code` is its first `plen`
/// characters (first most significant), with the characters from the first separator
/// or the end of the text on counted as `A` (such a suffix sorts before every other
/// suffix with that code); `head` is as [`Entry::head`].
fn scan_prefixes(text: &PackedText, plen: u32, mut f: impl FnMut(u64, usize, u64)) {
    let n = text.len();
    let plen = u64::from(plen);
    let mask = (1u64 << (2 * plen)) - 1;
    let head_mask = (1u64 << (3 * HEAD_CHARS)) - 1;
    let seps = text.separators();
    let char3 = |q: u64, next: &mut usize| -> u64 {
        if q >= n {
            return 0;
        }
        while *next < seps.len() && seps[*next] < q {
            *next += 1;
        }
        if seps.get(*next) == Some(&q) {
            1
        } else {
            u64::from(text.code(q)) + 2
        }
    };
    // `barrier`: the first separator at or after p; `ahead`: the one at or after the
    // character entering the head.
    let (mut barrier, mut ahead) = (0usize, 0usize);
    let mut code = 0u64;
    for k in 0..plen - 1 {
        code = (code << 2) | u64::from(text.code(k));
    }
    let mut head = 0u64;
    for k in 0..HEAD_CHARS - 1 {
        head = (head << 3) | char3(plen + k, &mut ahead);
    }
    let mut previous: u64 = 4;
    let mut p = 0;
    while p < n {
        while barrier < seps.len() && seps[barrier] < p {
            barrier += 1;
        }
        let stop = seps.get(barrier).copied().unwrap_or(u64::MAX).min(n);
        // Fast stretch: no separator and not the end in any window (code and head) of
        // the positions up to `quiet`, and none before them.
        let quiet = stop.saturating_sub(plen + HEAD_CHARS - 1);
        while p < quiet {
            code = ((code << 2) | u64::from(text.code(p + plen - 1))) & mask;
            let entering = u64::from(text.code(p + plen + HEAD_CHARS - 1)) + 2;
            head = ((head << 3) | entering) & head_mask;
            f(p, code as usize, (head << 4) | previous);
            previous = u64::from(text.code(p));
            p += 1;
        }
        if p >= n {
            break;
        }
        // Near a separator or the end: one position at a time.
        code = ((code << 2) | u64::from(text.code(p + plen - 1))) & mask;
        head = ((head << 3) | char3(p + plen + HEAD_CHARS - 1, &mut ahead)) & head_mask;
        let c = if stop < p + plen {
            code & !((1u64 << (2 * (p + plen - stop))) - 1)
        } else {
            code
        };
        f(p, c as usize, (head << 4) | previous);
        previous = if stop == p {
            4
        } else {
            u64::from(text.code(p))
        };
        p += 1;
    }
}

/// Counts the suffixes of every prefix code.
pub(crate) fn count_codes(text: &PackedText, plen: u32) -> std::io::Result<HugeArray<u64>> {
    let mut counts = HugeArray::zeroed(1 << (2 * plen))?;
    scan_prefixes(text, plen, |_, c, _| counts[c] += 1);
    Ok(counts)
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
/// number of slots), using `threads` threads. `counts` is the code table of
/// [`count_codes`]; its entries for `codes` are used as cursors and left changed.
pub(crate) fn sort_bucket<P: Position>(
    text: &PackedText,
    plen: u32,
    counts: &mut [u64],
    codes: Range<usize>,
    out: &mut [Entry<P>],
    threads: usize,
) {
    let parts = split_codes(counts, codes.clone(), threads);
    // Each part: its codes, its slots, and its slice of the code table as cursors.
    let mut jobs = Vec::new();
    let (mut slots, mut table) = (&mut *out, &mut counts[codes.start..codes.end]);
    for part in &parts {
        let n: u64 = table[..part.len()].iter().sum();
        let (mine, rest) = std::mem::take(&mut slots).split_at_mut(n as usize);
        let (cursors, others) = std::mem::take(&mut table).split_at_mut(part.len());
        jobs.push((part.clone(), mine, cursors));
        (slots, table) = (rest, others);
    }
    std::thread::scope(|scope| {
        for (part, slots, cursors) in jobs {
            scope.spawn(move || sort_part(text, plen, part, slots, cursors));
        }
    });
}

/// One thread's share of a bucket: place, then sort each code's group.
fn sort_part<P: Position>(
    text: &PackedText,
    plen: u32,
    codes: Range<usize>,
    slots: &mut [Entry<P>],
    cursors: &mut [u64],
) {
    // Cursors start at each code's first slot and end at the next code's.
    let mut at = 0;
    for c in cursors.iter_mut() {
        (*c, at) = (at, at + *c);
    }
    scan_prefixes(text, plen, |p, c, head| {
        if codes.contains(&c) {
            let cursor = &mut cursors[c - codes.start];
            slots[*cursor as usize] = Entry {
                head,
                pos: P::from_u64(p),
            };
            *cursor += 1;
        }
    });
    // Sort each code's group by the characters in hand; runs that still tie are refined
    // from the text a sweep at a time (so the list of runs stays short).
    let mut runs = Vec::new();
    let mut pending = 0;
    let mut start = 0;
    let plen = u64::from(plen);
    for &end in cursors.iter() {
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
mod tests {
    use super::*;
    use crate::reference::ReferenceBuilder;

    /// The suffix array by libsais, as the reference.
    fn libsais_sa(text: &PackedText) -> Vec<u64> {
        let bytes: Vec<u8> = (0..text.len())
            .map(|p| text.symbol(p).map_or(0, |c| c + 1))
            .collect();
        let sa: Vec<i64> = libsais::SuffixArrayConstruction::for_text(&bytes)
            .in_owned_buffer::<i64>()
            .single_threaded()
            .run()
            .unwrap()
            .into_vec();
        sa.into_iter().map(|v| v as u64).collect()
    }

    fn bucketed_sa<P: Position>(
        text: &PackedText,
        plen: u32,
        capacity: u64,
        threads: usize,
    ) -> Vec<u64> {
        let mut counts = count_codes(text, plen).unwrap();
        let buckets = plan_buckets(&counts, capacity);
        let mut sa = Vec::new();
        for codes in buckets {
            let n: u64 = counts[codes.clone()].iter().sum();
            let mut out = vec![Entry::<P>::default(); n as usize];
            sort_bucket(text, plen, &mut counts, codes, &mut out, threads);
            for e in &out {
                let p = e.pos();
                let expected = if p == 0 { None } else { text.symbol(p - 1) };
                assert_eq!(e.bwt_symbol(), expected, "BWT symbol of {p}");
            }
            sa.extend(out.iter().map(|e| e.pos()));
        }
        sa
    }

    fn reference(contigs: &[&[u8]]) -> ReferenceBuilder {
        let mut r = ReferenceBuilder::new();
        for (i, c) in contigs.iter().enumerate() {
            r.add_contig(&format!("c{i}"), c).unwrap();
        }
        r
    }

    fn pseudo_random(len: usize, seed: u64, alphabet: &[u8]) -> Vec<u8> {
        let mut x = seed;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                alphabet[(x % alphabet.len() as u64) as usize]
            })
            .collect()
    }

    #[test]
    fn buckets_give_the_suffix_array_at_any_budget_and_thread_count() {
        let random = pseudo_random(3000, 7, b"ACGT");
        let repeat: Vec<u8> = b"ACGTTGCAAC".iter().copied().cycle().take(2500).collect();
        let poly = vec![b'A'; 1500];
        let with_n = pseudo_random(2000, 11, b"ACGTN");
        let mut copy = random.clone();
        copy[1500] = b'T';
        let r = reference(&[&random, &repeat, &poly, &with_n, &copy, b"A", b"CG"]);
        let text = PackedText::new(&r.layout, &r.bases).unwrap();
        let expected = libsais_sa(&text);
        for plen in [1, 3, 6] {
            for capacity in [1, 500, 5000, u64::MAX] {
                for threads in [1, 3] {
                    assert_eq!(
                        bucketed_sa::<u32>(&text, plen, capacity, threads),
                        expected,
                        "P {plen}, capacity {capacity}, threads {threads}"
                    );
                }
            }
        }
        assert_eq!(bucketed_sa::<u64>(&text, 4, 700, 2), expected);
    }

    #[test]
    fn deep_repeats_sort_without_recursion() {
        // Two exact copies of 20 kb: ties run thousands of characters deep.
        let unit = pseudo_random(20_000, 3, b"ACGT");
        let tandem: Vec<u8> = b"AC".iter().copied().cycle().take(9000).collect();
        let r = reference(&[&unit, &unit, &tandem]);
        let text = PackedText::new(&r.layout, &r.bases).unwrap();
        assert_eq!(bucketed_sa::<u32>(&text, 5, 10_000, 2), libsais_sa(&text));
    }
}
