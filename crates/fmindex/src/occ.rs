//! The BWT with its occurrence counts, in cache-line blocks.
//!
//! Each 64-byte [`OccBlock`] covers 192 BWT rows: four 32-bit counts (occurrences of
//! A, C, G, T in all rows before the block, relative to its superblock) and the 192
//! symbols as two bit planes (high and low bit of the 2-bit code, three words each).
//! `Occ(c, i)`, the number of `c` in rows `0..i`, is then one superblock add, one block
//! count and at most three `popcount`s on the same cache line: O(1), one cache miss.
//!
//! Separator rows (`$`: rows whose suffix starts a fragment, or the text) are stored as
//! `A` in the planes and listed in a sorted table with their suffix-array value; a block
//! holding one has [`DOLLAR_FLAG`] set in its A count, and only then is the table
//! searched to correct the A count. A [`DollarDirectory`] built at load time holds the
//! separator rows again in about 2 bytes each, bucketed by row, so that search reads a
//! bucket's few rows from memory that stays in cache. Every ambiguous base (N or any
//! IUPAC code) ends a fragment, so assemblies can have hundreds of thousands of
//! separators; a binary search of their 16-byte table was a chain of cache misses.
//!
//! Superblocks of 2^22 blocks (805 M rows) keep block counts below 2^30, so one layout
//! serves texts of any length; the superblock table holds 64-bit counts.

use bytemuck::{Pod, Zeroable};

/// Rows per block.
pub(crate) const ROWS_PER_BLOCK: u64 = 192;
/// Blocks per superblock as a power of two: the most that keeps block counts below
/// 2^30, and the default (an index records its own, so tests can cross superblock
/// boundaries on small texts).
pub(crate) const BLOCKS_PER_SUPER_SHIFT: u32 = 22;
/// Set in `counts[0]` when the block holds a separator row.
pub(crate) const DOLLAR_FLAG: u32 = 1 << 31;
/// The count bits of a block count.
const COUNT_MASK: u32 = (1 << 30) - 1;

/// 192 BWT rows and the occurrence counts before them: exactly one cache line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct OccBlock {
    pub counts: [u32; 4],
    pub hi: [u64; 3],
    pub lo: [u64; 3],
}

// SAFETY: `OccBlock` is `repr(C)` with only integer fields and no padding (16 + 48 = 64
// bytes, the alignment), so every bit pattern is a valid value and it may be zeroed.
unsafe impl Zeroable for OccBlock {}
// SAFETY: as above; it is also `Copy` and `'static`.
unsafe impl Pod for OccBlock {}

/// For each offset `j` in a block (`0..=192`), the masks of the rows before it in the
/// block's three words: one load per word instead of a shift, compare and select.
static PREFIX_MASKS: [[u64; 3]; ROWS_PER_BLOCK as usize + 1] = {
    let mut masks = [[0u64; 3]; ROWS_PER_BLOCK as usize + 1];
    let mut j = 0;
    while j <= ROWS_PER_BLOCK as usize {
        let mut w = 0;
        while w < 3 {
            let bits = j.saturating_sub(64 * w);
            masks[j][w] = if bits >= 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            w += 1;
        }
        j += 1;
    }
    masks
};

/// The masks of the rows before offset `j` of a block (clamped to the block).
#[inline(always)]
fn prefix_masks(j: u32) -> &'static [u64; 3] {
    &PREFIX_MASKS[(j as usize).min(ROWS_PER_BLOCK as usize)]
}

impl OccBlock {
    /// Stores symbol `code` (`0..=3`) at offset `j` of the block.
    pub fn set(&mut self, j: usize, code: u8) {
        let (w, b) = (j / 64, j % 64);
        self.hi[w] |= u64::from(code >> 1) << b;
        self.lo[w] |= u64::from(code & 1) << b;
    }

    /// The 2-bit code at offset `j`.
    #[inline(always)]
    pub fn code(&self, j: u32) -> u8 {
        let (w, b) = ((j / 64) as usize, j % 64);
        ((((self.hi[w] >> b) & 1) << 1) | ((self.lo[w] >> b) & 1)) as u8
    }

