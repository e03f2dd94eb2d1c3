//! Searches on the FMD-index: backward search, bidirectional extension, SMEMs.
//!
//! The text is `X · revcomp(X)`, so the suffix-array interval of a pattern `P` counts
//! its occurrences on both strands, and the interval of `revcomp(P)` has the same size.
//! A [`BiInterval`] keeps both starts; extending `P` to the left by `c` (backward
//! search) gives the new start of `P` from `Occ`, and the new start of `revcomp(cP) =
//! revcomp(P)·comp(c)` from the sizes of the four extensions, because inside the
//! interval of `revcomp(P)` the rows are sorted by the symbol that follows. Extending
//! to the right is extending `revcomp(P)` to the left. Each extension costs two `Occ4`
//! lookups: O(1), about two cache misses (one when the interval is narrow). SMEMs are
//! found in [`crate::smems`].

use seqfarm_core::nucleotide::AMBIGUOUS;

use crate::kmer::{self, SATURATED};
use crate::occ::{prefetch, with_popcount, Bwt};

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

/// The suffix-array rows of a pattern `P`, `start..start + size`: what backward search
/// alone gives, enough to count and locate `P` (a [`BiInterval`], which costs more per
/// base, also extends to the right). Its occurrences on both strands, as for
/// [`BiInterval::size`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SaInterval {
    /// First row of `P`.
    pub start: u64,
    /// Number of rows.
    pub size: u64,
}

/// A bidirectional interval's rows, its reverse-complement side dropped.
impl From<BiInterval> for SaInterval {
    fn from(iv: BiInterval) -> Self {
        SaInterval {
            start: iv.fwd,
            size: iv.size,
        }
    }
}

impl BiInterval {
    /// The rows a locate walks: all of them, or `max` spread evenly over the interval
    /// when there are more (deterministic).
    pub fn spread_rows(&self, max: usize) -> impl Iterator<Item = u64> + '_ {
        let (size, take) = (self.size, self.size.min(max as u64));
        (0..take).map(move |k| {
            if size <= max as u64 {
                self.fwd + k
            } else {
                self.fwd + (k as u128 * size as u128 / take as u128) as u64
            }
        })
    }

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

/// The search operations over one BWT and its k-mer table.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Searcher<'a> {
    pub bwt: Bwt<'a>,
    pub kmers: &'a [u64],
    pub kmer_len: u32,
}

impl Searcher<'_> {
    /// The intervals of `cP` for the four `c`, from that of `P`: two `Occ4` lookups,
    /// both inlined into the one copy [`with_popcount`] picks.
    #[inline]
    pub fn extend_left_all(&self, iv: BiInterval) -> [BiInterval; 4] {
        with_popcount!(self: Searcher<'_>, self.bwt.popcnt, extend_left_all_popcnt, extend_left_all_counted(iv: BiInterval) -> [BiInterval; 4])
    }

    #[inline(always)]
    fn extend_left_all_counted(&self, iv: BiInterval) -> [BiInterval; 4] {
        let lo = self.bwt.occ4_counted(iv.fwd);
        let hi = if iv.size == 0 {
            lo
        } else {
            self.bwt.occ4_counted(iv.fwd + iv.size)
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
    pub(crate) fn everything(&self) -> BiInterval {
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
        let (fwd, size) = self.table_entry(codes);
        if size == SATURATED {
            return None;
        }
        let (rev, _) = kmer::unpack(self.kmers[revcomp_table_slot(codes)]);
        Some(BiInterval { fwd, rev, size })
    }

    /// Starts loading the two table entries [`Searcher::table_interval`] reads.
    #[inline]
    pub fn prefetch_table(&self, codes: &[u8]) {
        for slot in [table_slot(codes), revcomp_table_slot(codes)] {
            if let Some(entry) = self.kmers.get(slot) {
                prefetch(entry);
            }
        }
    }

    /// `(start, size)` of the table entry of `codes` (length `1..=kmer_len`, all
    /// `0..=3`); size [`SATURATED`] means "too large to store".
    #[inline]
    pub fn table_entry(&self, codes: &[u8]) -> (u64, u64) {
        kmer::unpack(self.kmers[table_slot(codes)])
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
            (start, size) = self.bwt.backward_step(start, size, c);
        }
        size
    }
}

/// Where the table entry of `codes` (length `1..=kmer_len`, all `0..=3`) is.
#[inline]
fn table_slot(codes: &[u8]) -> usize {
    let code = codes
        .iter()
        .fold(0usize, |code, &c| (code << 2) | c as usize);
    kmer::level_offset(codes.len() as u32) + code
}

/// Where the table entry of the reverse complement of `codes` is.
#[inline]
fn revcomp_table_slot(codes: &[u8]) -> usize {
    let mut rc = 0usize;
    for (i, &c) in codes.iter().enumerate() {
        rc |= (3 - c as usize) << (2 * i);
    }
    kmer::level_offset(codes.len() as u32) + rc
}
