//! Reads per region, counted as `bedtools multicov` counts them.
//!
//! A read counts in a region when it passes the filters and its span overlaps the region
//! by a fraction of the region's length of at least 1e-9 (bedtools' default `-f`,
//! compared in single precision): in practice one base. The span ends where htslib's
//! `bam_endpos` says ([`read_end`]): unmapped and CIGAR-less reads span their one
//! position. Unmapped, secondary and supplementary reads are not filtered.
//!
//! multicov's overlap options are an [`OverlapRule`]: `-s`/`-S` compare the read's strand
//! with the region's sixth column (`+` or `-`; any other value, or none, is never the
//! same strand), `-f` raises the fraction and `-r` asks it of the read's span too, and
//! `-split` counts the overlap of the read's aligned blocks ([`ReadBlocks`]: `N` cuts a
//! block, `D` does not) with the region's blocks (BED12) instead, as a fraction of the
//! read's blocks, compared with `>` rather than `>=`, as bedtools does there.
//!
//! [`RegionSweep`] counts the reads of one contig, given in position order, into many
//! regions at once (sorted by start), so a contig's reads are read once for all the
//! regions of a task. [`ReadCountRule`] holds the filter, strand and overlap rules
//! together, and [`StretchCounter`] applies it to each read of a stretch of regions.

use crate::flags::{DUPLICATE, PROPER_PAIR, QC_FAIL, REVERSE, UNMAPPED};

mod read_rule;

pub use read_rule::{CountedRead, ReadCountRule, RegionShape, StretchCounter};

/// bedtools multicov's read filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadFilter {
    /// Reads with a lower mapping quality are not counted (`-q`).
    pub min_map_quality: u8,
    /// Count only properly paired reads (`-p`).
    pub proper_pairs_only: bool,
    /// Count duplicates too (`-D`).
    pub keep_duplicates: bool,
    /// Count reads that failed quality checks too (`-F`).
    pub keep_qc_failed: bool,
}

impl ReadFilter {
    /// Whether a read with this FLAG and MAPQ is counted.
    #[inline]
    pub fn keeps(&self, flag: u16, mapq: u8) -> bool {
        !(self.proper_pairs_only && flag & PROPER_PAIR == 0
            || mapq < self.min_map_quality
            || !self.keep_duplicates && flag & DUPLICATE != 0
            || !self.keep_qc_failed && flag & QC_FAIL != 0)
    }
}

/// The end of a read's span, as htslib's `bam_endpos`: `pos + 1` for an unmapped read or
/// one without CIGAR, else `pos` plus the reference length of the CIGAR (which may be 0).
#[inline]
pub fn read_end(flag: u16, pos: i64, cigar_ops: usize, reference_span: i64) -> i64 {
    if flag & UNMAPPED != 0 || cigar_ops == 0 {
        pos + 1
    } else {
        pos + reference_span
    }
}

/// Whether read span `[pos, end)` counts in region `[start, stop)`: bedtools' overlap
/// fraction test, `overlap / length >= 1e-9` in `float`.
#[inline]
pub fn counts_in(pos: i64, end: i64, start: i64, stop: i64) -> bool {
    let overlap = end.min(stop) - pos.max(start);
    overlap > 0 && (overlap as f32) / ((stop - start) as f32) >= 1e-9f32
}

/// bedtools' default minimum overlap fraction (`-f 1E-9`: one base in practice).
pub const DEFAULT_MIN_FRACTION: f32 = 1e-9;

/// Which reads count by strand (`-s`, `-S`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StrandRule {
    /// Only reads on the region's strand (`-s`).
    pub same: bool,
    /// Only reads on the other strand (`-S`); with `same` too nothing counts, as in
    /// bedtools.
    pub opposite: bool,
}

/// A region's strand, from its sixth BED column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RegionStrand {
    /// `+`.
    Forward,
    /// `-`.
    Reverse,
    /// Anything else (`.`, fewer than six columns): never the same strand as a read.
    #[default]
    Unknown,
}

impl RegionStrand {
    /// The strand a sixth BED column gives.
    pub fn from_column(column: &[u8]) -> Self {
        match column {
            b"+" => Self::Forward,
            b"-" => Self::Reverse,
            _ => Self::Unknown,
        }
    }
}

