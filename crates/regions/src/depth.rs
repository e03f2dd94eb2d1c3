//! Depth of coverage as mosdepth 0.3 computes it, over one stretch of a contig at a time.
//!
//! [`Coverage`] adds reads to a difference array over a stretch `[lo, hi)`: each read
//! adds one to the reference bases of its M/=/X blocks (deletions and skips are gaps,
//! insertions and clips cover nothing), and a properly paired read whose mate overlaps
//! it on the same contig has the overlap counted once, with mosdepth's exact rules (its
//! quirk included: two single-operation mates take the span from the later mate's start
//! to the earlier one's end off, even where the later mate ends first). Updates before
//! `lo` land on `lo`, those at or after `hi` are dropped, so a stretch's depths equal
//! those of the whole contig as long as every read overlapping it was added in position
//! order (and, for the quirk, the mates starting up to a read's length before it).
//!
//! The statistics ([`DepthStat`], [`DepthDistribution`], [`mean_depth`],
//! [`bases_at_least`]) are plain values a collector adds up; [`DepthDistribution::write`]
//! and [`summary_line`] print mosdepth's `.dist.txt` and `.summary.txt` lines.

use std::collections::HashMap;

use crate::count::read_end;
use crate::flags::{PROPER_PAIR, SUPPLEMENTARY};
use seqfarm_core::cigar::BamCigar;

/// Reads mosdepth leaves out by default (`-F 1796`): unmapped, secondary, QC-failed and
/// duplicate reads.
pub const DEFAULT_EXCLUDE_FLAGS: u16 = 1796;

/// Depths above this are counted in the distributions as [`CAPPED_DEPTH`].
pub const MAX_COUNTED_DEPTH: i32 = 400_000;
/// Where depths above [`MAX_COUNTED_DEPTH`] are counted.
pub const CAPPED_DEPTH: i32 = MAX_COUNTED_DEPTH - 10;
/// Bins of a per-contig window-mean distribution: a larger rounded mean counts in the last.
pub const WINDOW_MEAN_BINS: usize = 1000;

/// Which reads count (`-Q` and `-F`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthFilter {
    /// Reads with a lower mapping quality are left out.
    pub min_map_quality: u8,
    /// Reads with any of these FLAG bits are left out.
    pub exclude_flags: u16,
}

impl Default for DepthFilter {
    fn default() -> Self {
        Self {
            min_map_quality: 0,
            exclude_flags: DEFAULT_EXCLUDE_FLAGS,
        }
    }
}

impl DepthFilter {
    /// Whether a read with this FLAG and MAPQ counts.
    #[inline]
    pub fn keeps(&self, flag: u16, mapq: u8) -> bool {
        mapq >= self.min_map_quality && flag & self.exclude_flags == 0
    }
}

/// The fields of a read that its coverage depends on.
#[derive(Debug, Clone, Copy)]
pub struct AlignedRead<'a> {
    /// Read name (pairs are matched by it).
    pub name: &'a [u8],
    /// FLAG.
    pub flag: u16,
    /// 0-based position.
    pub pos: i64,
    /// Whether the mate is on the same contig.
    pub mate_on_same_contig: bool,
    /// The mate's 0-based position.
    pub mate_pos: i64,
    /// The CIGAR, as stored in BAM.
    pub cigar: BamCigar<'a>,
}

impl AlignedRead<'_> {
    /// The end as htslib's `bam_endpos` gives it.
    fn end(&self) -> i64 {
        read_end(
            self.flag,
            self.pos,
            self.cigar.len(),
            self.cigar.reference_span(),
        )
    }
}

/// Appends a read's coverage events in mosdepth's order: `(pos, +1)` where an aligned
/// block starts, `(pos, -1)` where one ends; blocks separated only by insertions or clips
/// merge.
pub fn push_blocks(cigar: BamCigar, pos: i64, events: &mut Vec<(i64, i32)>) {
    let mut at = pos;
    let mut last_stop = -1;
    for (op, len) in cigar.ops() {
        if !op.consumes_reference() {
            continue;
        }
        if op.is_aligned() {
            if at != last_stop {
                events.push((at, 1));
                if last_stop != -1 {
                    events.push((last_stop, -1));
                }
            }
            last_stop = at + i64::from(len);
        }
        at += i64::from(len);
    }
    if last_stop != -1 {
        events.push((last_stop, -1));
    }
}

