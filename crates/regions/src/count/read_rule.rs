//! How one read counts in the regions it overlaps, as `bedtools multicov` decides: the
//! read filter, the strand rule and the overlap rule together ([`ReadCountRule`]),
//! applied to a contig stretch's reads in position order ([`StretchCounter`]).
//!
//! A read passes the filter on its FLAG and MAPQ, spans what htslib's `bam_endpos` says
//! ([`read_end`]), and counts in a region its span overlaps when it is on the strand the
//! rule asks for and overlaps the region enough: its span against the region, or with
//! `split` its aligned blocks (built from the CIGAR: `N` cuts a block, `D` does not)
//! against the region's blocks. With the default strand and overlap rules a read counts
//! in every region it overlaps by a base, which [`RegionSweep::add`] decides alone.

use std::ops::Range;

use super::{read_end, OverlapRule, ReadBlocks, ReadFilter, RegionStrand, RegionSweep, StrandRule};
use seqfarm_core::cigar::{BamCigar, CigarOp};

/// bedtools multicov's rules for whether a read counts in a region (`-q`, `-p`, `-D`,
/// `-F`; `-s`, `-S`; `-f`, `-r`, `-split`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ReadCountRule {
    /// Which reads count at all.
    pub filter: ReadFilter,
    /// Which reads count by strand.
    pub strand: StrandRule,
    /// How much a read must overlap a region.
    pub overlap: OverlapRule,
}

impl ReadCountRule {
    /// Whether a read counts in every region it overlaps by a base (the default strand
    /// and overlap rules; the filter aside).
    pub fn is_plain(&self) -> bool {
        self.strand == StrandRule::default() && self.overlap == OverlapRule::default()
    }
}

/// The fields of one read the rule looks at.
#[derive(Debug, Clone, Copy)]
pub struct CountedRead<'a> {
    /// 0-based leftmost position.
    pub pos: i64,
    /// FLAG.
    pub flag: u16,
    /// Mapping quality.
    pub mapq: u8,
    /// The CIGAR, as stored in BAM.
    pub cigar: BamCigar<'a>,
}

/// What the rule needs of a region besides its position: its strand and, with `split`,
/// its blocks.
#[derive(Debug, Clone, Copy)]
pub struct RegionShape<'a> {
    /// The strand of its sixth BED column.
    pub strand: RegionStrand,
    /// Its blocks `[start, end)` (BED12); empty: the whole region is one block.
    pub blocks: &'a [(i64, i64)],
}

/// Counts the reads of one stretch of a contig (in position order) into the stretch's
/// regions by a [`ReadCountRule`]. One per worker: each stretch starts with
/// [`StretchCounter::start_stretch`], each file's reads with [`StretchCounter::restart`].
#[derive(Debug)]
pub struct StretchCounter {
    rule: ReadCountRule,
    /// [`ReadCountRule::is_plain`], asked once.
    plain: bool,
    sweep: RegionSweep,
    /// The aligned blocks of the current read (with `split`).
    read_blocks: ReadBlocks,
}

impl StretchCounter {
    /// A counter by `rule`, with no regions yet.
    pub fn new(rule: ReadCountRule) -> Self {
        Self {
            rule,
            plain: rule.is_plain(),
            sweep: RegionSweep::default(),
            read_blocks: ReadBlocks::default(),
        }
    }

    /// The rule the counter applies.
    pub fn rule(&self) -> &ReadCountRule {
        &self.rule
    }

    /// Takes the regions of the next stretch (`(start, stop, index)`, in any order) and
    /// returns the positions whose reads can count in them (`None`: none can). Reads
    /// that only touch a region are looked at through a region one base longer.
    pub fn start_stretch(
        &mut self,
        regions: impl IntoIterator<Item = (i64, i64, u32)>,
    ) -> Option<Range<i64>> {
        let touching = self.rule.overlap.counts_touching();
        let regions: Vec<_> = regions
            .into_iter()
            .map(|(start, stop, i)| (start, stop + i64::from(touching), i))
            .collect();
        let from = regions.iter().map(|r| r.0).min().unwrap_or(0);
        let to = regions.iter().map(|r| r.1).max().unwrap_or(0);
        self.sweep = RegionSweep::new(regions);
        (to > from.max(0)).then_some(from..to)
    }

