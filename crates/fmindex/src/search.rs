//! Searches on the FMD-index: backward search, bidirectional extension, SMEMs.
//!
//! The text is `X · revcomp(X)`, so the suffix-array interval of a pattern `P` counts
//! its occurrences on both strands, and the interval of `revcomp(P)` has the same size.
//! A [`BiInterval`] keeps both starts; extending `P` to the left by `c` (backward
//! search) gives the new start of `P` from `Occ`, and the new start of `revcomp(cP) =
//! revcomp(P)·comp(c)` from the sizes of the four extensions, because inside the
//! interval of `revcomp(P)` the rows are sorted by the symbol that follows. Extending
//! to the right is extending `revcomp(P)` to the left. Each extension costs two `Occ4`
//! lookups: O(1), about two cache misses (one when the interval is narrow).

use seqfarm_core::nucleotide::AMBIGUOUS;

use crate::kmer::{self, SATURATED};
use crate::occ::Bwt;

/// The suffix-array intervals of a pattern `P` (`fwd..fwd + size`) and of its reverse
/// complement (`rev..rev + size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BiInterval {
    /// First row of `P`.
    pub fwd: u64,
    /// First row of `revcomp(P)`.
    pub rev: u64,
    /// Number of rows: occurrences of `P` on both strands (a reverse-complement
    /// palindrome is counted at each position once per strand).
    pub size: u64,
}

impl BiInterval {
    /// The same interval seen from the reverse complement.
    #[inline]
    pub fn swapped(self) -> Self {
        Self {
            fwd: self.rev,
            rev: self.fwd,
            size: self.size,
        }
    }

    /// Whether the pattern does not occur.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }
}

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

/// Reusable buffers for [`crate::FmIndex::smems`] (one per worker thread).
#[derive(Debug, Default, Clone)]
pub struct SmemScratch {
    prev: Vec<(BiInterval, u32)>,
    curr: Vec<(BiInterval, u32)>,
}

/// The search operations over one BWT and its k-mer table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Searcher<'a> {
    pub bwt: Bwt<'a>,
    pub kmers: &'a [u64],
    pub kmer_len: u32,
}