/// A read kept until its overlapping mate arrives.
#[derive(Debug)]
struct HeldMate {
    end: i64,
    single_op: bool,
    events: Vec<(i64, i32)>,
}

/// Per-base depth of one stretch of a contig, built from its reads.
#[derive(Debug, Default)]
pub struct Coverage {
    lo: i64,
    hi: i64,
    diff: Vec<i32>,
    held: HashMap<Vec<u8>, HeldMate>,
    events: Vec<(i64, i32)>,
}

impl Coverage {
    /// Starts over on stretch `[lo, hi)` with no read.
    pub fn reset(&mut self, lo: i64, hi: i64) {
        self.lo = lo;
        self.hi = hi.max(lo);
        self.diff.clear();
        self.held.clear();
    }

    #[inline]
    fn bump(&mut self, pos: i64, by: i32) {
        if pos < self.hi {
            self.diff[(pos.max(self.lo) - self.lo) as usize] += by;
        }
    }

    /// Adds a read that passed the filters (reads come in position order).
    pub fn add(&mut self, read: &AlignedRead) {
        if self.diff.is_empty() {
            self.diff.resize((self.hi - self.lo) as usize + 1, 0);
        }
        let end = read.end();
        if read.flag & PROPER_PAIR != 0 && read.flag & SUPPLEMENTARY == 0 {
            let holds = read.mate_on_same_contig
                && end > read.mate_pos
                && (read.pos < read.mate_pos
                    || read.pos == read.mate_pos && !self.held.contains_key(read.name));
            if holds {
                let mut events = Vec::new();
                push_blocks(read.cigar, read.pos, &mut events);
                let mate = HeldMate {
                    end,
                    single_op: read.cigar.len() == 1,
                    events,
                };
                self.held.insert(read.name.to_vec(), mate);
            } else if let Some(mate) = self.held.remove(read.name) {
                self.remove_overlap(read, &mate);
            }
        }
        self.events.clear();
        let mut events = std::mem::take(&mut self.events);
        push_blocks(read.cigar, read.pos, &mut events);
        for &(pos, by) in &events {
            self.bump(pos, by);
        }
        self.events = events;
    }

    /// Takes off what `read` and its earlier `mate` both cover.
    fn remove_overlap(&mut self, read: &AlignedRead, mate: &HeldMate) {
        if read.cigar.len() == 1 && mate.single_op {
            self.bump(read.pos, -1);
            self.bump(mate.end, 1);
            return;
        }
        let mut events = std::mem::take(&mut self.events);
        events.clear();
        push_blocks(read.cigar, read.pos, &mut events);
        events.extend_from_slice(&mate.events);
        events.sort_by_key(|&(pos, _)| pos);
        let mut pair_depth = 0;
        let mut last_pos = 0;
        for &(pos, by) in &events {
            if by == -1 && pair_depth == 2 {
                self.bump(last_pos, -1);
                self.bump(pos, 1);
            }
            pair_depth += by;
            last_pos = pos;
        }
        self.events = events;
    }

    /// The depths of `[lo, hi)`, position by position (the reads added so far), or `None`
    /// when no read was added (every depth is 0).
    pub fn depths(&mut self) -> Option<&[i32]> {
        if self.diff.is_empty() {
            return None;
        }
        let mut sum = 0i32;
        for d in self.diff.iter_mut() {
            sum += *d;
            *d = sum;
        }
        let n = self.diff.len() - 1;
        Some(&self.diff[..n])
    }
}

/// Length, total, least and greatest depth of some bases (mosdepth's `depth_stat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthStat {
    /// Bases.
    pub length: u64,
    /// Sum of their depths.
    pub bases: u64,
    /// Least depth (`u32::MAX` when empty).
    pub min: u32,
    /// Greatest depth.
    pub max: u32,
}

impl Default for DepthStat {
    fn default() -> Self {
        Self {
            length: 0,
            bases: 0,
            min: u32::MAX,
            max: 0,
        }
    }
}

