//! Read ends: the signature of a fragment or a pair (library, 5' positions, strands),
//! its score, where its records lie in the file, and the order Picard sorts them in.

use std::cmp::Ordering;

use seqfarm_core::cigar::{BamCigar, CigarOp};
use seqfarm_core::flags;

use super::spill::{Fields, RunItem};

/// Orientation of a fragment on the forward strand.
pub const F: u8 = 0;
/// Orientation of a fragment on the reverse strand.
pub const R: u8 = 1;
/// A pair, both reads forward.
pub const FF: u8 = 2;
/// A pair, the first end forward and the second reverse.
pub const FR: u8 = 3;
/// A pair, both reads reverse.
pub const RR: u8 = 4;
/// A pair, the first end reverse and the second forward.
pub const RF: u8 = 5;

/// Highest base-quality sum one read scores (a pair adds two without overflowing).
const MAX_READ_SCORE: i32 = i16::MAX as i32 / 2;
/// Bases below this quality do not score.
const MIN_SCORING_QUALITY: i8 = 15;

/// The orientation byte of two ends on the given strands (`true`: reverse).
pub fn orientation(first_reverse: bool, second_reverse: bool) -> u8 {
    match (first_reverse, second_reverse) {
        (true, true) => RR,
        (true, false) => RF,
        (false, true) => FR,
        (false, false) => FF,
    }
}

/// The 1-based 5' position of a mapped read, clips included: the unclipped start of a
/// forward read, the unclipped end of a reverse one. `pos` is the 0-based leftmost
/// aligned base.
pub fn unclipped_five_prime(flag: u16, pos: i32, cigar: BamCigar<'_>) -> i32 {
    let clip_len = |(code, len): (u32, u32)| {
        let clip = code == CigarOp::SoftClip.code() || code == CigarOp::HardClip.code();
        clip.then_some(i64::from(len))
    };
    let start = i64::from(pos) + 1;
    let five_prime = if flag & flags::REVERSE == 0 {
        let clipped: i64 = cigar.codes().map_while(clip_len).sum();
        start - clipped
    } else {
        let clipped: i64 = cigar.codes().rev().map_while(clip_len).sum();
        start + cigar.reference_span() - 1 + clipped
    };
    five_prime as i32
}

/// A read's duplicate score: the sum of its base qualities of at least 15 (capped so that
/// two reads add up without overflow), heavily discounted when it failed QC.
pub fn read_score(flag: u16, qualities: &[u8]) -> i16 {
    let sum: i32 = qualities
        .iter()
        .map(|&q| q as i8)
        .filter(|&q| q >= MIN_SCORING_QUALITY)
        .map(i32::from)
        .sum();
    let score = sum.min(MAX_READ_SCORE) as i16;
    if flag & flags::QC_FAIL != 0 {
        score.wrapping_add(i16::MIN / 2)
    } else {
        score
    }
}

/// Where a read was imaged: tile and pixel coordinates from its name, and its read
/// group's place in the header (`tile == -1`: unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// The read group's position in the header's `@RG` lines.
    pub read_group: i16,
    /// Flowcell tile.
    pub tile: i16,
    /// X pixel coordinate (kept in 16 bits, as Picard keeps it).
    pub x: i16,
    /// Y pixel coordinate (kept in 16 bits).
    pub y: i16,
}

impl Location {
    /// No location known.
    pub const NONE: Location = Location {
        read_group: -1,
        tile: -1,
        x: -1,
        y: -1,
    };

    /// Whether the read's name gave a location.
    pub fn is_known(&self) -> bool {
        self.tile != -1
    }
}

/// The ends of a fragment (one read) or of a pair (both reads, read 1 the one whose 5'
/// end comes first), with the records' indexes in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadEnds {
    /// The library, an index into the libraries of the header.
    pub library: u16,
    /// [`F`], [`R`] for fragments; [`FF`], [`FR`], [`RF`], [`RR`] for pairs.
    pub orientation: u8,
    /// The strands by read 1 then read 2 of the template (for optical duplicates).
    pub optical_orientation: i8,
    /// Reference of the first end.
    pub read1_ref: i32,
    /// 5' position of the first end.
    pub read1_coord: i32,
    /// Reference of the second end (of the mate for a fragment of a pair; -1: none).
    pub read2_ref: i32,
    /// 5' position of the second end (-1 for a fragment).
    pub read2_coord: i32,
    /// Where the (first seen) read was imaged.
    pub location: Location,
    /// Duplicate score (for a pair, both reads' summed).
    pub score: i16,
    /// Index in the file of the first end's record.
    pub read1_index: u64,
    /// Index in the file of the second end's record (-1 as `u64::MAX`: none).
    pub read2_index: u64,
}

impl ReadEnds {
    /// Whether these ends belong to a pair with both reads mapped.
    pub fn is_paired(&self) -> bool {
        self.read2_ref != -1
    }

