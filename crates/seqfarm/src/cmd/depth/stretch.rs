//! The farm of `seqfarm depth`: its task (a stretch of a contig), the emitter that cuts
//! the contigs into stretches and the worker that computes a stretch's depth, rows and
//! statistics.

use std::collections::HashMap;
use std::io::Write;
use std::ops::ControlFlow;

use seqfarm_farm::{Fill, Worker};
use seqfarm_io::bam::{BamSet, RangeReader};
use seqfarm_regions::count::read_end;
use seqfarm_regions::depth::{
    bases_at_least, mean_depth, push_runs, window_mean_bin, AlignedRead, Coverage,
    DepthDistribution, DepthFilter, DepthStat,
};
use seqfarm_regions::pileup::rows::push_number;

use super::bed::Region;

/// Bases a stretch holds at most (its depth array is 4 bytes a base).
const MAX_STRETCH: i64 = 1 << 22;
/// Steps the emitter prices a stretch in.
const STEP: i64 = 1 << 16;
/// Reads are added from this far before a stretch, so that a pair of single-operation
/// mates starting before it takes its overlap off as over the whole contig.
const MATE_REACH: i64 = 1 << 14;

/// A stretch of a contig and the regions starting in it.
#[derive(Debug, Default)]
pub(crate) struct Task {
    pub(crate) ref_id: usize,
    /// The contig bases this task accounts for.
    pub(crate) start: i64,
    end: i64,
    pub(crate) last_of_contig: bool,
    pub(super) regions: Vec<Region>,
    // Results.
    pub(crate) figures: StretchFigures,
    pub(crate) rows: Vec<u8>,
    pub(crate) threshold_rows: Vec<u8>,
    /// The per-base depth as runs `(start, end, depth)`.
    pub(crate) runs: Vec<(i64, i64, i32)>,
    /// Each region's mean depth.
    pub(super) means: Vec<f64>,
}

/// What a stretch adds to its contig's summary and distributions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct StretchFigures {
    /// Whether a read overlaps the stretch.
    pub(crate) found: bool,
    pub(crate) stat: DepthStat,
    pub(crate) region_stat: DepthStat,
    pub(crate) dist: DepthDistribution,
    pub(crate) region_dist: DepthDistribution,
}

impl std::ops::AddAssign<&StretchFigures> for StretchFigures {
    fn add_assign(&mut self, other: &StretchFigures) {
        self.found |= other.found;
        self.stat += other.stat;
        self.region_stat += other.region_stat;
        self.dist += &other.dist;
        self.region_dist += &other.region_dist;
    }
}

/// The emitter: contigs in header order, cut into stretches.
pub(super) struct StretchPlanner<'a> {
    pub(super) bams: &'a BamSet,
    pub(super) lengths: &'a [i64],
    pub(super) names: &'a [String],
    pub(super) window: Option<i64>,
    pub(super) bed: Option<HashMap<String, Vec<Region>>>,
    /// Contigs outside the BED are still read (for the summary and distributions).
    pub(super) all_contigs: bool,
    pub(super) task_bytes: u64,
    pub(super) ref_id: usize,
    pub(super) pos: i64,
    pub(super) next_region: usize,
}

