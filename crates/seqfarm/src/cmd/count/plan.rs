//! The tasks of `seqfarm count` and its emitter: regions read from the BED (or made as
//! windows) in input order and cut into tasks priced by the BAM bytes they cover.

use seqfarm_farm::Fill;
use seqfarm_io::bam::BamSet;
use seqfarm_io::bed::BedRegions;
use seqfarm_io::input::TextPoint;
use seqfarm_regions::count::RegionStrand;
use seqfarm_regions::pileup::rows::push_number;

use super::STRETCH_GAP;

/// Regions per task, at most.
const MAX_REGIONS: usize = 1 << 14;
/// A separate read starts this far before its region (the BAI's linear-index window).
const WINDOW: i64 = 1 << 14;

/// One region to count in.
#[derive(Debug, Clone, Copy)]
pub(super) struct Region {
    pub(super) ref_id: i32,
    pub(super) start: i64,
    pub(super) stop: i64,
    pub(super) strand: RegionStrand,
    /// The region's blocks in the task's `blocks` (BED12 with `--split`; empty: the
    /// whole region is one block).
    pub(super) blocks: (u32, u32),
}

/// Consecutive regions, their output columns and, once counted, their rows.
#[derive(Debug, Default)]
pub struct Task {
    pub(super) regions: Vec<Region>,
    /// BED input: each region's echoed columns, tab-terminated, one after the other
    /// (windows have none: the worker writes their columns).
    pub(super) text: Vec<u8>,
    pub(super) text_ends: Vec<usize>,
    /// BED input: each region's start and end as the line gives them.
    pub(super) bed_spans: Vec<(i64, i64)>,
    /// The blocks of BED12 regions (with `--split`).
    pub(super) blocks: Vec<(i64, i64)>,
    /// Per region, one count per BAM.
    pub(super) counts: Vec<u32>,
    /// The finished rows, written by the worker so that the collector only copies.
    pub(super) rows: Vec<u8>,
}

impl Task {
    /// The task's rows, as the output has them.
    pub fn rows(&self) -> &[u8] {
        &self.rows
    }

    /// Each region's contig (header index; negative when not in the BAMs), start, end
    /// and counts (one per BAM).
    pub(super) fn counted(&self) -> impl Iterator<Item = (i32, i64, i64, &[u32])> {
        let files = self.counts.len() / self.regions.len().max(1);
        self.regions
            .iter()
            .zip(self.counts.chunks(files.max(1)))
            .map(|(r, counts)| (r.ref_id, r.start, r.stop, counts))
    }
}

/// Where regions come from.
pub(super) enum Source {
    Bed(BedRegions),
    Windows {
        size: i64,
        ref_id: usize,
        start: i64,
    },
}

/// Where the emitter stands before a task: a part of the run starts its emitter there
/// ([`super::CountJob::task_starts`]) rather than at the first region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegionStart {
    /// The BED's next line, and the fields of its first record once read.
    Bed {
        text: TextPoint,
        fields: Option<usize>,
    },
    /// The next window: its contig (index in the BAMs) and start.
    Window { ref_id: usize, start: i64 },
}

/// The emitter: regions in input order, cut into tasks.
pub(super) struct RegionPlanner<'a> {
    pub(super) source: Source,
    pub(super) bams: &'a BamSet,
    pub(super) ids: std::collections::HashMap<Vec<u8>, i32>,
    pub(super) lengths: Vec<i64>,
    pub(super) task_bytes: u64,
    /// Whether BED12 regions are read as their blocks (`--split`).
    pub(super) split: bool,
    /// A line's blocks, before they go into the task.
    pub(super) line_blocks: Vec<(i64, i64)>,
    pub(super) ended: bool,
}