impl StrandRule {
    /// Whether a read with this FLAG counts in a region on `strand`.
    #[inline]
    pub fn keeps(&self, flag: u16, strand: RegionStrand) -> bool {
        let read = if flag & REVERSE != 0 {
            RegionStrand::Reverse
        } else {
            RegionStrand::Forward
        };
        let same = read == strand;
        !(self.same && !same || self.opposite && same)
    }
}

/// How much a read must overlap a region (`-f`, `-r`, `-split`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverlapRule {
    /// Minimum overlap as a fraction of the region (`-f`; of the read's blocks with
    /// `split`).
    pub min_fraction: f32,
    /// The fraction is asked of the other side too (`-r`).
    pub reciprocal: bool,
    /// Overlaps are counted between the read's aligned blocks and the region's blocks
    /// (`-split`).
    pub split: bool,
}

impl Default for OverlapRule {
    fn default() -> Self {
        Self {
            min_fraction: DEFAULT_MIN_FRACTION,
            reciprocal: false,
            split: false,
        }
    }
}

impl OverlapRule {
    /// Whether a fraction of 0 or less lets reads that only touch a region count (without
    /// `split`): bedtools' region query takes the reads that start at the region's end
    /// and those spanning no reference inside it, and their overlap of 0 passes.
    pub fn counts_touching(&self) -> bool {
        !self.split && self.min_fraction <= 0.0
    }

    /// Whether read span `[pos, end)` counts in region `[start, stop)` (without
    /// `split`): `overlap / region >= f`, and with `reciprocal` `overlap / read >= f`,
    /// in `float` (`0 / 0` fails).
    #[inline]
    pub fn counts_span(&self, pos: i64, end: i64, start: i64, stop: i64) -> bool {
        let overlap = end.min(stop) - pos.max(start);
        overlap >= 0
            && (overlap as f32) / ((stop - start) as f32) >= self.min_fraction
            && (!self.reciprocal || (overlap as f32) / ((end - pos) as f32) >= self.min_fraction)
    }

    /// Whether a read's aligned `blocks` count in a region's `blocks` (with `split`):
    /// some block overlaps, and the total overlap over the read's total block length is
    /// above `f` (with `reciprocal`, over the region's too).
    pub fn counts_blocks(&self, read: &[(i64, i64)], region: &[(i64, i64)]) -> bool {
        let mut overlap = 0i64;
        let mut any = false;
        for &(from, to) in read {
            for &(start, stop) in region {
                let o = to.min(stop) - from.max(start);
                if o > 0 {
                    any = true;
                    overlap += o;
                }
            }
        }
        let length = |blocks: &[(i64, i64)]| blocks.iter().map(|(a, b)| b - a).sum::<i64>();
        any && (overlap as f32) / (length(read) as f32) > self.min_fraction
            && (!self.reciprocal || (overlap as f32) / (length(region) as f32) > self.min_fraction)
    }
}

/// A read's aligned blocks, `[start, end)` on the reference, built from its CIGAR as
/// bedtools' `GetBamBlocks` builds them: `M`, `=`, `X` and `D` extend the block, `N`
/// ends it, the others cover no reference.
#[derive(Debug, Default)]
pub struct ReadBlocks {
    /// The blocks of the last read.
    pub blocks: Vec<(i64, i64)>,
    position: i64,
    length: i64,
}

impl ReadBlocks {
    /// Starts the blocks of a read at `pos`.
    pub fn start(&mut self, pos: i64) {
        self.blocks.clear();
        self.position = pos;
        self.length = 0;
    }

    /// An operation that covers reference in the block (`M`, `=`, `X`, `D`).
    pub fn cover(&mut self, length: u32) {
        self.length += i64::from(length);
    }

    /// A skip (`N`): ends the block.
    pub fn skip(&mut self, length: u32) {
        self.blocks
            .push((self.position, self.position + self.length));
        self.position += self.length + i64::from(length);
        self.length = 0;
    }

    /// Ends the last block; the blocks are in [`Self::blocks`].
    pub fn finish(&mut self) {
        self.skip(0);
    }
}

/// Counts reads of one contig into regions.
#[derive(Debug, Default)]
pub struct RegionSweep {
    /// `(start, stop, region index)`, sorted by start.
    regions: Vec<(i64, i64, u32)>,
    /// Regions that have started (their start is before some read's end) and not ended.
    active: Vec<(i64, i64, u32)>,
    next: usize,
}

