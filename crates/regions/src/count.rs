//! Reads per region, counted as `bedtools multicov` counts them.
//!
//! A read counts in a region when it passes the filters and its span overlaps the region
//! by a fraction of the region's length of at least 1e-9 (bedtools' default `-f`,
//! compared in single precision): in practice one base. The span ends where htslib's
//! `bam_endpos` says ([`read_end`]): unmapped and CIGAR-less reads span their one
//! position. Unmapped, secondary and supplementary reads are not filtered.
//!
//! [`RegionSweep`] counts the reads of one contig, given in position order, into many
//! regions at once (sorted by start), so a contig's reads are read once for all the
//! regions of a task.

use crate::flags::{DUPLICATE, PROPER_PAIR, QC_FAIL, UNMAPPED};

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
    /// every region it counts in.
    #[inline]
    pub fn add(&mut self, pos: i64, end: i64, mut hit: impl FnMut(u32)) {
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
            if start < end && counts_in(pos, end, start, stop) {
                hit(index);
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
}
