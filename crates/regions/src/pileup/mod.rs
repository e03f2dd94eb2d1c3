//! Allele counts at SNP sites, as FACETS `snp-pileup` computes them on htslib 1.16's
//! pileup engine — reproduced exactly, but computed range by range so ranges can run on
//! different workers.
//!
//! htslib's pileup is a sequential machine: reads enter a buffer in file order, a read
//! that starts where `max-depth` reads are already buffered is dropped, overlapping mates
//! have their qualities rewritten when the second one arrives, and positions are emitted
//! one by one. Its state at any position depends only on the reads near it, so a range
//! can be piled up on its own by replaying the reads from some distance before it:
//!
//! * [`engine::FileEngine`] replays one BAM's reads over a range with htslib's rules and
//!   keeps what it cannot know about the reads before the replay start as *unknown*
//!   (whether a read was dropped, whether its mate's qualities were rewritten). A result
//!   that any unknown could change is reported as uncertain, and the caller replays from
//!   further back; at a contig start nothing is unknown.
//! * [`replay`]: a task's sites replayed in clusters from reads a caller's files hand
//!   over ([`replay::ReadSource`]), each replay widened back until no unknown can change
//!   its counts and forward until each site's next covered positions are known.
//! * [`overlap`]: the quality rewrite of overlapping mates, base for base.
//! * [`cigar`]: reference spans, read bases at a position, aligned-base walks.
//! * [`visit`]: snp-pileup's loop that walks the VCF against the pileup positions (with
//!   its skipped, duplicate and lost sites); [`rows`]: where its rows go, FACETS' CSV
//!   or columns of values.

pub mod cigar;
pub mod engine;
pub mod overlap;
pub mod replay;
pub mod rows;
pub mod visit;

use crate::flags;
use seqfarm_core::cigar::BamCigar;

/// snp-pileup's read and base filters and htslib's pileup settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PileupParams {
    /// Reads with a lower mapping quality are dropped (`-q`); MAPQ 0 always is.
    pub min_map_quality: i32,
    /// Bases with a lower quality are not counted (`-Q`); quality 0 never is.
    pub min_base_quality: i32,
    /// htslib's per-file buffer limit (`-d`, `bam_mplp_set_maxcnt`).
    pub max_depth: i64,
    /// Keep paired reads that are not properly paired (`-A`).
    pub count_orphans: bool,
    /// Count overlapping mates once (htslib's overlap detection; `-x` turns it off).
    pub detect_overlaps: bool,
}

impl Default for PileupParams {
    /// snp-pileup's defaults: no quality thresholds, depth 4000, orphans dropped,
    /// overlap detection on.
    fn default() -> Self {
        Self {
            min_map_quality: 0,
            min_base_quality: 0,
            max_depth: 4000,
            count_orphans: false,
            detect_overlaps: true,
        }
    }
}

impl PileupParams {
    /// Whether snp-pileup lets `read` into the pileup: mapped, placed, primary or
    /// supplementary, not QC-failed, not a duplicate, MAPQ > 0 and >= `-q`, and properly
    /// paired when paired (unless `-A`).
    #[inline]
    pub fn keeps(&self, flag: u16, ref_id: i32, mapq: u8) -> bool {
        const DROP: u16 = flags::QC_FAIL | flags::SECONDARY | flags::DUPLICATE | flags::UNMAPPED;
        if flag & DROP != 0 || ref_id < 0 {
            return false;
        }
        if i32::from(mapq) < self.min_map_quality || mapq == 0 {
            return false;
        }
        self.count_orphans || flag & flags::PAIRED == 0 || flag & flags::PROPER_PAIR != 0
    }
}

/// The fields of one alignment record the pileup uses (views into the record's bytes).
#[derive(Debug, Clone, Copy)]
pub struct AlignedRead<'a> {
    /// 0-based leftmost position.
    pub pos: i64,
    /// FLAG.
    pub flag: u16,
    /// Read name without its NUL.
    pub name: &'a [u8],
    /// CIGAR as stored.
    pub cigar: BamCigar<'a>,
    /// Sequence, 4-bit packed (`=ACMGRSVTWYHKDBN`).
    pub seq: &'a [u8],
    /// Number of bases.
    pub seq_len: usize,
    /// Base qualities.
    pub qual: &'a [u8],
    /// Mate's reference index (`-1`: none).
    pub mate_ref_id: i32,
    /// Mate's 0-based position (`-1`: none).
    pub mate_pos: i64,
    /// Template length.
    pub template_len: i64,
}

/// The 4-bit code of a base letter in `=ACMGRSVTWYHKDBN`, or `None` for any other byte
/// (which then never equals a read base).
pub fn base_code(letter: u8) -> Option<u8> {
    b"=ACMGRSVTWYHKDBN"
        .iter()
        .position(|&c| c == letter)
        .map(|i| i as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_filter_follows_snp_pileup() {
        let p = PileupParams::default();
        assert!(p.keeps(0x63, 0, 60));
        assert!(p.keeps(0x800 | 0x63, 0, 60), "supplementary reads are kept");
        assert!(p.keeps(0, 0, 1), "unpaired reads are kept");
        for (flag, ref_id, mapq) in [
            (0x63 | 0x400, 0, 60),
            (0x63 | 0x200, 0, 60),
            (0x63 | 0x100, 0, 60),
            (0x4, 0, 60),
            (0x63, -1, 60),
            (0x63, 0, 0),
            (0x61, 0, 60),
        ] {
            assert!(!p.keeps(flag, ref_id, mapq), "{flag:#x} {ref_id} {mapq}");
        }
        let orphans = PileupParams {
            count_orphans: true,
            min_map_quality: 20,
            ..p
        };
        assert!(orphans.keeps(0x61, 0, 20));
        assert!(!orphans.keeps(0x61, 0, 19));
        assert_eq!(base_code(b'T'), Some(8));
        assert_eq!(base_code(b'a'), None);
    }
}