    /// Picard's order of read ends: library, first end, orientation, second end, tile,
    /// x, y, then the records' places in the file.
    pub fn picard_order(&self, other: &Self) -> Ordering {
        (
            self.library,
            self.read1_ref,
            self.read1_coord,
            self.orientation,
            self.read2_ref,
            self.read2_coord,
            self.location.tile,
            self.location.x,
            self.location.y,
            self.read1_index as i64,
            self.read2_index as i64,
        )
            .cmp(&(
                other.library,
                other.read1_ref,
                other.read1_coord,
                other.orientation,
                other.read2_ref,
                other.read2_coord,
                other.location.tile,
                other.location.x,
                other.location.y,
                other.read1_index as i64,
                other.read2_index as i64,
            ))
    }

    /// Whether two fragments' first ends are the same (library, position, strand).
    pub fn same_first_end(&self, other: &Self) -> bool {
        self.library == other.library
            && self.read1_ref == other.read1_ref
            && self.read1_coord == other.read1_coord
            && self.orientation == other.orientation
    }

    /// Whether two pairs have the same signature (both ends and the orientation).
    pub fn same_pair(&self, other: &Self) -> bool {
        self.same_first_end(other)
            && self.read2_ref == other.read2_ref
            && self.read2_coord == other.read2_coord
    }

    /// Completes a pair whose first seen read these ends are with `mate`, the fragment
    /// ends of the other read (`mate_is_read1`: it is the template's first segment).
    pub fn add_mate(&mut self, mate: &ReadEnds, mate_is_read1: bool) {
        let first_reverse = self.orientation == R;
        let mate_reverse = mate.orientation == R;
        self.optical_orientation = if mate_is_read1 {
            orientation(mate_reverse, first_reverse) as i8
        } else {
            orientation(first_reverse, mate_reverse) as i8
        };
        let (mate_ref, mate_coord) = (mate.read1_ref, mate.read1_coord);
        if mate_ref > self.read1_ref
            || (mate_ref == self.read1_ref && mate_coord >= self.read1_coord)
        {
            self.read2_ref = mate_ref;
            self.read2_coord = mate_coord;
            self.read2_index = mate.read1_index;
            self.orientation = orientation(first_reverse, mate_reverse);
            // Both ends at one position facing each other: FR, whichever came first.
            if self.read2_ref == self.read1_ref
                && self.read2_coord == self.read1_coord
                && self.orientation == RF
            {
                self.orientation = FR;
            }
        } else {
            self.read2_ref = self.read1_ref;
            self.read2_coord = self.read1_coord;
            self.read2_index = self.read1_index;
            self.read1_ref = mate_ref;
            self.read1_coord = mate_coord;
            self.read1_index = mate.read1_index;
            self.orientation = orientation(mate_reverse, first_reverse);
        }
        self.score = self.score.wrapping_add(mate.score);
    }
}

/// The ends of a read as a fragment, kept compact (one per primary mapped read): what
/// the fragment sets need of [`ReadEnds`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fragment {
    /// The library.
    pub library: u16,
    /// [`F`] or [`R`].
    pub orientation: u8,
    /// Whether the read's mate is mapped.
    pub paired: bool,
    /// Reference.
    pub reference: i32,
    /// 5' position.
    pub coord: i32,
    /// Tile, x and y of the read's name (-1: unknown).
    pub tile_x_y: [i16; 3],
    /// Duplicate score.
    pub score: i16,
    /// Index of the record in the file.
    pub index: u64,
}

impl From<&ReadEnds> for Fragment {
    fn from(ends: &ReadEnds) -> Self {
        Self {
            library: ends.library,
            orientation: ends.orientation,
            paired: ends.is_paired(),
            reference: ends.read1_ref,
            coord: ends.read1_coord,
            tile_x_y: [ends.location.tile, ends.location.x, ends.location.y],
            score: ends.score,
            index: ends.read1_index,
        }
    }
}

impl Fragment {
    /// Picard's order of fragment ends as far as it decides anything: the position and
    /// strand, then among unpaired reads tile, x, y and the place in the file (Picard
    /// also orders by the mate's reference, which only ever differs where a pair lies
    /// and every unpaired read there is a duplicate whatever the order).
    pub fn picard_order(&self, other: &Self) -> Ordering {
        (
            self.library,
            self.reference,
            self.coord,
            self.orientation,
            self.paired,
            self.tile_x_y,
            self.index,
        )
            .cmp(&(
                other.library,
                other.reference,
                other.coord,
                other.orientation,
                other.paired,
                other.tile_x_y,
                other.index,
            ))
    }

    /// Whether two fragments lie at the same position on the same strand.
    pub fn same_position(&self, other: &Self) -> bool {
        self.library == other.library
            && self.reference == other.reference
            && self.coord == other.coord
            && self.orientation == other.orientation
    }
}