impl DepthStat {
    /// The statistics of `depths`.
    pub fn of(depths: &[i32]) -> Self {
        let mut stat = Self {
            length: depths.len() as u64,
            ..Self::default()
        };
        for &d in depths {
            stat.bases = stat.bases.wrapping_add(d as i64 as u64);
            stat.min = stat.min.min(d as u32);
            stat.max = stat.max.max(d as u32);
        }
        stat
    }

    /// The statistics of `length` bases of depth 0.
    pub fn zeros(length: u64) -> Self {
        if length == 0 {
            return Self::default();
        }
        Self {
            length,
            bases: 0,
            min: 0,
            max: 0,
        }
    }
}

impl std::ops::AddAssign for DepthStat {
    fn add_assign(&mut self, other: Self) {
        self.length += other.length;
        self.bases = self.bases.wrapping_add(other.bases);
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }
}

/// mosdepth's summary line for `name`: length, bases, mean (2 decimals), min, max.
pub fn summary_line(name: &str, stat: &DepthStat, out: &mut String) {
    use std::fmt::Write;
    let mean = if stat.length > 0 {
        stat.bases as f64 / stat.length as f64
    } else {
        0.0
    };
    let min = if stat.min == u32::MAX { 0 } else { stat.min };
    let _ = writeln!(
        out,
        "{name}\t{}\t{}\t{mean:.2}\t{min}\t{}",
        stat.length, stat.bases, stat.max
    );
}

/// The mean depth of region `[start, stop)` given its depths (cut at the contig's end):
/// each depth divided by the length and added in order, as mosdepth does.
pub fn mean_depth(depths: &[i32], start: i64, stop: i64) -> f64 {
    let length = (stop - start) as f64;
    depths
        .iter()
        .fold(0.0, |sum, &d| sum + f64::from(d) / length)
}

/// The bin a window of mean `mean` counts in: the mean rounded half away from zero
/// (Nim's `toInt`), at most the last of [`WINDOW_MEAN_BINS`].
pub fn window_mean_bin(mean: f64) -> usize {
    ((mean + 0.5) as usize).min(WINDOW_MEAN_BINS - 1)
}

/// For each threshold (ascending), the number of `depths` at least that high.
pub fn bases_at_least(depths: &[i32], thresholds: &[i32], counts: &mut [u64]) {
    counts.fill(0);
    for &d in depths {
        for (count, &t) in counts.iter_mut().zip(thresholds) {
            if d < t {
                break;
            }
            *count += 1;
        }
    }
}

/// Bases (or windows) per depth.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DepthDistribution(pub Vec<u64>);

impl DepthDistribution {
    /// Counts each depth once (depths above [`MAX_COUNTED_DEPTH`] as [`CAPPED_DEPTH`];
    /// negative ones not at all).
    pub fn add_depths(&mut self, depths: &[i32]) {
        for &d in depths {
            let d = if d > MAX_COUNTED_DEPTH {
                CAPPED_DEPTH
            } else {
                d
            };
            if d >= 0 {
                self.add_bin(d as usize);
            }
        }
    }

    /// Counts one in bin `bin`.
    #[inline]
    pub fn add_bin(&mut self, bin: usize) {
        if bin >= self.0.len() {
            self.0.resize(bin + 10, 0);
        }
        self.0[bin] += 1;
    }

    /// Counts `n` in bin `bin`.
    pub fn add_many(&mut self, bin: usize, n: u64) {
        if n > 0 {
            self.add_bin(bin);
            self.0[bin] += n - 1;
        }
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&n| n == 0)
    }

    /// mosdepth's `.dist.txt` lines for `name`: from the highest depth down, the
    /// proportion at or above it (2 decimals), leaving out zero bins above 300 and
    /// proportions below 8e-5; nothing when empty.
    pub fn write(&self, name: &str, out: &mut String) {
        use std::fmt::Write;
        let sum: u64 = self.0.iter().sum();
        if sum < 1 {
            return;
        }
        let mut cumulative = 0f64;
        for (depth, &n) in self.0.iter().enumerate().rev() {
            if depth > 300 && n == 0 {
                continue;
            }
            cumulative += n as f64 / sum as f64;
            if cumulative < 8e-5 {
                continue;
            }
            let _ = writeln!(out, "{name}\t{depth}\t{cumulative:.2}");
        }
    }
}

