//! CIGAR walking for the pileup, over core's [`BamCigar`]: the read base at a reference
//! position (htslib's `resolve_cigar2`), and the aligned bases the overlap tweak steps
//! through.

use seqfarm_core::cigar::{BamCigar, CigarOp};

/// Whether every M/D/N/=/X operation is at least one base long (then the read base at a
/// position can be found directly by [`resolve`]; otherwise [`resolve_stepwise`]
/// reproduces htslib's position-by-position state machine).
pub fn is_regular(cigar: BamCigar<'_>) -> bool {
    cigar.codes().all(|(code, len)| {
        len > 0 || !CigarOp::from_code(code).is_some_and(CigarOp::consumes_reference)
    })
}

/// The query position of reference position `target` for a read starting at `beg`
/// (`beg <= target < beg + span`): `(qpos, is_del)`. A deletion or skip gives the query
/// position of the base after it, as htslib does. For regular CIGARs only.
#[inline]
pub fn resolve(cigar: BamCigar<'_>, beg: i64, target: i64) -> (u32, bool) {
    let mut x = beg;
    let mut y = 0u32;
    // Unknown codes (`None`) consume nothing.
    for (code, len) in cigar.codes() {
        let op = CigarOp::from_code(code);
        let aligned = op.is_some_and(CigarOp::is_aligned);
        if op.is_some_and(CigarOp::consumes_reference) {
            let l = i64::from(len);
            if target < x + l {
                return if aligned {
                    (y + (target - x) as u32, false)
                } else {
                    (y, true)
                };
            }
            x += l;
            if aligned {
                y += len;
            }
        } else if op.is_some_and(CigarOp::consumes_query) {
            y += len;
        }
    }
    (y, true)
}

/// [`resolve`] for any CIGAR, by htslib's state machine: from the read start, one
/// reference position at a time, moving at most one operation ahead per position (so a
/// zero-length operation is seen for one position).
pub fn resolve_stepwise(cigar: BamCigar<'_>, beg: i64, target: i64) -> (u32, bool) {
    let ops: Vec<(Option<CigarOp>, u32)> = cigar
        .codes()
        .map(|(code, len)| (CigarOp::from_code(code), len))
        .collect();
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
        let (op, len) = ops[k];
        if pos - x >= i64::from(len) && k + 1 < n {
            if op.is_some_and(CigarOp::is_aligned) {
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
    let (op, _) = ops[k];
    if op.is_some_and(CigarOp::is_aligned) {
        (y + (target - x) as u32, false)
    } else {
        (y, true)
    }
}

/// Moves `k` past the operations that do not consume the reference, adding the query
/// bases of insertions and soft clips to `y`.
fn skip_non_reference(ops: &[(Option<CigarOp>, u32)], k: &mut usize, y: &mut u32) {
    while *k < ops.len() {
        let (op, len) = ops[*k];
        match op {
            Some(op) if op.consumes_reference() => return,
            Some(op) if op.consumes_query() => *y += len,
            _ => {}
        }
        *k += 1;
    }
}

/// Whether the CIGAR is only clips around one M/=/X operation (no indel or skip, no
/// unknown code): then two such reads overlap base for base.
pub fn is_plain(cigar: BamCigar<'_>) -> bool {
    let mut matches = 0;
    for (code, _) in cigar.codes() {
        match CigarOp::from_code(code) {
            Some(CigarOp::SoftClip | CigarOp::HardClip) => {}
            Some(op) if op.is_aligned() => matches += 1,
            _ => return false,
        }
    }
    matches == 1
}

/// The aligned (M/=/X) bases of a read starting at `beg` as `(reference position, query
/// index)`, in order.
pub fn aligned_bases(cigar: BamCigar<'_>, beg: i64) -> AlignedBases<'_> {
    AlignedBases {
        ops: cigar.as_bytes(),
        next_op: 0,
        left: 0,
        reference: beg,
        query: 0,
    }
}

/// Iterator over the aligned bases of a read (see [`aligned_bases`]).
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

    #[inline(always)]
    fn next(&mut self) -> Option<(i64, u32)> {
        while self.left == 0 {
            let at = self.next_op * 4;
            let word = self.ops.get(at..at + 4)?;
            self.next_op += 1;
            let raw = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            let (code, len) = seqfarm_core::cigar::split_word(raw);
            match CigarOp::from_code(code) {
                Some(CigarOp::Match | CigarOp::SeqMatch | CigarOp::SeqMismatch) => self.left = len,
                Some(CigarOp::Deletion | CigarOp::Skip) => self.reference += i64::from(len),
                Some(CigarOp::Insertion | CigarOp::SoftClip) => self.query += len,
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
        let c = BamCigar::new(&raw);
        assert_eq!(c.reference_span(), 14);
        assert!(is_regular(c) && !is_plain(c));
        // 3S5M2I3M2D4M1S starting at 100.
        assert_eq!(resolve(c, 100, 100), (3, false));
        assert_eq!(resolve(c, 100, 105), (10, false));
        assert_eq!(resolve(c, 100, 108), (13, true));
        assert_eq!(resolve(c, 100, 109), (13, true));
        assert_eq!(resolve(c, 100, 110), (13, false));
        for target in 100..114 {
            assert_eq!(resolve(c, 100, target), resolve_stepwise(c, 100, target));
        }
        let bases: Vec<_> = aligned_bases(c, 100).collect();
        assert_eq!(bases.len(), 12);
        assert_eq!(bases[0], (100, 3));
        assert_eq!(bases[5], (105, 10));
        assert_eq!(bases[8], (110, 13));
    }

    #[test]
    fn zero_length_operations_follow_htslib() {
        // 2M 0D 2M: htslib sees the empty deletion at the third position.
        let raw = pack(&[(0, 2), (2, 0), (0, 2)]);
        let c = BamCigar::new(&raw);
        assert!(!is_regular(c));
        assert_eq!(c.reference_span(), 4);
        assert_eq!(resolve_stepwise(c, 10, 11), (1, false));
        assert_eq!(resolve_stepwise(c, 10, 12), (2, true));
        assert_eq!(resolve_stepwise(c, 10, 13), (3, false));
        // A leading deletion is a deletion at the read start, query position 0.
        let raw = pack(&[(2, 2), (0, 3)]);
        assert_eq!(resolve(BamCigar::new(&raw), 0, 1), (0, true));
        assert_eq!(resolve_stepwise(BamCigar::new(&raw), 0, 1), (0, true));
        assert_eq!(resolve(BamCigar::new(&raw), 0, 2), (0, false));
    }
}