impl Searcher<'_> {
    /// The intervals of `cP` for the four `c`, from that of `P`.
    #[inline]
    pub fn extend_left_all(&self, iv: BiInterval) -> [BiInterval; 4] {
        let lo = self.bwt.occ4(iv.fwd);
        let hi = if iv.size == 0 {
            lo
        } else {
            self.bwt.occ4(iv.fwd + iv.size)
        };
        let mut out = [BiInterval::default(); 4];
        let mut total = 0;
        for c in 0..4 {
            out[c].fwd = self.bwt.c[c] + lo[c];
            out[c].size = hi[c] - lo[c];
            total += out[c].size;
        }
        // Inside revcomp(P)'s rows: those followed by a separator or the end first,
        // then revcomp(P)·A = revcomp(T·P), ·C = revcomp(G·P), ·G, ·T.
        out[3].rev = iv.rev + (iv.size - total);
        out[2].rev = out[3].rev + out[3].size;
        out[1].rev = out[2].rev + out[2].size;
        out[0].rev = out[1].rev + out[1].size;
        out
    }

    /// The interval of `cP` (`c` in `0..=3`).
    #[inline]
    pub fn extend_left(&self, iv: BiInterval, c: u8) -> BiInterval {
        self.extend_left_all(iv)[c as usize]
    }

    /// The interval of `Pc` (`c` in `0..=3`).
    #[inline]
    pub fn extend_right(&self, iv: BiInterval, c: u8) -> BiInterval {
        self.extend_left(iv.swapped(), 3 - c).swapped()
    }

    /// The interval of the empty pattern (every row).
    fn everything(&self) -> BiInterval {
        BiInterval {
            fwd: 0,
            rev: 0,
            size: self.bwt.len(),
        }
    }

    /// The interval of `codes` (length `1..=kmer_len`, all `0..=3`) from the table;
    /// `None` when a size was too large to store.
    #[inline]
    pub fn table_interval(&self, codes: &[u8]) -> Option<BiInterval> {
        let mut rc = 0usize;
        for (i, &c) in codes.iter().enumerate() {
            rc |= (3 - c as usize) << (2 * i);
        }
        let (fwd, size) = self.table_entry(codes);
        if size == SATURATED {
            return None;
        }
        let (rev, _) = kmer::unpack(self.kmers[kmer::level_offset(codes.len() as u32) + rc]);
        Some(BiInterval { fwd, rev, size })
    }

    /// `(start, size)` of the table entry of `codes` (length `1..=kmer_len`, all
    /// `0..=3`); size [`SATURATED`] means "too large to store".
    #[inline]
    pub fn table_entry(&self, codes: &[u8]) -> (u64, u64) {
        let mut code = 0usize;
        for &c in codes {
            code = (code << 2) | c as usize;
        }
        kmer::unpack(self.kmers[kmer::level_offset(codes.len() as u32) + code])
    }

    /// The interval of `codes` (any length; an [`AMBIGUOUS`] code gives the empty
    /// interval). O(1) up to the table length, then one extension per further base.
    pub fn interval(&self, codes: &[u8]) -> BiInterval {
        if codes.iter().any(|&c| c >= AMBIGUOUS) {
            return BiInterval::default();
        }
        if codes.is_empty() {
            return self.everything();
        }
        let k = codes.len().min(self.kmer_len as usize);
        let tail = &codes[codes.len() - k..];
        let mut iv = match self.table_interval(tail) {
            Some(iv) => iv,
            None => tail
                .iter()
                .rev()
                .fold(self.everything(), |iv, &c| self.extend_left(iv, c)),
        };
        for &c in codes[..codes.len() - k].iter().rev() {
            if iv.size == 0 {
                break;
            }
            iv = self.extend_left(iv, c);
        }
        iv
    }

    /// Number of rows matching `codes` by plain backward search (one strand's interval,
    /// both strands' occurrences). Cheaper than [`Searcher::interval`]: two `Occ` per
    /// base instead of two `Occ4`.
    pub fn count(&self, codes: &[u8]) -> u64 {
        if codes.is_empty() || codes.iter().any(|&c| c >= AMBIGUOUS) {
            return if codes.is_empty() { self.bwt.len() } else { 0 };
        }
        let k = codes.len().min(self.kmer_len as usize);
        let (mut start, mut size) = self.table_entry(&codes[codes.len() - k..]);
        let mut rest = &codes[..codes.len() - k];
        if size == SATURATED {
            (start, size) = (0, self.bwt.len());
            rest = codes;
        }
        for &c in rest.iter().rev() {
            if size == 0 {
                return 0;
            }
            (start, size) = kmer::backward_step(&self.bwt, start, size, c);
        }
        size
    }

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
        let len = query.len();
        if x >= len || query[x] >= AMBIGUOUS {
            return x + 1;
        }
        let min_size = min_size.max(1);
        let first_found = out.len();
        let SmemScratch { prev, curr } = scratch;
        prev.clear();
        curr.clear();
        let first = &query[x..x + 1];
        let mut iv = self
            .table_interval(first)
            .unwrap_or_else(|| self.extend_left(self.everything(), query[x]));
        if iv.size < min_size {
            return x + 1;
        }
        let mut end = x + 1;
        // Right extension: remember an interval each time the size is about to drop.
        let mut i = x + 1;
        while i < len {
            if query[i] >= AMBIGUOUS {
                break;
            }
            let next = self.next_right(query, x, i, iv);
            if next.size != iv.size {
                curr.push((iv, end as u32));
                if next.size < min_size {
                    break;
                }
            }
            iv = next;
            end = i + 1;
            i += 1;
        }
        if curr.last().map(|&(_, e)| e as usize) != Some(end) {
            curr.push((iv, end as u32));
        }
        // Longest first.
        curr.reverse();
        let next_start = curr[0].1 as usize;
        std::mem::swap(prev, curr);
        // Left extension of all candidates at once.
        let mut i = x as isize - 1;
        loop {
            curr.clear();
            let c = if i >= 0 { query[i as usize] } else { AMBIGUOUS };
            for &(p, p_end) in prev.iter() {
                let extended = if c < AMBIGUOUS {
                    self.extend_left(p, c)
                } else {
                    BiInterval::default()
                };
                if c >= AMBIGUOUS || extended.size < min_size {
                    let start = (i + 1) as u32;
                    // Only when no longer candidate survived, and not contained in the
                    // match just reported (same or earlier start).
                    if curr.is_empty()
                        && (out.len() == first_found || out.last().is_some_and(|m| start < m.start))
                    {
                        out.push(Smem {
                            start,
                            end: p_end,
                            interval: p,
                        });
                    }
                } else if curr.last().is_none_or(|&(q, _)| q.size != extended.size) {
                    curr.push((extended, p_end));
                }
            }
            if curr.is_empty() {
                break;
            }
            std::mem::swap(prev, curr);
            i -= 1;
        }
        next_start
    }

    /// The interval of `query[x..=i]` from that of `query[x..i]`: from the table while
    /// it reaches, else one right extension.
    #[inline]
    fn next_right(&self, query: &[u8], x: usize, i: usize, iv: BiInterval) -> BiInterval {
        if i + 1 - x <= self.kmer_len as usize {
            if let Some(t) = self.table_interval(&query[x..=i]) {
                return t;
            }
        }
        self.extend_right(iv, query[i])
    }

    /// All SMEMs of `query` (codes, [`AMBIGUOUS`] never matched) of length at least
    /// `min_len`, sorted by start. O(|query|) extensions per distinct SMEM end, as BWA.
    pub fn smems(
        &self,
        query: &[u8],
        min_len: u32,
        scratch: &mut SmemScratch,
        out: &mut Vec<Smem>,
    ) {
        out.clear();
        let mut found = Vec::new();
        let mut x = 0;
        while x < query.len() {
            let before = found.len();
            x = self.smems_at(query, x, 1, scratch, &mut found);
            found[before..].sort_by_key(|m| m.start);
        }
        out.extend(found.into_iter().filter(|m| m.len() >= min_len));
    }
}