    /// Occurrences of code `c` (`0..=3`; separators count as A, which the caller
    /// corrects) in offsets `0..j` of the block.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // indexed: zipped, 1.4 % more instructions in align
    pub fn count_prefix(&self, c: u8, j: u32) -> u32 {
        let masks = prefix_masks(j);
        let mut n = 0;
        for w in 0..3 {
            let h = if c & 2 != 0 { self.hi[w] } else { !self.hi[w] };
            let l = if c & 1 != 0 { self.lo[w] } else { !self.lo[w] };
            n += (h & l & masks[w]).count_ones();
        }
        n
    }

    /// The four codes' occurrences in offsets `0..j` (A including separators).
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // as in `count_prefix`
    pub fn count_prefix4(&self, j: u32) -> [u32; 4] {
        let masks = prefix_masks(j);
        // Rows with the high bit set (G, T), with the low bit set (C, T), and with both
        // (T): three counts per word give all four codes.
        let (mut high, mut low, mut both) = (0, 0, 0);
        for w in 0..3 {
            let (h, l) = (self.hi[w] & masks[w], self.lo[w] & masks[w]);
            high += h.count_ones();
            low += l.count_ones();
            both += (h & l).count_ones();
        }
        [j + both - high - low, low - both, high - both, both]
    }

    /// The stored count of code `c` before the block (relative to the superblock).
    #[inline(always)]
    pub fn count(&self, c: usize) -> u64 {
        u64::from(self.counts[c] & COUNT_MASK)
    }

    /// Whether the block holds a separator row.
    #[inline(always)]
    pub fn has_dollar(&self) -> bool {
        self.counts[0] & DOLLAR_FLAG != 0
    }
}

/// A separator row of the BWT and the suffix-array value of that row.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
#[repr(C)]
pub(crate) struct DollarRow {
    pub row: u64,
    pub sa: u64,
}

// SAFETY: `repr(C)`, two `u64`, no padding: every bit pattern is valid.
unsafe impl Zeroable for DollarRow {}
// SAFETY: as above.
unsafe impl Pod for DollarRow {}

/// The separator rows again, compact enough to stay in cache: for each bucket of
/// `2^shift` rows (`shift <= 16`), where its rows begin in the separator table, and each
/// row's offset in its bucket. About 2 bytes per separator plus 4 per bucket (a few
/// separators per bucket), against the table's 16 bytes per separator.
#[derive(Debug, Clone, Default)]
pub(crate) struct DollarDirectory {
    /// `starts[b]`: the index of the first separator row at or after row `b << shift`;
    /// one entry per bucket and a last one, the table's length. Empty for a table too
    /// long to index with `u32` (then lookups search the whole table).
    pub starts: Vec<u32>,
    /// Each separator row's offset in its bucket.
    pub offsets: Vec<u16>,
    pub shift: u32,
}

impl DollarDirectory {
    /// The directory of `dollars` (sorted by row) in a BWT of `rows` rows, built in one
    /// pass; `starts` never decreases, even for an unsorted (corrupt) table.
    pub fn new(dollars: &[DollarRow], rows: u64) -> Self {
        if dollars.len() >= u32::MAX as usize {
            return Self::default();
        }
        let per_separator = rows / dollars.len().max(1) as u64;
        let shift = (65 - per_separator.leading_zeros()).clamp(8, 16);
        let buckets = (rows >> shift) + 1;
        let mut starts = Vec::with_capacity(buckets as usize + 1);
        let mut k = 0;
        for b in 0..buckets {
            while k < dollars.len() && dollars[k].row < b << shift {
                k += 1;
            }
            starts.push(k as u32);
        }
        starts.push(dollars.len() as u32);
        let mask = (1u64 << shift) - 1;
        let offsets = dollars.iter().map(|d| (d.row & mask) as u16).collect();
        DollarDirectory {
            starts,
            offsets,
            shift,
        }
    }

    /// A borrowed view for [`Bwt`].
    pub fn view(&self) -> DollarLookup<'_> {
        DollarLookup {
            starts: &self.starts,
            offsets: &self.offsets,
            shift: self.shift,
        }
    }
}

/// A [`DollarDirectory`], borrowed (empty: no directory).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct DollarLookup<'a> {
    pub starts: &'a [u32],
    pub offsets: &'a [u16],
    pub shift: u32,
}

