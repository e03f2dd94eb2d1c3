//! Paired-end alignment as bowtie2 defines it: concordant, discordant and mixed
//! (unpaired) alignments of the two mates of a fragment, with bowtie2's `-I/-X`,
//! `--fr/--rf/--ff`, `--no-mixed`, `--no-discordant`, `--dovetail`, `--no-contain` and
//! `--no-overlap` meanings.
//!
//! Both mates of every pair of a batch are aligned together ([`Aligner::align_pairs`](crate::Aligner::align_pairs)):
//! each mate's candidate places are found as for a single read, every combination is
//! classified by [`PairParams::classify`], the best concordant pair by the sum of the
//! mates' scores wins, and a mate that has no place concordant with its mate's is
//! searched for by dynamic programming in the window its mate and the fragment-length
//! limits define (mate rescue).

use crate::aligner::{ReadInput, ReadResult};
use crate::candidate::Placement;

/// How the mates of a concordant pair face each other (bowtie2's `--fr`, `--rf`,
/// `--ff`), stated for mate 1 upstream on the forward strand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MateOrientation {
    /// Mate 1 forward, mate 2 reverse-complemented downstream of it (Illumina
    /// paired-end; the default).
    #[default]
    Fr,
    /// Mate 1 reverse-complemented, mate 2 forward downstream of it (mate-pair
    /// libraries).
    Rf,
    /// Both forward, mate 2 downstream of mate 1.
    Ff,
}

/// The pairing constraints (bowtie2's paired-end options).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairParams {
    /// Shortest concordant fragment (`-I`), outer ends of both mates, soft clips
    /// included.
    pub min_fragment: u64,
    /// Longest concordant fragment (`-X`).
    pub max_fragment: u64,
    /// Mate orientation of a concordant pair.
    pub orientation: MateOrientation,
    /// Report mates on their own when the pair does not align (`--no-mixed` clears it).
    pub mixed: bool,
    /// Report discordant pairs (`--no-discordant` clears it).
    pub discordant: bool,
    /// Mates extending past each other may be concordant (`--dovetail`).
    pub dovetail: bool,
    /// One mate containing the other may be concordant (`--no-contain` clears it).
    pub contain: bool,
    /// Overlapping mates may be concordant (`--no-overlap` clears it).
    pub overlap: bool,
}

impl Default for PairParams {
    fn default() -> Self {
        Self {
            min_fragment: 0,
            max_fragment: 500,
            orientation: MateOrientation::Fr,
            mixed: true,
            discordant: true,
            dovetail: false,
            contain: true,
            overlap: true,
        }
    }
}

/// The two mates of a fragment to align.
#[derive(Debug, Clone, Copy)]
pub struct PairInput<'a> {
    /// Mate 1 (from `-1`) and mate 2 (from `-2`), as sequenced.
    pub mates: [ReadInput<'a>; 2],
}

/// How a pair aligned: bowtie2's `YT:Z:CP`, `DP` and `UP`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairClass {
    /// Both mates aligned, as a concordant pair.
    Concordant,
    /// Both mates aligned uniquely, but not as a concordant pair (never with
    /// `--no-mixed`, as in bowtie2).
    Discordant,
    /// No pair: each mate is reported on its own (aligned or not).
    Unpaired,
}

/// The outcome for one pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairResult {
    /// Concordant, discordant or unpaired.
    pub class: PairClass,
    /// Each mate's outcome. For a concordant pair, `placements[k]` of mate 1 and of
    /// mate 2 form the `k`-th pair reported (best first, at most `-k`); `second_best`
    /// is the mate's best score at another place (`XS`), `mapq` the pair-aware
    /// mapping quality. A mate that did not align, or that `--no-mixed` leaves
    /// unreported, is [`ReadResult::Unaligned`].
    pub mates: [ReadResult; 2],
    /// Concordant: another concordant pair was found (bowtie2's "aligned concordantly
    /// >1 times").
    pub other_pairs: bool,
}

/// How two mate placements relate, by bowtie2's definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairFit {
    /// A concordant pair.
    Concordant,
    /// Not concordant (other contigs, orientation, fragment length, or a dovetail /
    /// containment / overlap the options forbid).
    Discordant,
}

/// The outer extent of a placement on its contig: leftmost and one-past-rightmost
/// reference positions, soft-clipped bases counted (bowtie2's TLEN measures fragments
/// so).
pub fn outer_extent(p: &Placement) -> (i64, i64) {
    let mut lead = 0i64;
    let mut trail = 0i64;
    let mut seen_aligned = false;
    for (op, len) in p.cigar.ops() {
        if op == crate::cigar::CigarOp::SoftClip {
            if seen_aligned {
                trail += i64::from(len);
            } else {
                lead += i64::from(len);
            }
        } else {
            seen_aligned = true;
        }
    }
    let start = p.position as i64;
    let end = start + p.cigar.reference_len() as i64;
    (start - lead, end + trail)
}