impl RegionPlanner<'_> {
    /// Where the planner stands before its next task.
    pub(super) fn start(&mut self) -> anyhow::Result<RegionStart> {
        Ok(match &mut self.source {
            Source::Bed(bed) => {
                let (offset, lines) = bed.next_line_start()?;
                RegionStart::Bed {
                    text: TextPoint {
                        offset,
                        lines,
                        block: None,
                    },
                    fields: bed.fields(),
                }
            }
            Source::Windows { ref_id, start, .. } => RegionStart::Window {
                ref_id: *ref_id,
                start: *start,
            },
        })
    }

    /// The next region and its echoed columns (appended to the task's `text`, its start
    /// and end to `bed_spans`) and blocks (to `blocks`), or `None`.
    fn next_region(&mut self, task: &mut Task) -> anyhow::Result<Option<Region>> {
        let (text, blocks) = (&mut task.text, &mut task.blocks);
        let number = |text: &mut Vec<u8>, n: i64| {
            push_number(text, n as u64);
            text.push(b'\t');
        };
        match &mut self.source {
            Source::Bed(bed) => {
                let Some(r) = bed.next_region()? else {
                    return Ok(None);
                };
                text.extend_from_slice(r.chrom);
                text.push(b'\t');
                number(text, r.start);
                number(text, r.end);
                if !r.rest.is_empty() {
                    text.extend_from_slice(r.rest);
                    text.push(b'\t');
                }
                task.bed_spans.push((r.start, r.end));
                let (start, stop) = r.counted();
                let ref_id = self.ids.get(r.chrom).copied().unwrap_or(-1);
                let strand = r
                    .strand()
                    .map_or(RegionStrand::Unknown, RegionStrand::from_column);
                let first = blocks.len() as u32;
                let bed12 = if self.split {
                    r.blocks(&mut self.line_blocks).map_err(|e| (r.line, e))
                } else {
                    Ok(false)
                };
                if bed12.map_err(|(line, e)| seqfarm_io::Error::line(bed.path(), line, e))? {
                    blocks.extend_from_slice(&self.line_blocks);
                }
                Ok(Some(Region {
                    ref_id,
                    start,
                    stop,
                    strand,
                    blocks: (first, blocks.len() as u32),
                }))
            }
            Source::Windows {
                size,
                ref_id,
                start,
            } => {
                while *ref_id < self.lengths.len() && *start >= self.lengths[*ref_id] {
                    *ref_id += 1;
                    *start = 0;
                }
                if *ref_id >= self.lengths.len() {
                    return Ok(None);
                }
                let stop = (*start + *size).min(self.lengths[*ref_id]);
                let region = Region {
                    ref_id: *ref_id as i32,
                    start: *start,
                    stop,
                    strand: RegionStrand::Unknown,
                    blocks: (0, 0),
                };
                *start = stop;
                Ok(Some(region))
            }
        }
    }

    pub(super) fn fill(&mut self, task: &mut Task) -> anyhow::Result<Fill> {
        task.regions.clear();
        task.text.clear();
        task.text_ends.clear();
        task.bed_spans.clear();
        task.blocks.clear();
        task.counts.clear();
        task.rows.clear();
        if self.ended {
            return Ok(Fill::End);
        }
        let mut cost = 0u64;
        let mut span = Span::default();
        while task.regions.len() < MAX_REGIONS && cost + span.bytes(self.bams) < self.task_bytes {
            let Some(region) = self.next_region(task)? else {
                self.ended = true;
                break;
            };
            task.text_ends.push(task.text.len());
            if region.ref_id >= 0 && !span.extend(region) {
                cost += span.bytes(self.bams);
                span = Span::starting_at(region);
            }
            task.regions.push(region);
        }
        Ok(if task.regions.is_empty() {
            Fill::End
        } else {
            Fill::Task
        })
    }
}

/// Near regions of one contig, read together: the emitter prices a task by the BAM bytes
/// of its spans, with two index lookups per span rather than per region.
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    /// Contig, first and last position; `None` before the first region.
    range: Option<(i32, i64, i64)>,
    /// Regions in the span (a long run of windows is priced every [`SPAN_REGIONS`]).
    regions: usize,
}

/// Regions after which a span is closed and priced, however near the next one is.
const SPAN_REGIONS: usize = 64;

impl Span {
    /// A span holding `region`, read from a little before it (a separate read starts
    /// [`WINDOW`] bases early).
    fn starting_at(region: Region) -> Self {
        Self {
            range: Some((region.ref_id, region.start - WINDOW, region.stop)),
            regions: 1,
        }
    }

    /// Takes `region` into the span if it is near (same contig, within
    /// [`STRETCH_GAP`]) and the span is not full; `false` otherwise.
    fn extend(&mut self, region: Region) -> bool {
        let Some((ref_id, from, to)) = self.range else {
            *self = Self::starting_at(region);
            return true;
        };
        let near = ref_id == region.ref_id && (region.start - to).abs() <= STRETCH_GAP;
        if !near || self.regions >= SPAN_REGIONS {
            return false;
        }
        self.range = Some((ref_id, from.min(region.start), to.max(region.stop)));
        self.regions += 1;
        true
    }

    /// The compressed BAM bytes the span covers.
    fn bytes(&self, bams: &BamSet) -> u64 {
        self.range.map_or(0, |(ref_id, from, to)| {
            bams.bytes_between(ref_id as usize, from, to)
        })
    }
}
