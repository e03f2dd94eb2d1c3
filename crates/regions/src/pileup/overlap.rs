//! Overlapping mates, counted once: htslib's pileup overlap detection.
//!
//! When the second mate of a properly paired template arrives while the first is still in
//! the pileup, htslib (1.13 and later, so 1.16 too) walks the bases both mates align to
//! the same reference position and lowers one of each pair of qualities: bases that agree
//! give their summed quality (capped at 200) to one mate and 0 to the other, chosen by a
//! hash of the read name; bases that disagree keep 80% of the better quality and zero the
//! other. A quality of 0 is then skipped by the counting, so each base is seen once.
//!
//! The walk has a quirk this module keeps: after an indel in either mate it moves past the
//! position where the mates meet again, so a few common positions stay untouched.

use super::cigar::{aligned_bases, is_plain};
use seqfarm_core::cigar::BamCigar;

/// One mate's alignment, as far as the tweak needs it.
#[derive(Debug, Clone, Copy)]
pub struct MateView<'a> {
    /// 0-based leftmost reference position.
    pub pos: i64,
    /// CIGAR.
    pub cigar: BamCigar<'a>,
    /// Sequence, 4-bit packed.
    pub seq: &'a [u8],
    /// Number of bases.
    pub seq_len: usize,
    /// Base qualities.
    pub qual: &'a [u8],
}

impl MateView<'_> {
    #[inline(always)]
    fn base(&self, i: u32) -> u8 {
        let byte = self.seq[i as usize / 2];
        if i.is_multiple_of(2) {
            byte >> 4
        } else {
            byte & 0xf
        }
    }
}

/// Why the tweak could not be applied (htslib stops the whole pileup in these cases).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TweakError {
    /// The CIGAR of a mate reaches past its sequence (or the mate has no sequence).
    #[error("its CIGAR reaches past its {0}-base sequence where it overlaps its mate")]
    PastSequence(usize),
    /// A CIGAR operation code outside the specification.
    #[error("its CIGAR has an operation code htslib's overlap detection refuses")]
    UnknownOperation,
}

/// htslib's choice of the mate that keeps the quality of agreeing bases: the low bit of
/// khash's Wang hash of the X31 string hash of the read name. Returns `(a_mul, b_mul)`.
pub fn quality_owner(name: &[u8]) -> (u8, u8) {
    if name_khash(name) & 1 == 1 {
        (1, 0)
    } else {
        (0, 1)
    }
}

/// khash's `__ac_Wang_hash(__ac_X31_hash_string(name))`, over C `char`s (signed on
/// x86-64, so bytes above 127 sign-extend), up to the first NUL.
fn name_khash(name: &[u8]) -> u32 {
    let mut h: u32 = 0;
    if let Some((&first, rest)) = name.split_first() {
        h = first as i8 as i32 as u32;
        if h != 0 {
            for &c in rest.iter().take_while(|&&c| c != 0) {
                h = (h << 5).wrapping_sub(h).wrapping_add(c as i8 as i32 as u32);
            }
        }
    }
    let mut key = h;
    key = key.wrapping_add(!(key << 15));
    key ^= key >> 10;
    key = key.wrapping_add(key << 3);
    key ^= key >> 6;
    key = key.wrapping_add(!(key << 11));
    key ^= key >> 16;
    key
}

/// The new qualities of two bases at the same reference position of mates `a` (left)
/// and `b`, given the owner multipliers from [`quality_owner`].
#[inline]
pub fn adjusted(a_base: u8, a_q: u8, b_base: u8, b_q: u8, owner: (u8, u8)) -> (u8, u8) {
    let scaled = |q: u8| (0.8f64 * f64::from(q)) as u8;
    if a_base == b_base {
        let sum = (u32::from(a_q) + u32::from(b_q)).min(200) as u8;
        (owner.0 * sum, owner.1 * sum)
    } else if a_q > b_q {
        (scaled(a_q), 0)
    } else if a_q < b_q {
        (0, scaled(b_q))
    } else {
        (
            (f64::from(owner.0) * 0.8 * f64::from(a_q)) as u8,
            (f64::from(owner.1) * 0.8 * f64::from(b_q)) as u8,
        )
    }
}

