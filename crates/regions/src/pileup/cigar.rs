//! CIGAR walking for the pileup: reference spans, the read base at a reference position
//! (htslib's `resolve_cigar2`), and the aligned bases the overlap tweak steps through.

/// CIGAR operation codes (SAM specification order).
pub mod op {
    /// Alignment match or mismatch.
    pub const MATCH: u8 = 0;
    /// Insertion to the reference.
    pub const INS: u8 = 1;
    /// Deletion from the reference.
    pub const DEL: u8 = 2;
    /// Skipped region (intron).
    pub const REF_SKIP: u8 = 3;
    /// Soft clip.
    pub const SOFT_CLIP: u8 = 4;
    /// Hard clip.
    pub const HARD_CLIP: u8 = 5;
    /// Padding.
    pub const PAD: u8 = 6;
    /// Sequence match.
    pub const EQUAL: u8 = 7;
    /// Sequence mismatch.
    pub const DIFF: u8 = 8;
}

/// A CIGAR as stored in BAM: little-endian `len << 4 | op` words.
#[derive(Debug, Clone, Copy)]
pub struct Cigar<'a>(pub &'a [u8]);

#[inline(always)]
fn is_match(code: u8) -> bool {
    matches!(code, op::MATCH | op::EQUAL | op::DIFF)
}

#[inline(always)]
fn consumes_ref(code: u8) -> bool {
    matches!(
        code,
        op::MATCH | op::DEL | op::REF_SKIP | op::EQUAL | op::DIFF
    )
}

impl<'a> Cigar<'a> {
    /// The operations as `(code, length)`.
    #[inline]
    pub fn ops(self) -> impl Iterator<Item = (u8, u32)> + 'a {
        self.0.chunks_exact(4).map(|c| {
            let raw = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            ((raw & 0xf) as u8, raw >> 4)
        })
    }

    /// Reference bases covered (M, D, N, =, X), as htslib's `bam_cigar2rlen`.
    #[inline]
    pub fn reference_span(self) -> i64 {
        self.ops()
            .filter(|&(code, _)| consumes_ref(code))
            .map(|(_, len)| i64::from(len))
            .sum()
    }

    /// Whether every M/D/N/=/X operation is at least one base long (then the read base at
    /// a position can be found directly; otherwise [`Cigar::resolve_stepwise`] reproduces
    /// htslib's position-by-position state machine).
    pub fn is_regular(self) -> bool {
        self.ops().all(|(code, len)| len > 0 || !consumes_ref(code))
    }

    /// The query position of reference position `target` for a read starting at `beg`
    /// (`beg <= target < beg + span`): `(qpos, is_del)`. A deletion or skip gives the query
    /// position of the base after it, as htslib does. For regular CIGARs only.
    #[inline]
    pub fn resolve(self, beg: i64, target: i64) -> (u32, bool) {
        let mut x = beg;
        let mut y = 0u32;
        for (code, len) in self.ops() {
            if consumes_ref(code) {
                let l = i64::from(len);
                if target < x + l {
                    return if is_match(code) {
                        (y + (target - x) as u32, false)
                    } else {
                        (y, true)
                    };
                }
                x += l;
                if is_match(code) {
                    y += len;
                }
            } else if matches!(code, op::INS | op::SOFT_CLIP) {
                y += len;
            }
        }
        (y, true)
    }

    /// [`Cigar::resolve`] for any CIGAR, by htslib's state machine: from the read start,
    /// one reference position at a time, moving at most one operation ahead per position
    /// (so a zero-length operation is seen for one position).
    pub fn resolve_stepwise(self, beg: i64, target: i64) -> (u32, bool) {
        let ops: Vec<(u8, u32)> = self.ops().collect();
        let n = ops.len();
        // State: operation k (an M/D/N/=/X), its reference start x and query start y.
        let mut y = 0u32;
        let mut k = 0usize;
        skip_non_reference(&ops, &mut k, &mut y);
        if k >= n {
            return (y, true);
        }
        let mut x = beg;
        for pos in beg + 1..=target {
            let (code, len) = ops[k];
            if pos - x >= i64::from(len) && k + 1 < n {
                if is_match(code) {
                    y += len;
                }
                x += i64::from(len);
                k += 1;
                skip_non_reference(&ops, &mut k, &mut y);
                if k >= n {
                    return (y, true);
                }
            }
        }
        let (code, _) = ops[k];
        if is_match(code) {
            (y + (target - x) as u32, false)
        } else {
            (y, true)
        }
    }

    /// Whether the CIGAR is only clips around one M/=/X operation (no indel or skip):
    /// then two such reads overlap base for base.
    pub fn is_plain(self) -> bool {
        let mut matches = 0;
        for (code, _) in self.ops() {
            match code {
                op::SOFT_CLIP | op::HARD_CLIP => {}
                c if is_match(c) => matches += 1,
                _ => return false,
            }
        }
        matches == 1
    }

    /// The aligned (M/=/X) bases as `(reference position, query index)`, in order.
    pub fn aligned_bases(self, beg: i64) -> AlignedBases<'a> {
        AlignedBases {
            ops: self.0,
            next_op: 0,
            left: 0,
            reference: beg,
            query: 0,
        }
    }

    /// Whether an operation code is outside the nine the SAM specification defines.
    pub fn has_unknown_op(self) -> bool {
        self.ops().any(|(code, _)| code > op::DIFF)
    }
}