    /// Starts the stretch again from its first region, for another file's reads.
    pub fn restart(&mut self) {
        self.sweep.restart();
    }

    /// Takes the stretch's next read (reads come in position order) and calls `hit` with
    /// the index of every region it counts in; `shape` gives a region's strand and blocks
    /// by its index (asked only under a strand or overlap rule other than the default).
    #[inline]
    pub fn add<'s>(
        &mut self,
        read: CountedRead<'_>,
        shape: impl Fn(u32) -> RegionShape<'s>,
        mut hit: impl FnMut(u32),
    ) {
        let rule = self.rule;
        let CountedRead {
            pos,
            flag,
            mapq,
            cigar,
        } = read;
        if !rule.filter.keeps(flag, mapq) {
            return;
        }
        let end = read_end(flag, pos, cigar.len(), cigar.reference_span());
        if self.plain {
            self.sweep.add(pos, end, hit);
            return;
        }
        let (strand, overlap) = (rule.strand, rule.overlap);
        if overlap.split {
            let blocks = &mut self.read_blocks;
            blocks.start(pos);
            for (op, length) in cigar.ops() {
                match op {
                    CigarOp::Match
                    | CigarOp::SeqMatch
                    | CigarOp::SeqMismatch
                    | CigarOp::Deletion => blocks.cover(length),
                    CigarOp::Skip => blocks.skip(length),
                    _ => {}
                }
            }
            blocks.finish();
        }
        let touching = overlap.counts_touching();
        let reach = if touching { end.max(pos + 1) } else { end };
        let read_blocks = &self.read_blocks.blocks;
        self.sweep.add_overlapping(pos, reach, |start, stop, i| {
            let stop = stop - i64::from(touching);
            let region = shape(i);
            if !strand.keeps(flag, region.strand) {
                return;
            }
            let counted = if overlap.split {
                let whole = [(start, stop)];
                let region_blocks = if region.blocks.is_empty() {
                    &whole[..]
                } else {
                    region.blocks
                };
                overlap.counts_blocks(read_blocks, region_blocks)
            } else {
                overlap.counts_span(pos, end, start, stop)
            };
            if counted {
                hit(i);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::{DUPLICATE, REVERSE};
    use crate::pileup::cigar::tests::pack;

    /// A region: start, stop, strand and blocks.
    type TestRegion<'a> = (i64, i64, RegionStrand, &'a [(i64, i64)]);
    /// A read: position, FLAG and CIGAR operations.
    type TestRead<'a> = (i64, u16, &'a [(u8, u32)]);

    /// Counts `reads` (MAPQ 60) into `regions` by `rule`: one count per region.
    fn count(rule: ReadCountRule, regions: &[TestRegion<'_>], reads: &[TestRead<'_>]) -> Vec<u32> {
        let mut counter = StretchCounter::new(rule);
        let stretch = regions.iter().enumerate();
        let needed = counter.start_stretch(stretch.map(|(i, r)| (r.0, r.1, i as u32)));
        let mut counts = vec![0; regions.len()];
        if needed.is_none() {
            return counts;
        }
        // Twice, as for two files: the second restarts the sweep.
        for _ in 0..2 {
            counter.restart();
            for &(pos, flag, ops) in reads {
                let cigar = pack(ops);
                let read = CountedRead {
                    pos,
                    flag,
                    mapq: 60,
                    cigar: BamCigar::new(&cigar),
                };
                let shape = |i: u32| {
                    let (_, _, strand, blocks) = regions[i as usize];
                    RegionShape { strand, blocks }
                };
                counter.add(read, shape, |i| counts[i as usize] += 1);
            }
        }
        counts.iter().map(|n| n / 2).collect()
    }

    const M100: &[(u8, u32)] = &[(CigarOp::Match as u8, 100)];

    #[test]
    fn default_rule_counts_a_base_of_overlap() {
        use RegionStrand::Unknown;
        let rule = ReadCountRule::default();
        assert!(rule.is_plain());
        let regions: &[TestRegion<'_>] = &[
            (0, 50, Unknown, &[]),
            (99, 200, Unknown, &[]),
            (200, 300, Unknown, &[]),
        ];
        let reads: &[TestRead<'_>] = &[
            (0, 0, M100),
            (100, DUPLICATE, M100),
            (
                150,
                REVERSE,
                &[
                    (CigarOp::Match as u8, 30),
                    (CigarOp::Skip as u8, 100),
                    (CigarOp::Match as u8, 20),
                ],
            ),
            (400, 0, M100),
        ];
        assert_eq!(count(rule, regions, reads), [1, 2, 1]);
        // A read without CIGAR spans its one position.
        assert_eq!(count(rule, regions, &[(49, 0, &[])]), [1, 0, 0]);
    }

    #[test]
    fn strand_and_touching_rules_apply_per_region() {
        use RegionStrand::{Forward, Reverse};
        let rule = ReadCountRule {
            strand: StrandRule {
                same: true,
                opposite: false,
            },
            ..ReadCountRule::default()
        };
        assert!(!rule.is_plain());
        let regions: &[TestRegion<'_>] = &[(0, 100, Forward, &[]), (0, 100, Reverse, &[])];
        let reads: &[TestRead<'_>] = &[(10, 0, M100), (20, REVERSE, M100)];
        assert_eq!(count(rule, regions, reads), [1, 1]);
        // With `-f 0` a read that only touches a region counts; without, it does not.
        let touching = ReadCountRule {
            overlap: OverlapRule {
                min_fraction: 0.0,
                ..OverlapRule::default()
            },
            ..ReadCountRule::default()
        };
        let regions: &[TestRegion<'_>] = &[(100, 200, Forward, &[])];
        let reads: &[TestRead<'_>] = &[(200, 0, M100)];
        assert_eq!(count(touching, regions, reads), [1]);
        assert_eq!(count(ReadCountRule::default(), regions, reads), [0]);
    }

    #[test]
    fn split_counts_read_blocks_against_region_blocks() {
        use RegionStrand::Unknown;
        let rule = ReadCountRule {
            overlap: OverlapRule {
                split: true,
                ..OverlapRule::default()
            },
            ..ReadCountRule::default()
        };
        // 10M 5D 10M 100N 20M at 1000: blocks [1000, 1025) and [1125, 1145).
        let spliced: &[(u8, u32)] = &[
            (CigarOp::Match as u8, 10),
            (CigarOp::Deletion as u8, 5),
            (CigarOp::Match as u8, 10),
            (CigarOp::Skip as u8, 100),
            (CigarOp::Match as u8, 20),
        ];
        let regions: &[TestRegion<'_>] = &[
            // The intron alone.
            (1030, 1120, Unknown, &[]),
            (1020, 1030, Unknown, &[]),
            // A BED12 region whose blocks miss the read's, then one that meets it.
            (900, 1200, Unknown, &[(900, 990), (1030, 1120)]),
            (900, 1200, Unknown, &[(900, 990), (1140, 1200)]),
        ];
        assert_eq!(count(rule, regions, &[(1000, 0, spliced)]), [0, 1, 0, 1]);
    }

    #[test]
    fn empty_stretches_read_nothing() {
        let mut counter = StretchCounter::new(ReadCountRule::default());
        assert_eq!(counter.start_stretch([]), None);
        assert_eq!(counter.start_stretch([(-50, 0, 0)]), None);
        assert_eq!(counter.start_stretch([(10, 20, 0), (5, 8, 1)]), Some(5..20));
        let touching = ReadCountRule {
            overlap: OverlapRule {
                min_fraction: 0.0,
                ..OverlapRule::default()
            },
            ..ReadCountRule::default()
        };
        let mut counter = StretchCounter::new(touching);
        assert_eq!(counter.start_stretch([(10, 20, 0)]), Some(10..21));
        assert_eq!(counter.rule(), &touching);
    }
}