/// Walks the positions where htslib's tweak changes qualities of mates `a` (the earlier
/// one, `a.pos <= b.pos`) and `b`, calling `change(ref_pos, a_index, a_qual, b_index,
/// b_qual)` with the new qualities, in reference order.
///
/// `only_at` (sorted positions) limits the calls to those positions when both mates are
/// plain (no indel or skip): then no deletion can look at another base's quality, and a
/// caller that reads bases at a few positions needs no more.
pub fn tweak_overlap(
    a: &MateView<'_>,
    b: &MateView<'_>,
    owner: (u8, u8),
    only_at: Option<&[i64]>,
    mut change: impl FnMut(i64, u32, u8, u32, u8),
) -> Result<(), TweakError> {
    if a.cigar.has_unknown_op() || b.cigar.has_unknown_op() {
        return Err(TweakError::UnknownOperation);
    }
    let mut apply = |reference: i64, ai: u32, bi: u32| -> Result<(), TweakError> {
        if ai as usize >= a.seq_len || ai as usize >= a.qual.len() {
            return Err(TweakError::PastSequence(a.seq_len));
        }
        if bi as usize >= b.seq_len || bi as usize >= b.qual.len() {
            return Err(TweakError::PastSequence(b.seq_len));
        }
        let (qa, qb) = adjusted(
            a.base(ai),
            a.qual[ai as usize],
            b.base(bi),
            b.qual[bi as usize],
            owner,
        );
        change(reference, ai, qa, bi, qb);
        Ok(())
    };
    if is_plain(a.cigar) && is_plain(b.cigar) {
        // Clips around one match each: the walk visits every common position.
        let a_first = aligned_bases(a.cigar, a.pos).next();
        let b_first = aligned_bases(b.cigar, b.pos).next();
        let (Some((_, a_clip)), Some((_, b_clip))) = (a_first, b_first) else {
            return Ok(());
        };
        let a_end = a.pos + a.cigar.reference_span();
        let b_end = b.pos + b.cigar.reference_span();
        let (from, to) = (b.pos.max(a.pos), a_end.min(b_end));
        let at = |reference: i64| {
            (
                a_clip + (reference - a.pos) as u32,
                b_clip + (reference - b.pos) as u32,
            )
        };
        match only_at {
            Some(positions) => {
                let first = positions.partition_point(|&p| p < from);
                for &reference in positions[first..].iter().take_while(|&&p| p < to) {
                    let (ai, bi) = at(reference);
                    apply(reference, ai, bi)?;
                }
            }
            None => {
                for reference in from..to {
                    let (ai, bi) = at(reference);
                    apply(reference, ai, bi)?;
                }
            }
        }
        return Ok(());
    }
    // The general walk: step the mate that is behind to the next aligned base at or past
    // the cursor, then the other; change the bases when both sit on the same position;
    // the cursor moves one past the further of the two either way.
    let mut a_bases = aligned_bases(a.cigar, a.pos);
    let mut b_bases = aligned_bases(b.cigar, b.pos);
    let mut cursor = b.pos;
    let Some(mut a_at) = a_bases.find(|&(r, _)| r >= cursor) else {
        return Ok(());
    };
    let Some(mut b_at) = b_bases.next() else {
        return Ok(());
    };
    loop {
        while a_at.0 < cursor {
            match a_bases.next() {
                Some(next) => a_at = next,
                None => return Ok(()),
            }
        }
        cursor = cursor.max(a_at.0);
        while b_at.0 < cursor {
            match b_bases.next() {
                Some(next) => b_at = next,
                None => return Ok(()),
            }
        }
        cursor = cursor.max(b_at.0) + 1;
        if a_at.0 == b_at.0 {
            apply(a_at.0, a_at.1, b_at.1)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::cigar::tests::pack;
    use super::*;

    fn packed(bases: &[u8]) -> Vec<u8> {
        let code = |b: u8| b"=ACMGRSVTWYHKDBN".iter().position(|&c| c == b).unwrap() as u8;
        bases
            .chunks(2)
            .map(|p| (code(p[0]) << 4) | p.get(1).map_or(0, |&b| code(b)))
            .collect()
    }

    #[test]
    fn owner_hash_matches_khash() {
        // khash's __ac_Wang_hash(__ac_X31_hash_string(name)), computed in C.
        assert_eq!(name_khash(b"ab"), 3_383_171_756);
        assert_eq!(name_khash(b"simulated.1683116"), 1_050_037_229);
        assert_eq!(name_khash("xéy".as_bytes()), 2_947_672_486);
        assert_eq!(quality_owner(b"ab"), (0, 1));
        assert_eq!(quality_owner(b"simulated.1683116"), (1, 0));
        assert_eq!(quality_owner(b"SRR062634.1234"), (1, 0));
        assert_eq!(quality_owner("xéy".as_bytes()), (0, 1));
    }

    #[test]
    fn agreeing_and_disagreeing_bases() {
        assert_eq!(adjusted(1, 30, 1, 35, (1, 0)), (65, 0));
        assert_eq!(adjusted(1, 150, 1, 100, (0, 1)), (0, 200));
        assert_eq!(adjusted(1, 30, 2, 20, (0, 1)), (24, 0));
        assert_eq!(adjusted(1, 20, 2, 30, (1, 0)), (0, 24));
        assert_eq!(adjusted(1, 25, 2, 25, (1, 0)), (20, 0));
        assert_eq!(adjusted(1, 255, 4, 255, (0, 1)), (0, 204));
    }

    #[test]
    fn plain_mates_change_every_common_position() {
        let a_cigar = pack(&[(4, 2), (0, 8)]);
        let b_cigar = pack(&[(0, 6), (4, 1)]);
        let seq_a = packed(b"TTACGTACGT");
        let seq_b = packed(b"ACGTACG");
        let a = MateView {
            pos: 100,
            cigar: BamCigar::new(&a_cigar),
            seq: &seq_a,
            seq_len: 10,
            qual: &[30; 10],
        };
        let b = MateView {
            pos: 104,
            cigar: BamCigar::new(&b_cigar),
            seq: &seq_b,
            seq_len: 7,
            qual: &[20; 7],
        };
        let mut seen = Vec::new();
        tweak_overlap(&a, &b, (1, 0), None, |r, ai, qa, bi, qb| {
            seen.push((r, ai, qa, bi, qb))
        })
        .unwrap();
        // a covers 100..108 (query 2..10), b covers 104..110: common 104..108.
        assert_eq!(seen.len(), 4);
        assert_eq!(seen[0], (104, 6, 50, 0, 0));
        // The general walk agrees on plain mates.
        let a_gen = pack(&[(4, 2), (0, 4), (0, 4)]);
        let a2 = MateView {
            cigar: BamCigar::new(&a_gen),
            ..a
        };
        let mut general = Vec::new();
        tweak_overlap(&a2, &b, (1, 0), None, |r, ai, qa, bi, qb| {
            general.push((r, ai, qa, bi, qb))
        })
        .unwrap();
        assert_eq!(general, seen);
    }

    #[test]
    fn the_walk_skips_the_position_after_a_deletion() {
        // a: 10M at 0. b: 2M 2D 6M at 2, so b has no base at 4 and 5 and meets a again at 6.
        let a_cigar = pack(&[(0, 10)]);
        let b_cigar = pack(&[(0, 2), (2, 2), (0, 6)]);
        let seq = packed(b"AAAAAAAAAA");
        let a = MateView {
            pos: 0,
            cigar: BamCigar::new(&a_cigar),
            seq: &seq,
            seq_len: 10,
            qual: &[30; 10],
        };
        let b = MateView {
            pos: 2,
            cigar: BamCigar::new(&b_cigar),
            seq: &seq,
            seq_len: 8,
            qual: &[30; 8],
        };
        let mut positions = Vec::new();
        tweak_overlap(&a, &b, (0, 1), None, |r, _, _, _, _| positions.push(r)).unwrap();
        // 2, 3 change; at 4 b jumps to 6 and the cursor to 7: 6 is skipped.
        assert_eq!(positions, vec![2, 3, 7, 8, 9]);
    }

    #[test]
    fn mates_without_sequence_are_refused() {
        let cigar = pack(&[(0, 5)]);
        let a = MateView {
            pos: 0,
            cigar: BamCigar::new(&cigar),
            seq: &[],
            seq_len: 0,
            qual: &[],
        };
        let e = tweak_overlap(&a, &a, (1, 0), None, |_, _, _, _, _| {}).unwrap_err();
        assert_eq!(e, TweakError::PastSequence(0));
    }
}