impl std::ops::AddAssign<&DepthDistribution> for DepthDistribution {
    fn add_assign(&mut self, other: &DepthDistribution) {
        if other.0.len() > self.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a += b;
        }
    }
}

/// Appends runs of equal depth of `depths` (starting at `start`) as `(start, end, depth)`,
/// extending the last run when it continues.
pub fn push_runs(depths: &[i32], start: i64, runs: &mut Vec<(i64, i64, i32)>) {
    for (i, &d) in depths.iter().enumerate() {
        let pos = start + i as i64;
        match runs.last_mut() {
            Some(last) if last.2 == d && last.1 == pos => last.1 = pos + 1,
            _ => runs.push((pos, pos + 1, d)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use seqfarm_core::cigar::CigarOp;

    fn cigar(ops: &[(u32, CigarOp)]) -> Vec<u8> {
        ops.iter()
            .flat_map(|&(len, op)| op.word(len).to_le_bytes())
            .collect()
    }

    fn read<'a>(name: &'a [u8], flag: u16, pos: i64, mate: i64, c: &'a [u8]) -> AlignedRead<'a> {
        AlignedRead {
            name,
            flag,
            pos,
            mate_on_same_contig: true,
            mate_pos: mate,
            cigar: BamCigar::new(c),
        }
    }

    /// The depths of stretch `[lo, hi)` after adding `reads` in order.
    fn depths_of(lo: i64, hi: i64, reads: &[AlignedRead]) -> Vec<i32> {
        let mut cov = Coverage::default();
        cov.reset(lo, hi);
        for r in reads {
            cov.add(r);
        }
        cov.depths().expect("reads were added").to_vec()
    }

    #[test]
    fn deletions_and_skips_are_gaps() {
        let mut events = Vec::new();
        let c = cigar(&[
            (2, CigarOp::SoftClip),
            (3, CigarOp::Match),
            (2, CigarOp::Deletion),
            (2, CigarOp::Match),
        ]);
        push_blocks(BamCigar::new(&c), 10, &mut events);
        assert_eq!(events, [(10, 1), (15, 1), (13, -1), (17, -1)]);
        assert_eq!(
            depths_of(8, 20, &[read(b"r", 0, 10, 0, &c)]),
            [0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0]
        );
    }

    #[test]
    fn overlapping_mates_count_once() {
        let c = cigar(&[(10, CigarOp::Match)]);
        let mates = [read(b"p", 0x3, 0, 5, &c), read(b"p", 0x3, 5, 0, &c)];
        let expected: Vec<i32> = (0..20).map(|i| i32::from(i < 15)).collect();
        assert_eq!(depths_of(0, 20, &mates), expected);
    }

    #[test]
    fn contained_single_op_mate_takes_off_to_the_first_end() {
        let long = cigar(&[(10, CigarOp::Match)]);
        let short = cigar(&[(2, CigarOp::Match)]);
        let mates = [read(b"p", 0x3, 0, 3, &long), read(b"p", 0x3, 3, 0, &short)];
        assert_eq!(
            depths_of(0, 12, &mates),
            [1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn stretch_edges_clamp() {
        let c = cigar(&[(10, CigarOp::Match)]);
        assert_eq!(depths_of(5, 8, &[read(b"r", 0, 0, 0, &c)]), [1, 1, 1]);
    }

    #[test]
    fn distribution_lines() {
        let mut d = DepthDistribution::default();
        d.add_depths(&[0, 1, 1, 2]);
        let mut out = String::new();
        d.write("c", &mut out);
        assert_eq!(out, "c\t2\t0.25\nc\t1\t0.75\nc\t0\t1.00\n");
        assert_eq!(window_mean_bin(0.5), 1);
        assert_eq!(window_mean_bin(2000.0), 999);
    }

    #[test]
    fn thresholds_count_bases_at_or_above() {
        let mut counts = [0; 3];
        bases_at_least(&[0, 1, 10, 25], &[1, 10, 20], &mut counts);
        assert_eq!(counts, [3, 2, 1]);
    }
}