impl RunItem for ReadEnds {
    const BYTES: usize = 46;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.library.to_le_bytes());
        out.extend_from_slice(&[self.orientation, self.optical_orientation as u8]);
        for value in [
            self.read1_ref,
            self.read1_coord,
            self.read2_ref,
            self.read2_coord,
        ] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        let l = self.location;
        for value in [l.read_group, l.tile, l.x, l.y, self.score] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(&self.read1_index.to_le_bytes());
        out.extend_from_slice(&self.read2_index.to_le_bytes());
    }
    fn get(bytes: &[u8]) -> Self {
        let mut f = Fields(bytes);
        Self {
            library: f.u16(),
            orientation: f.u8(),
            optical_orientation: f.u8() as i8,
            read1_ref: f.i32(),
            read1_coord: f.i32(),
            read2_ref: f.i32(),
            read2_coord: f.i32(),
            location: Location {
                read_group: f.i16(),
                tile: f.i16(),
                x: f.i16(),
                y: f.i16(),
            },
            score: f.i16(),
            read1_index: f.u64(),
            read2_index: f.u64(),
        }
    }
}

impl RunItem for Fragment {
    const BYTES: usize = 28;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.library.to_le_bytes());
        out.extend_from_slice(&[self.orientation, u8::from(self.paired)]);
        out.extend_from_slice(&self.reference.to_le_bytes());
        out.extend_from_slice(&self.coord.to_le_bytes());
        for value in self.tile_x_y.into_iter().chain([self.score]) {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(&self.index.to_le_bytes());
    }
    fn get(bytes: &[u8]) -> Self {
        let mut f = Fields(bytes);
        Self {
            library: f.u16(),
            orientation: f.u8(),
            paired: f.u8() != 0,
            reference: f.i32(),
            coord: f.i32(),
            tile_x_y: [f.i16(), f.i16(), f.i16()],
            score: f.i16(),
            index: f.u64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cigar(ops: &[(CigarOp, u32)]) -> Vec<u8> {
        ops.iter()
            .flat_map(|&(op, len)| op.word(len).to_le_bytes())
            .collect()
    }

    #[test]
    fn five_prime_positions_include_clips() {
        let c = cigar(&[
            (CigarOp::HardClip, 2),
            (CigarOp::SoftClip, 3),
            (CigarOp::Match, 10),
            (CigarOp::Deletion, 2),
            (CigarOp::Match, 5),
            (CigarOp::SoftClip, 4),
        ]);
        let c = BamCigar::new(&c);
        // Forward: 1-based start 101 minus 5 clipped bases.
        assert_eq!(unclipped_five_prime(0, 100, c), 96);
        // Reverse: end 101 + 17 - 1 = 117, plus 4 clipped.
        assert_eq!(unclipped_five_prime(flags::REVERSE, 100, c), 121);
    }

    #[test]
    fn scores_sum_qualities_of_15_and_more() {
        assert_eq!(read_score(0, &[14, 15, 30, 0xff]), 45);
        assert_eq!(read_score(0, &[60; 1000]), 16383);
        assert_eq!(read_score(flags::QC_FAIL, &[20]), 20 - 16384);
    }

    fn fragment(coord: i32, reverse: bool, index: u64) -> ReadEnds {
        ReadEnds {
            library: 0,
            orientation: if reverse { R } else { F },
            optical_orientation: -1,
            read1_ref: 0,
            read1_coord: coord,
            read2_ref: 0,
            read2_coord: -1,
            location: Location::NONE,
            score: 10,
            read1_index: index,
            read2_index: u64::MAX,
        }
    }

    #[test]
    fn per_read_state_stays_small() {
        assert!(std::mem::size_of::<Fragment>() <= 32);
        assert!(std::mem::size_of::<ReadEnds>() <= 48);
    }

    #[test]
    fn ends_come_back_from_a_run_unchanged() {
        let mut pair = fragment(200, true, 0);
        pair.add_mate(&fragment(150, false, 1), false);
        pair.location = Location {
            read_group: 2,
            tile: 1101,
            x: -7,
            y: 300,
        };
        pair.score = -5;
        let mut bytes = Vec::new();
        pair.put(&mut bytes);
        assert_eq!(bytes.len(), ReadEnds::BYTES);
        assert_eq!(ReadEnds::get(&bytes), pair);
        let fragment = Fragment::from(&pair);
        bytes.clear();
        fragment.put(&mut bytes);
        assert_eq!(bytes.len(), Fragment::BYTES);
        assert_eq!(Fragment::get(&bytes), fragment);
    }

    #[test]
    fn pairs_put_the_leftmost_five_prime_end_first() {
        let mut pair = fragment(200, true, 0);
        pair.add_mate(&fragment(150, false, 1), false);
        assert_eq!((pair.read1_coord, pair.read2_coord), (150, 200));
        assert_eq!((pair.read1_index, pair.read2_index), (1, 0));
        assert_eq!(pair.orientation, FR);
        assert_eq!(pair.optical_orientation, RF as i8);
        assert_eq!(pair.score, 20);

        let mut pair = fragment(100, false, 0);
        pair.add_mate(&fragment(300, true, 1), true);
        assert_eq!(pair.orientation, FR);
        assert_eq!(pair.optical_orientation, RF as i8);

        // Same position, facing each other: FR whatever the order.
        let mut pair = fragment(100, true, 0);
        pair.add_mate(&fragment(100, false, 1), true);
        assert_eq!(pair.orientation, FR);
    }
}