impl DollarLookup<'_> {
    /// The first table index of bucket `b` and its rows' offsets (empty past the end).
    #[inline]
    fn bucket(&self, b: u64) -> (usize, &[u16]) {
        let b = usize::try_from(b).unwrap_or(usize::MAX);
        match (self.starts.get(b), self.starts.get(b.saturating_add(1))) {
            (Some(&lo), Some(&hi)) => (
                lo as usize,
                self.offsets
                    .get(lo as usize..hi as usize)
                    .unwrap_or_default(),
            ),
            _ => (0, &[]),
        }
    }
}

/// The BWT of the text with its counts: what `LF` and backward search need.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bwt<'a> {
    pub blocks: &'a [OccBlock],
    /// Four counts per superblock.
    pub supers: &'a [u64],
    pub dollars: &'a [DollarRow],
    /// The directory of `dollars` (empty: search the whole table).
    pub directory: DollarLookup<'a>,
    /// `2^super_shift` blocks per superblock.
    pub super_shift: u32,
    /// `C[c]`: rows whose suffix starts with a symbol smaller than code `c` (the empty
    /// suffix, row 0, and the separator suffixes come first); `C[4]` is the number of
    /// rows, the text length plus one.
    pub c: [u64; 5],
    /// Whether counts use the CPU's one-instruction bit count: [`hardware_popcount`],
    /// asked once when the index is opened (asking at every lookup costs 0.9 % of the
    /// instructions of aligning pairs).
    pub popcnt: bool,
}

/// Whether the counting functions use the CPU's one-instruction bit count (x86-64
/// POPCNT, on every x86-64 CPU since 2008). The build targets the x86-64 baseline, which
/// lacks it: there `count_ones` is a dozen shifts, masks and a multiply, and an `Occ4`
/// lookup counts nine words. So the counting functions below are compiled twice, once
/// with the instruction enabled, and [`Bwt::popcnt`] chooses between them at run time.
/// `SEQFARM_SIMD=scalar` asks for the baseline code throughout, so the bit count is the
/// baseline's there too.
pub(crate) fn hardware_popcount() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("popcnt")
            && !matches!(
                seqfarm_core::simd::SimdLevel::from_env(),
                Ok(seqfarm_core::simd::SimdLevel::Scalar)
            )
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Calls `$this.$counted(args)` (`$this` a `&$ty`) compiled with POPCNT (as `$name`)
/// when `$popcnt` says the CPU has it, else as the baseline compiles it: one branch per
/// call, always taken the same way. A caller that looks up twice (`Searcher`'s
/// extension) dispatches once around both, so that the counts inline into it.
macro_rules! with_popcount {
    ($this:ident: $ty:ty, $popcnt:expr, $name:ident, $counted:ident ($($arg:ident: $aty:ty),*) -> $ret:ty) => {{
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "popcnt")]
        unsafe fn $name(this: &$ty, $($arg: $aty),*) -> $ret {
            this.$counted($($arg),*)
        }
        #[cfg(target_arch = "x86_64")]
        if $popcnt {
            // SAFETY: the flag is set only where the CPU has the instruction.
            return unsafe { $name($this, $($arg),*) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = $popcnt;
        $this.$counted($($arg),*)
    }};
}
pub(crate) use with_popcount;

