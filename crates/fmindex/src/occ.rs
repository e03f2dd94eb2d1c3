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
//! searched (O(log separators)) to correct the A count.
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

/// Bits of `word` below `bits` (`bits` in `0..=64`).
#[inline(always)]
fn low_mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
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

    /// Occurrences of code `c` (`1..=3`; A needs the separator correction) in offsets
    /// `0..j` of the block.
    #[inline(always)]
    pub fn count_prefix(&self, c: u8, j: u32) -> u32 {
        let mut n = 0;
        for w in 0..3 {
            let h = if c & 2 != 0 { self.hi[w] } else { !self.hi[w] };
            let l = if c & 1 != 0 { self.lo[w] } else { !self.lo[w] };
            let bits = j.saturating_sub(64 * w as u32);
            n += (h & l & low_mask(bits)).count_ones();
        }
        n
    }

    /// The four codes' occurrences in offsets `0..j` (A including separators).
    #[inline(always)]
    pub fn count_prefix4(&self, j: u32) -> [u32; 4] {
        let mut out = [0u32; 4];
        for w in 0..3 {
            let m = low_mask(j.saturating_sub(64 * w as u32));
            let (h, l) = (self.hi[w], self.lo[w]);
            out[1] += (!h & l & m).count_ones();
            out[2] += (h & !l & m).count_ones();
            out[3] += (h & l & m).count_ones();
        }
        out[0] = j - out[1] - out[2] - out[3];
        out
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

/// The BWT of the text with its counts: what `LF` and backward search need.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bwt<'a> {
    pub blocks: &'a [OccBlock],
    /// Four counts per superblock.
    pub supers: &'a [u64],
    pub dollars: &'a [DollarRow],
    /// `2^super_shift` blocks per superblock.
    pub super_shift: u32,
    /// `C[c]`: rows whose suffix starts with a symbol smaller than code `c` (the empty
    /// suffix, row 0, and the separator suffixes come first); `C[4]` is the number of
    /// rows, the text length plus one.
    pub c: [u64; 5],
}

impl Bwt<'_> {
    /// Number of rows (the text length plus one, for the empty suffix).
    #[inline]
    pub fn len(&self) -> u64 {
        self.c[4]
    }

    /// Separator rows in `from..to` (both inside one block).
    #[inline(never)]
    fn dollars_between(&self, from: u64, to: u64) -> u64 {
        let a = self.dollars.partition_point(|d| d.row < from);
        let b = self.dollars.partition_point(|d| d.row < to);
        (b - a) as u64
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

    /// `Occ(c, i)`: occurrences of code `c` in rows `0..i` (`i <= len`). O(1).
    #[inline]
    pub fn occ(&self, c: u8, i: u64) -> u64 {
        let (block, s, j) = self.locate_row(i);
        let c = c as usize;
        let base = self.supers[4 * s + c] + block.count(c);
        if c == 0 {
            let raw = j - block.count_prefix4(j)[1..].iter().sum::<u32>();
            let mut n = base + u64::from(raw);
            if block.has_dollar() {
                n -= self.dollars_between(i - u64::from(j), i);
            }
            n
        } else {
            base + u64::from(block.count_prefix(c as u8, j))
        }
    }

    /// `Occ(c, i)` for the four codes at once. O(1).
    #[inline]
    pub fn occ4(&self, i: u64) -> [u64; 4] {
        let (block, s, j) = self.locate_row(i);
        let within = block.count_prefix4(j);
        let mut out = [0u64; 4];
        for c in 0..4 {
            out[c] = self.supers[4 * s + c] + block.count(c) + u64::from(within[c]);
        }
        if block.has_dollar() {
            out[0] -= self.dollars_between(i - u64::from(j), i);
        }
        out
    }

    /// The BWT symbol of row `i`: `Some(code)`, or `None` for a separator. O(1), plus
    /// O(log separators) in a block holding one.
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
        self.dollars
            .binary_search_by_key(&i, |d| d.row)
            .ok()
            .map(|k| self.dollars[k].sa)
    }

    /// `LF(i)`: the row of the suffix one position to the left of row `i`'s suffix;
    /// `None` on a separator row. O(1).
    #[inline]
    pub fn lf(&self, i: u64) -> Option<u64> {
        let (block, s, j) = self.locate_row(i);
        let code = block.code(j);
        if code == 0 {
            if block.has_dollar() && self.dollar_sa(i).is_some() {
                return None;
            }
            return Some(self.c[0] + self.occ(0, i));
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

    #[test]
    fn counts_match_naive_with_separators() {
        let n = 1000u64;
        let symbols: Vec<Option<u8>> = (0..n)
            .map(|i| {
                if i % 97 == 5 {
                    None
                } else {
                    Some(((i * 7 + i / 13) % 4) as u8)
                }
            })
            .collect();
        let mut stream = OccStream::new(StoreWriter::new(None).unwrap(), BLOCKS_PER_SUPER_SHIFT);
        let mut dollars = Vec::new();
        for (i, s) in symbols.iter().enumerate() {
            stream.push(*s).unwrap();
            if s.is_none() {
                dollars.push(DollarRow {
                    row: i as u64,
                    sa: 0,
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
        let bwt = Bwt {
            blocks: &blocks,
            supers: &supers,
            dollars: &dollars,
            super_shift: BLOCKS_PER_SUPER_SHIFT,
            c,
        };
        assert_eq!(bwt.len(), n);
        let mut naive = [0u64; 4];
        for i in 0..=n {
            let o4 = bwt.occ4(i);
            for k in 0..4u8 {
                assert_eq!(bwt.occ(k, i), naive[k as usize], "occ({k}, {i})");
                assert_eq!(o4[k as usize], naive[k as usize]);
            }
            if i < n {
                assert_eq!(bwt.symbol(i), symbols[i as usize]);
                if let Some(s) = symbols[i as usize] {
                    naive[s as usize] += 1;
                }
            }
        }
    }
}