impl RegionSweep {
    /// A sweep over `regions` (`(start, stop, index)` in any order).
    pub fn new(mut regions: Vec<(i64, i64, u32)>) -> Self {
        regions.sort_unstable();
        Self {
            regions,
            active: Vec::new(),
            next: 0,
        }
    }

    /// Starts the sweep again from the first region (for the reads of another file).
    pub fn restart(&mut self) {
        self.active.clear();
        self.next = 0;
    }

    /// Takes the next read (reads come in position order); calls `hit` with the index of
    /// every region it counts in by bedtools' default overlap.
    #[inline]
    pub fn add(&mut self, pos: i64, end: i64, mut hit: impl FnMut(u32)) {
        self.add_overlapping(pos, end, |start, stop, index| {
            if counts_in(pos, end, start, stop) {
                hit(index);
            }
        });
    }

    /// Takes the next read (reads come in position order); calls `overlap` with the
    /// start, stop and index of every region its span overlaps by a base or more.
    #[inline]
    pub fn add_overlapping(&mut self, pos: i64, end: i64, mut overlap: impl FnMut(i64, i64, u32)) {
        if end <= pos {
            return;
        }
        while self.next < self.regions.len() && self.regions[self.next].0 < end {
            self.active.push(self.regions[self.next]);
            self.next += 1;
        }
        // Regions ending at or before this read end before every later read too.
        self.active.retain(|&(_, stop, _)| stop > pos);
        for &(start, stop, index) in &self.active {
            if start < end {
                overlap(start, stop, index);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_follow_multicov() {
        let f = ReadFilter::default();
        assert!(f.keeps(0x100, 0), "secondary and MAPQ 0 reads count");
        assert!(f.keeps(0x4, 0), "unmapped reads are not filtered");
        assert!(!f.keeps(0x400, 60) && !f.keeps(0x200, 60));
        let f = ReadFilter {
            min_map_quality: 10,
            proper_pairs_only: true,
            keep_duplicates: true,
            keep_qc_failed: true,
        };
        assert!(f.keeps(0x403, 10) && f.keeps(0x202, 10));
        assert!(!f.keeps(0x1, 60) && !f.keeps(0x2, 9));
    }

    #[test]
    fn read_ends_follow_bam_endpos() {
        assert_eq!(read_end(0x4, 100, 1, 4), 101);
        assert_eq!(read_end(0, 100, 0, 0), 101);
        assert_eq!(read_end(0, 100, 1, 0), 100);
        assert_eq!(read_end(0, 100, 2, 150), 250);
    }

    #[test]
    fn overlap_needs_one_base() {
        assert!(counts_in(100, 150, 149, 200));
        assert!(!counts_in(100, 150, 150, 200));
        assert!(!counts_in(100, 100, 50, 200), "a read spanning nothing");
        // Over a billion bases a single base falls below the fraction.
        assert!(!counts_in(0, 1, 0, 2_000_000_000));
    }

    #[test]
    fn sweep_counts_each_overlapping_region() {
        let mut sweep = RegionSweep::new(vec![(0, 10, 0), (5, 30, 1), (20, 25, 2), (40, 41, 3)]);
        let mut counts = [0u32; 4];
        for (pos, end) in [(0, 3), (8, 12), (18, 21), (24, 40), (39, 45), (60, 61)] {
            sweep.add(pos, end, |i| counts[i as usize] += 1);
        }
        assert_eq!(counts, [2, 3, 2, 1]);
        sweep.restart();
        let mut again = [0u32; 4];
        for (pos, end) in [(0, 3), (8, 12), (18, 21), (24, 40), (39, 45), (60, 61)] {
            sweep.add(pos, end, |i| again[i as usize] += 1);
        }
        assert_eq!(again, counts);
    }

    #[test]
    fn strand_rules_follow_multicov() {
        use RegionStrand::*;
        let same = StrandRule {
            same: true,
            opposite: false,
        };
        let opposite = StrandRule {
            same: false,
            opposite: true,
        };
        assert!(same.keeps(0, Forward) && !same.keeps(REVERSE, Forward));
        assert!(same.keeps(REVERSE, Reverse) && !same.keeps(0, Reverse));
        assert!(!same.keeps(0, Unknown) && !same.keeps(REVERSE, Unknown));
        assert!(opposite.keeps(REVERSE, Forward) && !opposite.keeps(0, Forward));
        assert!(opposite.keeps(0, Unknown) && opposite.keeps(REVERSE, Unknown));
        let both = StrandRule {
            same: true,
            opposite: true,
        };
        assert!(!both.keeps(0, Forward) && !both.keeps(0, Unknown));
        assert!(StrandRule::default().keeps(REVERSE, Forward));
        assert_eq!(RegionStrand::from_column(b"-"), Reverse);
        assert_eq!(RegionStrand::from_column(b"."), Unknown);
        assert_eq!(RegionStrand::from_column(b"+ "), Unknown);
    }

    #[test]
    fn span_fractions_of_region_and_read() {
        let half = OverlapRule {
            min_fraction: 0.5,
            ..OverlapRule::default()
        };
        // 50 of a 100-base region: enough (>=); 49 is not.
        assert!(half.counts_span(50, 150, 100, 200));
        assert!(!half.counts_span(0, 149, 100, 200));
        let reciprocal = OverlapRule {
            reciprocal: true,
            ..half
        };
        // The whole region, but a fifth of a 500-base read.
        assert!(half.counts_span(0, 500, 100, 200));
        assert!(!reciprocal.counts_span(0, 500, 100, 200));
        assert!(reciprocal.counts_span(100, 180, 100, 200));
        let default = OverlapRule::default();
        assert_eq!(
            default.counts_span(0, 1, 0, 2_000_000_000),
            counts_in(0, 1, 0, 2_000_000_000)
        );
        assert!(default.counts_span(100, 150, 149, 200));
        assert!(!default.counts_span(200, 250, 100, 200), "touching");
        let zero = OverlapRule {
            min_fraction: 0.0,
            ..default
        };
        assert!(zero.counts_touching());
        assert!(zero.counts_span(200, 250, 100, 200) && zero.counts_span(150, 150, 100, 200));
        let reciprocal = OverlapRule {
            reciprocal: true,
            ..zero
        };
        assert!(!reciprocal.counts_span(150, 150, 100, 200), "0 / 0");
        assert!(reciprocal.counts_span(200, 250, 100, 200));
    }

    #[test]
    fn read_blocks_cut_at_skips_only() {
        let mut blocks = ReadBlocks::default();
        // 10M 5D 10M 100N 5I 20M 3S
        blocks.start(1000);
        blocks.cover(10);
        blocks.cover(5);
        blocks.cover(10);
        blocks.skip(100);
        blocks.cover(20);
        blocks.finish();
        assert_eq!(blocks.blocks, [(1000, 1025), (1125, 1145)]);
        blocks.start(7);
        blocks.finish();
        assert_eq!(blocks.blocks, [(7, 7)], "no CIGAR: one empty block");
    }

    #[test]
    fn split_overlaps_are_fractions_of_the_read_blocks() {
        let read = [(1000, 1025), (1125, 1145)];
        let rule = OverlapRule {
            split: true,
            ..OverlapRule::default()
        };
        // The intron alone: no block overlaps.
        assert!(!rule.counts_blocks(&read, &[(1030, 1120)]));
        assert!(rule.counts_blocks(&read, &[(1024, 1120)]));
        // 20 of 45 read bases: under a half; 25 + 5 = 30 of 45: over.
        let half = OverlapRule {
            min_fraction: 0.5,
            ..rule
        };
        assert!(!half.counts_blocks(&read, &[(1125, 2000)]));
        assert!(half.counts_blocks(&read, &[(900, 1100), (1140, 1200)]));
        // Exactly a half is not above it.
        assert!(!half.counts_blocks(&[(0, 10)], &[(5, 100)]));
        let reciprocal = OverlapRule {
            reciprocal: true,
            ..half
        };
        assert!(!reciprocal.counts_blocks(&read, &[(900, 1100), (1140, 1200)]));
        assert!(reciprocal.counts_blocks(&read, &[(1000, 1025), (1140, 1150)]));
        assert!(!rule.counts_blocks(&[(7, 7)], &[(0, 100)]));
    }
}