/// The aligned extent of a placement on its contig: first and one-past-last reference
/// positions of its aligned bases, soft clips left out. bowtie2 classifies pairs on
/// these (`-I`, `-X`, containment, overlap, dovetail), and counts the clips only in
/// TLEN.
pub fn aligned_extent(p: &Placement) -> (i64, i64) {
    let start = p.position as i64;
    (start, start + p.cigar.reference_len() as i64)
}

impl PairParams {
    /// Whether mate placements `m1` and `m2` form a concordant pair (bowtie2's
    /// classification, on the mates' aligned extents).
    pub fn classify(&self, m1: &Placement, m2: &Placement) -> PairFit {
        let Some(one_left) = self.mate_1_left(m1, m2) else {
            return PairFit::Discordant;
        };
        let (lo1, end1) = aligned_extent(m1);
        let (lo2, end2) = aligned_extent(m2);
        let fragment = (end1.max(end2) - lo1.min(lo2)) as u64;
        if fragment > self.max_fragment || fragment < self.min_fragment.max(1) {
            return PairFit::Discordant;
        }
        let (hi1, hi2) = (end1 - 1, end2 - 1);
        let containment = (lo1 >= lo2 && hi1 <= hi2) || (lo2 >= lo1 && hi2 <= hi1);
        let overlap = containment || (lo1 <= lo2 && hi1 >= lo2) || (lo1 <= hi2 && hi1 >= hi2);
        if overlap && !self.overlap {
            return PairFit::Discordant;
        }
        if !overlap && ((one_left && lo2 < lo1) || (!one_left && lo1 < lo2)) {
            return PairFit::Discordant;
        }
        if containment && !self.contain {
            return PairFit::Discordant;
        }
        let dovetail = if one_left {
            hi1 > hi2 || lo2 < lo1
        } else {
            hi2 > hi1 || lo1 < lo2
        };
        if dovetail && !self.dovetail {
            return PairFit::Discordant;
        }
        PairFit::Concordant
    }

    /// Whether mate 1 must be the upstream one, given the mates' strands and the
    /// orientation; `None` when the strands do not fit it or the contigs differ.
    fn mate_1_left(&self, m1: &Placement, m2: &Placement) -> Option<bool> {
        let (fw1, fw2) = (!m1.reverse, !m2.reverse);
        match self.orientation {
            _ if m1.contig != m2.contig => None,
            MateOrientation::Fr if fw1 != fw2 => Some(fw1),
            MateOrientation::Rf if fw1 != fw2 => Some(!fw1),
            MateOrientation::Ff if fw1 == fw2 => Some(fw1),
            _ => None,
        }
    }