/// Iterator over the aligned bases of a read (see [`Cigar::aligned_bases`]).
#[derive(Debug, Clone)]
pub struct AlignedBases<'a> {
    ops: &'a [u8],
    next_op: usize,
    left: u32,
    reference: i64,
    query: u32,
}

impl Iterator for AlignedBases<'_> {
    type Item = (i64, u32);

    #[inline]
    fn next(&mut self) -> Option<(i64, u32)> {
        while self.left == 0 {
            let at = self.next_op * 4;
            let word = self.ops.get(at..at + 4)?;
            self.next_op += 1;
            let raw = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            let (code, len) = ((raw & 0xf) as u8, raw >> 4);
            match code {
                c if is_match(c) => self.left = len,
                op::DEL | op::REF_SKIP => self.reference += i64::from(len),
                op::INS | op::SOFT_CLIP => self.query += len,
                _ => {}
            }
        }
        let base = (self.reference, self.query);
        self.left -= 1;
        self.reference += 1;
        self.query += 1;
        Some(base)
    }
}

/// Moves `k` past the operations that do not consume the reference, adding the query
/// bases of insertions and soft clips to `y`.
fn skip_non_reference(ops: &[(u8, u32)], k: &mut usize, y: &mut u32) {
    while *k < ops.len() && !consumes_ref(ops[*k].0) {
        if matches!(ops[*k].0, op::INS | op::SOFT_CLIP) {
            *y += ops[*k].1;
        }
        *k += 1;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Packs `(code, len)` operations.
    pub(crate) fn pack(ops: &[(u8, u32)]) -> Vec<u8> {
        ops.iter()
            .flat_map(|&(code, len)| ((len << 4) | u32::from(code)).to_le_bytes())
            .collect()
    }

    #[test]
    fn spans_and_positions() {
        let raw = pack(&[(4, 3), (0, 5), (1, 2), (0, 3), (2, 2), (0, 4), (4, 1)]);
        let c = Cigar(&raw);
        assert_eq!(c.reference_span(), 14);
        assert!(c.is_regular() && !c.is_plain());
        // 3S5M2I3M2D4M1S starting at 100.
        assert_eq!(c.resolve(100, 100), (3, false));
        assert_eq!(c.resolve(100, 105), (10, false));
        assert_eq!(c.resolve(100, 108), (13, true));
        assert_eq!(c.resolve(100, 109), (13, true));
        assert_eq!(c.resolve(100, 110), (13, false));
        for target in 100..114 {
            assert_eq!(c.resolve(100, target), c.resolve_stepwise(100, target));
        }
        let bases: Vec<_> = c.aligned_bases(100).collect();
        assert_eq!(bases.len(), 12);
        assert_eq!(bases[0], (100, 3));
        assert_eq!(bases[5], (105, 10));
        assert_eq!(bases[8], (110, 13));
    }

    #[test]
    fn zero_length_operations_follow_htslib() {
        // 2M 0D 2M: htslib sees the empty deletion at the third position.
        let raw = pack(&[(0, 2), (2, 0), (0, 2)]);
        let c = Cigar(&raw);
        assert!(!c.is_regular());
        assert_eq!(c.reference_span(), 4);
        assert_eq!(c.resolve_stepwise(10, 11), (1, false));
        assert_eq!(c.resolve_stepwise(10, 12), (2, true));
        assert_eq!(c.resolve_stepwise(10, 13), (3, false));
        // A leading deletion is a deletion at the read start, query position 0.
        let raw = pack(&[(2, 2), (0, 3)]);
        assert_eq!(Cigar(&raw).resolve(0, 1), (0, true));
        assert_eq!(Cigar(&raw).resolve_stepwise(0, 1), (0, true));
        assert_eq!(Cigar(&raw).resolve(0, 2), (0, false));
    }
}