impl Bwt<'_> {
    /// Number of rows (the text length plus one, for the empty suffix).
    #[inline]
    pub fn len(&self) -> u64 {
        self.c[4]
    }

    /// Separator rows in `from..to` (both inside one block, so in at most two buckets).
    #[inline(never)]
    fn dollars_between(&self, from: u64, to: u64) -> u64 {
        let d = &self.directory;
        if d.starts.is_empty() {
            let a = self.dollars.partition_point(|d| d.row < from);
            let b = self.dollars.partition_point(|d| d.row < to);
            return (b - a) as u64;
        }
        let mut n = 0;
        let mut b = from >> d.shift;
        while b << d.shift < to {
            let base = b << d.shift;
            let (_, offsets) = d.bucket(b);
            let (lo, hi) = (from.saturating_sub(base), to - base);
            n += offsets.partition_point(|&o| u64::from(o) < hi)
                - offsets.partition_point(|&o| u64::from(o) < lo);
            b += 1;
        }
        n as u64
    }

    #[inline(always)]
    fn locate_row(&self, i: u64) -> (&OccBlock, usize, u32) {
        // Rows never pass the last block in a consistent index; the clamp keeps a file
        // altered behind its checksums from panicking (`--check` reports it).
        let b = ((i / ROWS_PER_BLOCK) as usize).min(self.blocks.len().saturating_sub(1));
        (
            &self.blocks[b],
            b >> self.super_shift,
            (i % ROWS_PER_BLOCK) as u32,
        )
    }

    /// Asks the CPU to start loading the block of row `i` (batched searches overlap the
    /// cache misses of many patterns this way). Does nothing past the end.
    #[inline(always)]
    pub fn prefetch(&self, i: u64) {
        if let Some(block) = self.blocks.get((i / ROWS_PER_BLOCK) as usize) {
            prefetch(block);
        }
    }

    /// `Occ(c, i)`: occurrences of code `c` in rows `0..i` (`i <= len`). O(1). Called
    /// inside a copy [`with_popcount`] picks ([`Bwt::backward_step`], [`Bwt::lf`]).
    #[inline(always)]
    fn occ_counted(&self, c: u8, i: u64) -> u64 {
        let (block, s, j) = self.locate_row(i);
        let c = c as usize;
        let base = self.supers[4 * s + c] + block.count(c);
        if c == 0 {
            let mut n = base + u64::from(block.count_prefix(0, j));
            if block.has_dollar() {
                n -= self.dollars_between(i - u64::from(j), i);
            }
            n
        } else {
            base + u64::from(block.count_prefix(c as u8, j))
        }
    }

    /// One backward-search step: the interval `(start, size)` of `c·P` from that of
    /// `P` (`c` in `0..=3`), two `Occ` inlined into one copy of [`with_popcount`]'s.
    #[inline]
    pub fn backward_step(&self, start: u64, size: u64, c: u8) -> (u64, u64) {
        with_popcount!(self: Bwt<'_>, self.popcnt, backward_step_popcnt, backward_step_counted(start: u64, size: u64, c: u8) -> (u64, u64))
    }

    #[inline(always)]
    fn backward_step_counted(&self, start: u64, size: u64, c: u8) -> (u64, u64) {
        let lo = self.occ_counted(c, start);
        let hi = self.occ_counted(c, start + size);
        (self.c[c as usize] + lo, hi - lo)
    }

    /// `Occ(c, i)` for the four codes at once. O(1).
    #[inline]
    pub fn occ4(&self, i: u64) -> [u64; 4] {
        with_popcount!(self: Bwt<'_>, self.popcnt, occ4_popcnt, occ4_counted(i: u64) -> [u64; 4])
    }

    /// [`Bwt::occ4`] as the calling function is compiled (see [`with_popcount`]).
    #[inline(always)]
    pub(crate) fn occ4_counted(&self, i: u64) -> [u64; 4] {
        let (block, s, j) = self.locate_row(i);
        let within = block.count_prefix4(j);
        let supers = &self.supers[4 * s..4 * s + 4];
        let mut out = [0u64; 4];
        for c in 0..4 {
            out[c] = supers[c] + block.count(c) + u64::from(within[c]);
        }
        if block.has_dollar() {
            out[0] -= self.dollars_between(i - u64::from(j), i);
        }
        out
    }

    /// The BWT symbol of row `i`: `Some(code)`, or `None` for a separator. O(1), plus
    /// a search among a bucket's separators in a block holding one.
    #[inline]
    pub fn symbol(&self, i: u64) -> Option<u8> {
        let (block, _, j) = self.locate_row(i);
        let code = block.code(j);
        if code == 0 && block.has_dollar() && self.dollar_sa(i).is_some() {
            return None;
        }
        Some(code)
    }

    /// The suffix-array value of separator row `i`, if it is one.
    pub fn dollar_sa(&self, i: u64) -> Option<u64> {
        let d = &self.directory;
        let k = if d.starts.is_empty() {
            self.dollars.binary_search_by_key(&i, |d| d.row).ok()?
        } else {
            let (first, offsets) = d.bucket(i >> d.shift);
            let offset = i & ((1 << d.shift) - 1);
            first
                + offsets
                    .binary_search_by_key(&offset, |&o| u64::from(o))
                    .ok()?
        };
        self.dollars.get(k).map(|d| d.sa)
    }

    /// `LF(i)`: the row of the suffix one position to the left of row `i`'s suffix;
    /// `None` on a separator row. O(1).
    #[inline]
    pub fn lf(&self, i: u64) -> Option<u64> {
        with_popcount!(self: Bwt<'_>, self.popcnt, lf_popcnt, lf_counted(i: u64) -> Option<u64>)
    }

    /// [`Bwt::lf`] as the calling function is compiled (see [`with_popcount`]).
    #[inline(always)]
    pub(crate) fn lf_counted(&self, i: u64) -> Option<u64> {
        let (block, s, j) = self.locate_row(i);
        let code = block.code(j);
        if code == 0 {
            if block.has_dollar() && self.dollar_sa(i).is_some() {
                return None;
            }
            return Some(self.c[0] + self.occ_counted(0, i));
        }
        let c = code as usize;
        Some(
            self.c[c]
                + self.supers[4 * s + c]
                + block.count(c)
                + u64::from(block.count_prefix(code, j)),
        )
    }
}

/// Starts loading the cache line holding `value`.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint: it never faults and changes no state visible
        // to the program, whatever the address; SSE is part of the x86_64 baseline.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::sections::{OccStream, StoreWriter, Stored};

    /// Checks `Occ` (the baseline copy, and the copy in use through a backward step),
    /// `occ4`, `symbol` and `dollar_sa` against counting by hand, with and without the
    /// separator directory.
    fn check_counts(symbols: &[Option<u8>]) {
        let n = symbols.len() as u64;
        let mut stream = OccStream::new(StoreWriter::new(None).unwrap(), BLOCKS_PER_SUPER_SHIFT);
        let mut dollars = Vec::new();
        for (i, s) in symbols.iter().enumerate() {
            stream.push(*s).unwrap();
            if s.is_none() {
                dollars.push(DollarRow {
                    row: i as u64,
                    sa: 7 * i as u64,
                });
            }
        }
        let (stored, supers, total) = stream.finish().unwrap();
        let Stored::Memory(blocks) = stored else {
            panic!("kept in memory")
        };
        assert_eq!(blocks.len() as u64, n / ROWS_PER_BLOCK + 1);
        let mut c = [dollars.len() as u64; 5];
        for k in 0..4 {
            c[k + 1] = c[k] + total[k];
        }
        let directory = DollarDirectory::new(&dollars, n);
        assert!(directory.starts.len() >= 3, "several buckets");
        for lookup in [directory.view(), DollarLookup::default()] {
            let bwt = Bwt {
                blocks: &blocks,
                supers: &supers,
                dollars: &dollars,
                directory: lookup,
                super_shift: BLOCKS_PER_SUPER_SHIFT,
                c,
                popcnt: hardware_popcount(),
            };
            assert_eq!(bwt.len(), n);
            let mut naive = [0u64; 4];
            for i in 0..=n {
                // The copy in use (POPCNT where the CPU has it) and the baseline one.
                for o4 in [bwt.occ4(i), bwt.occ4_counted(i)] {
                    assert_eq!(o4, naive, "occ4({i})");
                }
                for k in 0..4u8 {
                    // A step from rows `0..i` gives `(C[k], Occ(k, i))`.
                    let step = bwt.backward_step(0, i, k);
                    assert_eq!(step, (c[k as usize], naive[k as usize]), "step({k}, {i})");
                    assert_eq!(bwt.occ_counted(k, i), naive[k as usize], "occ({k}, {i})");
                }
                if i < n {
                    assert_eq!(bwt.lf_counted(i), bwt.lf(i), "lf({i})");
                    let s = symbols[i as usize];
                    assert_eq!(bwt.symbol(i), s);
                    assert_eq!(bwt.dollar_sa(i), s.is_none().then_some(7 * i));
                    if let Some(s) = s {
                        naive[s as usize] += 1;
                    }
                }
            }
        }
    }

    #[test]
    fn counts_match_naive_with_separators() {
        let code = |i: u64| Some(((i * 7 + i / 13) % 4) as u8);
        // Sparse separators: about one bucket each.
        let sparse: Vec<_> = (0..1000u64)
            .map(|i| if i % 97 == 5 { None } else { code(i) })
            .collect();
        check_counts(&sparse);
        // Clustered: runs of adjacent separator rows (fragments that start alike) and
        // long stretches without any, so buckets hold many or none.
        let clustered: Vec<_> = (0..5000u64)
            .map(|i| {
                if (1200..1260).contains(&i) || i % 1500 < 3 || i == 4999 {
                    None
                } else {
                    code(i)
                }
            })
            .collect();
        check_counts(&clustered);
    }
}