impl StretchPlanner<'_> {
    pub(super) fn fill(&mut self, task: &mut Task) -> Fill {
        task.regions.clear();
        while self.ref_id < self.lengths.len() {
            let len = self.lengths[self.ref_id];
            let name = &self.names[self.ref_id];
            let bed = self
                .bed
                .as_ref()
                .map(|b| b.get(name).map_or(&[][..], |v| v));
            if self.pos == 0
                && self.next_region == 0
                && !self.all_contigs
                && bed.is_some_and(|b| b.is_empty())
            {
                self.ref_id += 1;
                continue;
            }
            let start = self.pos;
            let step = match self.window {
                Some(w) => w * ((STEP + w - 1) / w),
                None => STEP,
            };
            let mut end = (start + step).min(len);
            while end < len
                && end - start + step <= MAX_STRETCH.max(step)
                && self.bams.bytes_between(self.ref_id, start, end) < self.task_bytes
            {
                end = (end + step).min(len);
            }
            let last = end >= len;
            task.ref_id = self.ref_id;
            task.start = start;
            task.end = end;
            task.last_of_contig = last;
            match (self.window, bed) {
                (Some(w), _) => {
                    let mut s = start;
                    while s < end {
                        let stop = (s + w).min(len);
                        task.regions.push(Region {
                            start: s,
                            stop,
                            name: String::new(),
                        });
                        s = stop;
                    }
                }
                (None, Some(regions)) => {
                    while self.next_region < regions.len()
                        && (last || regions[self.next_region].start < end)
                    {
                        task.regions.push(regions[self.next_region].clone());
                        self.next_region += 1;
                    }
                }
                (None, None) => {}
            }
            if last {
                self.ref_id += 1;
                self.pos = 0;
                self.next_region = 0;
            } else {
                self.pos = end;
            }
            return Fill::Task;
        }
        Fill::End
    }
}

/// A worker: the depth of a stretch and what follows from it.
pub(super) struct StretchWorker<'a> {
    pub(super) bams: &'a BamSet,
    pub(super) filter: DepthFilter,
    pub(super) names: &'a [String],
    pub(super) lengths: &'a [i64],
    pub(super) thresholds: &'a [i32],
    pub(super) windows: bool,
    pub(super) per_base: bool,
    pub(super) reader: RangeReader,
    pub(super) coverage: Coverage,
    pub(super) counts: Vec<u64>,
}

impl StretchWorker<'_> {
    /// Adds the reads overlapping `[from, to)` of contig `ref_id`; whether there was one.
    fn add_reads(&mut self, ref_id: usize, from: i64, to: i64) -> anyhow::Result<bool> {
        let (bam, index) = &self.bams.files()[0];
        let mut found = false;
        if to <= from {
            return Ok(false);
        }
        let limit = index.kind().max_position();
        let first = from.clamp(0, limit - 1) as u64 + 1;
        let last = (to - 1).clamp(first as i64, limit) as u64;
        let bytes = index.min_offset(ref_id, first)?.compressed()
            ..index.min_offset(ref_id, last)?.compressed();
        bam.prefetch(bytes.start..bytes.end + (1 << 16));
        let filter = self.filter;
        let coverage = &mut self.coverage;
        for chunk in index.query(ref_id, first, last)? {
            let mut done = false;
            self.reader.for_each(bam, chunk, |record| {
                let pos = i64::from(record.pos());
                if record.ref_id() != ref_id as i32 || pos >= to {
                    done = record.ref_id() > ref_id as i32 || pos >= to;
                    return if done {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    };
                }
                let cigar = record.cigar();
                let flag = record.flag();
                if read_end(flag, pos, cigar.len(), cigar.reference_span()) <= from {
                    return ControlFlow::Continue(());
                }
                found = true;
                if filter.keeps(flag, record.mapq()) {
                    coverage.add(&AlignedRead {
                        name: record.read_name(),
                        flag,
                        pos,
                        mate_on_same_contig: record.next_ref_id() == record.ref_id(),
                        mate_pos: i64::from(record.next_pos()),
                        cigar,
                    });
                }
                ControlFlow::Continue(())
            })?;
            if done {
                break;
            }
        }
        bam.release(bytes);
        Ok(found)
    }
}

impl Task {
    /// The contig positions whose depths the task computes, on a contig of `len` bases:
    /// from [`MATE_REACH`] before the stretch to its end or its last region's, up to
    /// the contig's end, where mosdepth's array ends with a 0 (`len + 1`).
    fn depth_span(&self, len: i64) -> (i64, i64) {
        let reach = self.regions.iter().map(|r| r.stop).max().unwrap_or(0);
        let hi = self.end.max(reach).min(len + 1);
        ((self.start - MATE_REACH).max(0), hi)
    }

    /// The contig positions whose reads the task reads, on a contig of `len` bases.
    pub(crate) fn read_span(&self, len: i64) -> (i64, i64) {
        let (lo, hi) = self.depth_span(len);
        (lo, hi.min(len))
    }
}