    /// Whether `m1` and `m2` face each other as the orientation requires within
    /// `-I`..`-X` and only `--no-contain` or the dovetail rule keeps them from being
    /// concordant: the non-concordant pairs that bowtie2's search for a mate beside its
    /// aligned mate finds, which it reports as discordant even with `--no-mixed`. Its
    /// search window leaves out overlapping mates under `--no-overlap`, and measures
    /// `-I` and `-X` from the start of the mate that should be upstream to the end of
    /// the other (bowtie2's `PairedEndPolicy::otherMate`), which for mates extending
    /// past each other is shorter than their span.
    pub fn near_miss(&self, m1: &Placement, m2: &Placement) -> bool {
        let Some(one_left) = self.mate_1_left(m1, m2) else {
            return false;
        };
        let (left, right) = if one_left { (m1, m2) } else { (m2, m1) };
        let oriented = aligned_extent(right).1 - aligned_extent(left).0;
        let loose = PairParams {
            min_fragment: 0,
            dovetail: true,
            contain: true,
            ..self.clone()
        };
        let as_signed = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        (as_signed(self.min_fragment.max(1))..=as_signed(self.max_fragment)).contains(&oriented)
            && loose.classify(m1, m2) == PairFit::Concordant
            && self.classify(m1, m2) == PairFit::Discordant
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cigar::{Cigar, CigarOp};

    fn at(position: u64, reverse: bool, len: u32) -> Placement {
        let mut cigar = Cigar::new();
        cigar.push(CigarOp::Match, len);
        Placement {
            contig: 0,
            position,
            reverse,
            cigar,
            ..Placement::default()
        }
    }

    #[test]
    fn fr_pairs_within_the_fragment_limits_are_concordant() {
        let p = PairParams::default();
        assert_eq!(
            p.classify(&at(1000, false, 100), &at(1300, true, 100)),
            PairFit::Concordant
        );
        // Mate 2 forward upstream, mate 1 reverse downstream: the other strand.
        assert_eq!(
            p.classify(&at(1300, true, 100), &at(1000, false, 100)),
            PairFit::Concordant
        );
        // 501 bases.
        assert_eq!(
            p.classify(&at(1000, false, 100), &at(1401, true, 100)),
            PairFit::Discordant
        );
        // Same strand.
        assert_eq!(
            p.classify(&at(1000, false, 100), &at(1200, false, 100)),
            PairFit::Discordant
        );
        // Facing away (reverse mate upstream of the forward one).
        assert_eq!(
            p.classify(&at(1200, false, 100), &at(1000, true, 100)),
            PairFit::Discordant
        );
    }

    #[test]
    fn containment_overlap_and_dovetail_follow_the_options() {
        let p = PairParams::default();
        let contained = (at(1000, false, 100), at(1050, true, 50));
        assert_eq!(p.classify(&contained.0, &contained.1), PairFit::Concordant);
        let no_contain = PairParams {
            contain: false,
            ..PairParams::default()
        };
        assert_eq!(
            no_contain.classify(&contained.0, &contained.1),
            PairFit::Discordant
        );
        let overlapping = (at(1000, false, 100), at(1050, true, 100));
        assert_eq!(
            p.classify(&overlapping.0, &overlapping.1),
            PairFit::Concordant
        );
        let no_overlap = PairParams {
            overlap: false,
            ..PairParams::default()
        };
        assert_eq!(
            no_overlap.classify(&overlapping.0, &overlapping.1),
            PairFit::Discordant
        );
        let dovetail = (at(1050, false, 100), at(1000, true, 100));
        // The left mate reaching past the right one's end is a dovetail too.
        let past_end = (at(1000, false, 100), at(1020, true, 50));
        assert_eq!(p.classify(&past_end.0, &past_end.1), PairFit::Discordant);
        assert_eq!(p.classify(&dovetail.0, &dovetail.1), PairFit::Discordant);
        let allowed = PairParams {
            dovetail: true,
            ..PairParams::default()
        };
        assert_eq!(
            allowed.classify(&dovetail.0, &dovetail.1),
            PairFit::Concordant
        );
    }

    #[test]
    fn soft_clips_count_in_no_fragment_rule() {
        let p = PairParams::default();
        // 480 aligned bases, 510 with mate 2's 30 clipped ones: concordant under -X 500.
        let mut clipped = at(1350, true, 130);
        clipped.cigar.push(CigarOp::SoftClip, 30);
        assert_eq!(
            p.classify(&at(1000, false, 150), &clipped),
            PairFit::Concordant
        );
        assert_eq!(outer_extent(&clipped), (1350, 1510));
        assert_eq!(aligned_extent(&clipped), (1350, 1480));
        // Mate 2's clipped bases reaching past mate 1's start make no dovetail either.
        let mut leading = Placement {
            cigar: Cigar::new(),
            ..at(1020, true, 0)
        };
        leading.cigar.push(CigarOp::SoftClip, 30);
        leading.cigar.push(CigarOp::Match, 100);
        assert_eq!(outer_extent(&leading).0, 990);
        assert_eq!(
            p.classify(&at(1000, false, 100), &leading),
            PairFit::Concordant
        );
    }

    #[test]
    fn near_misses_are_facing_mates_that_only_the_dovetail_or_containment_rule_rejects() {
        let p = PairParams::default();
        // Dovetailing by a base; contained under --no-contain.
        assert!(p.near_miss(&at(1001, false, 100), &at(1000, true, 100)));
        let no_contain = PairParams {
            contain: false,
            ..PairParams::default()
        };
        assert!(no_contain.near_miss(&at(1000, false, 100), &at(1020, true, 50)));
        // Shorter than -I, or overlapping under --no-overlap: bowtie2's mate search
        // does not look there.
        let min_150 = PairParams {
            min_fragment: 150,
            ..PairParams::default()
        };
        assert!(!min_150.near_miss(&at(1000, false, 100), &at(1020, true, 100)));
        // A dovetail spans 200 bases here, but -I sees 100: mate 1's start to mate 2's end.
        assert!(!min_150.near_miss(&at(1050, false, 150), &at(1000, true, 150)));
        assert!(p.near_miss(&at(1050, false, 150), &at(1000, true, 150)));
        let no_overlap = PairParams {
            overlap: false,
            ..PairParams::default()
        };
        assert!(!no_overlap.near_miss(&at(1000, false, 100), &at(1050, true, 100)));
        assert!(!no_overlap.near_miss(&at(1001, false, 100), &at(1000, true, 100)));
        // Concordant, too long, same strand, facing away, other contigs: not.
        assert!(!p.near_miss(&at(1000, false, 100), &at(1300, true, 100)));
        assert!(!p.near_miss(&at(1000, false, 100), &at(1401, true, 100)));
        assert!(!p.near_miss(&at(1000, false, 100), &at(1200, false, 100)));
        assert!(!p.near_miss(&at(1200, false, 100), &at(1000, true, 100)));
        let mut other = at(1300, true, 100);
        other.contig = 1;
        assert!(!p.near_miss(&at(1000, false, 100), &other));
    }
}
