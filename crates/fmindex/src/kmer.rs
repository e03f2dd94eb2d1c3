//! The k-mer table: the suffix-array interval of every string of length `1..=K`.
//!
//! Every search starts here instead of with `K` rounds of backward search. Level `d`
//! holds `4^d` entries, indexed by the string's code (first base most significant), at
//! offset `(4^d - 4) / 3`; an entry packs the interval start (40 bits) and size
//! (24 bits). A size that does not fit is stored as [`SATURATED`] and recomputed by
//! backward search. The table takes `8·(4^(K+1) - 4)/3` bytes (45 MB for `K = 11`).
//!
//! It is filled by one depth-first walk of the suffix trie to depth `K`, prepending a
//! base at each step: `(4^K - 1)/3` nodes, each one `Occ` lookup of four symbols at two
//! rows, empty subtrees skipped.

use crate::occ::Bwt;

/// Size value meaning "too large to store; recompute".
pub(crate) const SATURATED: u64 = (1 << 24) - 1;
const START_BITS: u32 = 40;
/// Longest table string supported.
pub const MAX_KMER_LEN: u32 = 13;

/// First entry of level `d` (`d >= 1`).
#[inline]
pub(crate) fn level_offset(d: u32) -> usize {
    ((1usize << (2 * d)) - 4) / 3
}

/// Entries in a table for strings of length `1..=k`.
pub(crate) fn table_len(k: u32) -> usize {
    level_offset(k + 1)
}

/// Packs an interval; sizes of at least `saturation` (at most [`SATURATED`], the most
/// that fits) become [`SATURATED`].
#[inline]
pub(crate) fn pack(start: u64, size: u64, saturation: u64) -> u64 {
    let size = if size >= saturation { SATURATED } else { size };
    start | (size << START_BITS)
}

/// `(start, size)` of an entry; size [`SATURATED`] means "recompute".
#[inline]
pub(crate) fn unpack(entry: u64) -> (u64, u64) {
    (entry & ((1 << START_BITS) - 1), entry >> START_BITS)
}

/// Fills the table for strings of length `1..=k`; intervals of `saturation` rows or more
/// are stored as "recompute".
pub(crate) fn build_table(bwt: &Bwt<'_>, k: u32, saturation: u64) -> Vec<u64> {
    let mut table = vec![0u64; table_len(k)];
    let mut walk = TableWalk {
        bwt,
        table: &mut table,
        k,
        saturation,
    };
    walk.fill(0, 0, 0, bwt.len());
    table
}

/// The depth-first walk that fills the table.
struct TableWalk<'a, 'b> {
    bwt: &'a Bwt<'b>,
    table: &'a mut [u64],
    k: u32,
    saturation: u64,
}

impl TableWalk<'_, '_> {
    fn fill(&mut self, depth: u32, code: usize, start: u64, size: u64) {
        let bwt = self.bwt;
        let lo = bwt.occ4(start);
        let hi = bwt.occ4(start + size);
        for c in 0..4usize {
            let child_size = hi[c] - lo[c];
            if child_size == 0 {
                continue;
            }
            let child_start = bwt.c[c] + lo[c];
            let child_code = (c << (2 * depth)) | code;
            self.table[level_offset(depth + 1) + child_code] =
                pack(child_start, child_size, self.saturation);
            if depth + 1 < self.k {
                self.fill(depth + 1, child_code, child_start, child_size);
            }
        }
    }
}

/// The table's length parameter for a text of `text_len` characters:
/// `floor(log4(text_len)) - 2` within `8..=12`, so that a table string occurs about 16
/// to 64 times and the table stays well below the BWT's size.
pub fn default_kmer_len(text_len: u64) -> u32 {
    let log4 = (63 - text_len.max(1).leading_zeros()) / 2;
    log4.saturating_sub(2).clamp(8, 12)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_length_follows_the_text() {
        // A. thaliana chr1 (two strands), human chr20, a human genome, a bacterium.
        assert_eq!(default_kmer_len(60_855_342), 10);
        assert_eq!(default_kmer_len(119_011_052), 11);
        assert_eq!(default_kmer_len(6_200_000_000), 12);
        assert_eq!(default_kmer_len(9_000_000), 9);
        assert_eq!(default_kmer_len(1_000), 8);
        assert_eq!(table_len(2), 20);
        assert_eq!(level_offset(1), 0);
    }
}