impl Worker<Task, anyhow::Error> for StretchWorker<'_> {
    fn process(&mut self, task: &mut Task) -> anyhow::Result<()> {
        let len = self.lengths[task.ref_id];
        let limit = len + 1;
        let (lo, hi) = task.depth_span(len);
        self.coverage.reset(lo, hi);
        let (from, to) = task.read_span(len);
        task.figures.found = len > 0 && self.add_reads(task.ref_id, from, to)?;
        let depths = self.coverage.depths();
        let at = |p: i64| (p.clamp(lo, hi) - lo) as usize;
        let own = depths.map(|d| &d[at(task.start)..at(task.end)]);
        let own_len = (at(task.end) - at(task.start)) as u64;
        task.figures.dist = DepthDistribution::default();
        task.runs.clear();
        match own {
            Some(own) => {
                task.figures.stat = DepthStat::of(own);
                task.figures.dist.add_depths(own);
                if self.per_base {
                    push_runs(own, task.start, &mut task.runs);
                }
            }
            None => {
                task.figures.stat = DepthStat::zeros(own_len);
                task.figures.dist.add_many(0, own_len);
                if self.per_base && own_len > 0 {
                    task.runs.push((task.start, task.end, 0));
                }
            }
        }
        task.figures.region_stat = DepthStat::default();
        task.figures.region_dist = DepthDistribution::default();
        task.rows.clear();
        task.threshold_rows.clear();
        task.means.clear();
        let name = self.names[task.ref_id].as_bytes();
        self.counts.resize(self.thresholds.len(), 0);
        // mosdepth counts no base at any threshold, 0 included, on a contig without reads.
        let empty_contig = depths.is_none()
            && self.thresholds.first().is_some_and(|&t| t <= 0)
            && !task.figures.found
            && self.bams.files()[0]
                .1
                .query(task.ref_id, 1, len.max(1) as u64)?
                .is_empty();
        for r in &task.regions {
            let (from, to) = if r.start > limit {
                (0, 0)
            } else {
                (at(r.start), at(r.stop.min(limit)))
            };
            let mean = match depths {
                Some(d) => {
                    let slice = &d[from..to];
                    task.figures.region_stat += DepthStat::of(slice);
                    if !self.windows {
                        task.figures.region_dist.add_depths(slice);
                    }
                    if !self.thresholds.is_empty() {
                        bases_at_least(slice, self.thresholds, &mut self.counts);
                    }
                    mean_depth(slice, r.start, r.stop)
                }
                None => {
                    let n = (to - from) as u64;
                    task.figures.region_stat += DepthStat::zeros(n);
                    if !self.windows {
                        task.figures.region_dist.add_many(0, n);
                    }
                    for (c, &t) in self.counts.iter_mut().zip(self.thresholds) {
                        *c = if t <= 0 && !empty_contig { n } else { 0 };
                    }
                    0.0
                }
            };
            if self.windows {
                task.figures.region_dist.add_bin(window_mean_bin(mean));
            }
            task.means.push(mean);
            let head = |out: &mut Vec<u8>| {
                out.extend_from_slice(name);
                for n in [r.start, r.stop] {
                    out.push(b'\t');
                    push_number(out, n as u64);
                }
            };
            head(&mut task.rows);
            if !r.name.is_empty() {
                task.rows.push(b'\t');
                task.rows.extend_from_slice(r.name.as_bytes());
            }
            let _ = writeln!(task.rows, "\t{mean:.2}");
            if !self.thresholds.is_empty() {
                head(&mut task.threshold_rows);
                task.threshold_rows.push(b'\t');
                let label = if r.name.is_empty() {
                    "unknown"
                } else {
                    &r.name
                };
                task.threshold_rows.extend_from_slice(label.as_bytes());
                for &c in &self.counts {
                    task.threshold_rows.push(b'\t');
                    push_number(&mut task.threshold_rows, c);
                }
                task.threshold_rows.push(b'\n');
            }
        }
        Ok(())
    }
}
