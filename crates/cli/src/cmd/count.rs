//! `seqfarm count`: reads per region or per window in one or more BAMs, counted and
//! printed as `bedtools multicov` does (BED columns echoed, then one count per BAM).
//! multicov's own spelling (`-bams A.bam B.bam -bed x.bed`, `-split`) is taken too
//! ([`bedtools_spelling`]), with its options and their meanings.
//!
//! The emitter reads the BED (or makes the windows from the BAM header) and cuts the
//! regions into tasks of about equal BAM bytes; a worker sorts its task's regions by
//! position, reads each stretch of a contig once through the index and sweeps the reads
//! over all the regions it holds; the collector prints the rows in input order.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::PathBuf;

use seqfarm_farm::{FarmConfig, FarmStats, Fill, Worker};
use seqfarm_io::bam::{BamSet, RangeReader};
use seqfarm_io::bed::BedRegions;
use seqfarm_io::cram::{self, CramReading, Fields, WantedRanges};
use seqfarm_io::output::{refuse_input_as_output, ExistingOutput, Output};
use seqfarm_plot::{file_label, WindowTable, WindowValues};
use seqfarm_regions::count::{
    CountedRead, OverlapRule, ReadCountRule, ReadFilter, RegionShape, RegionStrand, StrandRule,
    StretchCounter, DEFAULT_MIN_FRACTION,
};
use seqfarm_regions::pileup::cigar::Cigar;
use seqfarm_regions::pileup::visit::push_number;

use crate::common::{farm_error, refuse_shared_outputs, with_bam_indexes, Destination};
use crate::farm_stats::StatsFile;
use crate::plot_file::PlotFile;

mod args;

pub use args::{bedtools_spelling, CountArgs};

/// Regions per task, at most.
const MAX_REGIONS: usize = 1 << 14;
/// Regions further apart than this are read separately.
const STRETCH_GAP: i64 = 1 << 16;
/// A separate read starts this far before its region (the BAI's linear-index window).
const WINDOW: i64 = 1 << 14;
/// Tasks per worker the BAMs are cut into, about.
const TASKS_PER_WORKER: u64 = 16;
/// Compressed BAM bytes per task, at least and at most.
const TASK_BYTES: std::ops::RangeInclusive<u64> = (1 << 20)..=(32 << 20);
/// An existing `-o FILE`, `--plot` or `--stats` file is replaced: bedtools multicov
/// prints to standard output, which a re-run's redirection (`> FILE`) replaces.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;

/// One region to count in.
#[derive(Debug, Clone, Copy)]
struct Region {
    ref_id: i32,
    start: i64,
    stop: i64,
    strand: RegionStrand,
    /// The region's blocks in the task's `blocks` (BED12 with `--split`; empty: the
    /// whole region is one block).
    blocks: (u32, u32),
}

/// Consecutive regions, their output columns and, once counted, their rows.
#[derive(Debug, Default)]
pub struct Task {
    regions: Vec<Region>,
    /// BED input: each region's echoed columns, tab-terminated, one after the other
    /// (windows have none: the worker writes their columns).
    text: Vec<u8>,
    text_ends: Vec<usize>,
    /// The blocks of BED12 regions (with `--split`).
    blocks: Vec<(i64, i64)>,
    /// Per region, one count per BAM.
    counts: Vec<u32>,
    /// The finished rows, written by the worker so that the collector only copies.
    rows: Vec<u8>,
}

impl Task {
    /// The task's rows, as the output has them.
    pub fn rows(&self) -> &[u8] {
        &self.rows
    }

    /// Each region's contig (header index; negative when not in the BAMs), start, end
    /// and counts (one per BAM).
    fn counted(&self) -> impl Iterator<Item = (i32, i64, i64, &[u32])> {
        let files = self.counts.len() / self.regions.len().max(1);
        self.regions
            .iter()
            .zip(self.counts.chunks(files.max(1)))
            .map(|(r, counts)| (r.ref_id, r.start, r.stop, counts))
    }
}

/// Where regions come from.
enum Source {
    Bed(BedRegions),
    Windows {
        size: i64,
        ref_id: usize,
        start: i64,
    },
}

/// The emitter: regions in input order, cut into tasks.
struct RegionPlanner<'a> {
    source: Source,
    bams: &'a BamSet,
    ids: std::collections::HashMap<Vec<u8>, i32>,
    lengths: Vec<i64>,
    task_bytes: u64,
    /// Whether BED12 regions are read as their blocks (`--split`).
    split: bool,
    /// A line's blocks, before they go into the task.
    line_blocks: Vec<(i64, i64)>,
    ended: bool,
}

impl RegionPlanner<'_> {
    /// The next region and its echoed columns (appended to `text`) and blocks (to
    /// `blocks`), or `None`.
    fn next_region(
        &mut self,
        text: &mut Vec<u8>,
        blocks: &mut Vec<(i64, i64)>,
    ) -> anyhow::Result<Option<Region>> {
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

    fn fill(&mut self, task: &mut Task) -> anyhow::Result<Fill> {
        task.regions.clear();
        task.text.clear();
        task.text_ends.clear();
        task.blocks.clear();
        task.counts.clear();
        task.rows.clear();
        if self.ended {
            return Ok(Fill::End);
        }
        let mut cost = 0u64;
        let mut span = Span::default();
        while task.regions.len() < MAX_REGIONS && cost + span.bytes(self.bams) < self.task_bytes {
            let Some(region) = self.next_region(&mut task.text, &mut task.blocks)? else {
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

/// A worker: counts a task's regions in every BAM.
struct RegionCounter<'a> {
    bams: &'a BamSet,
    /// Counts a stretch's reads into its regions by multicov's rules.
    counter: StretchCounter,
    /// The count column of each BAM: bedtools keys counts by file name, so a BAM given
    /// twice counts twice into its last column.
    columns: &'a [usize],
    /// Contig names, for the columns of windows.
    names: &'a [String],
    reader: RangeReader,
}

impl RegionCounter<'_> {
    /// Counts the reads of `ref_id` in `regions` (`(start, stop, index)`) of one stretch;
    /// `all` are the task's regions (by index) and `blocks` their blocks.
    fn count_stretch(
        &mut self,
        ref_id: i32,
        regions: Vec<(i64, i64, u32)>,
        (all, blocks): (&[Region], &[(i64, i64)]),
        counts: &mut [u32],
    ) -> anyhow::Result<()> {
        let files = self.bams.len();
        let Some(needed) = self.counter.start_stretch(regions) else {
            return Ok(());
        };
        let (from, to) = (needed.start, needed.end);
        let shape = |i: u32| {
            let region = &all[i as usize];
            RegionShape {
                strand: region.strand,
                blocks: match region.blocks {
                    (from, to) if from < to => &blocks[from as usize..to as usize],
                    _ => &[],
                },
            }
        };
        for (file, (bam, index)) in self.bams.files().iter().enumerate() {
            let column = self.columns[file];
            let limit = index.kind().max_position();
            let first = from.clamp(0, limit - 1) as u64 + 1;
            let last = (to - 1).clamp(first as i64, limit) as u64;
            let bytes = index.min_offset(ref_id as usize, first)?.compressed()
                ..index.min_offset(ref_id as usize, last)?.compressed();
            bam.prefetch(bytes.start..bytes.end + (1 << 16));
            self.counter.restart();
            let counter = &mut self.counter;
            for chunk in index.query(ref_id as usize, first, last)? {
                let mut done = false;
                self.reader.for_each(bam, chunk, |record| {
                    let pos = i64::from(record.pos());
                    if record.ref_id() != ref_id || pos >= to {
                        done = record.ref_id() > ref_id || pos >= to;
                        return if done {
                            ControlFlow::Break(())
                        } else {
                            ControlFlow::Continue(())
                        };
                    }
                    let read = CountedRead {
                        pos,
                        flag: record.flag(),
                        mapq: record.mapq(),
                        cigar: Cigar(record.cigar().as_bytes()),
                    };
                    counter.add(read, shape, |i| counts[i as usize * files + column] += 1);
                    ControlFlow::Continue(())
                })?;
                if done {
                    break;
                }
            }
            bam.release(bytes);
        }
        Ok(())
    }
}

impl Worker<Task, anyhow::Error> for RegionCounter<'_> {
    fn process(&mut self, task: &mut Task) -> anyhow::Result<()> {
        let files = self.bams.len();
        task.counts.clear();
        task.counts.resize(task.regions.len() * files, 0);
        let mut order: Vec<u32> = (0..task.regions.len() as u32)
            .filter(|&i| task.regions[i as usize].ref_id >= 0)
            .collect();
        order.sort_by_key(|&i| {
            let r = task.regions[i as usize];
            (r.ref_id, r.start)
        });
        let mut from = 0;
        while from < order.len() {
            let first = task.regions[order[from] as usize];
            let mut reach = first.stop;
            let mut to = from + 1;
            while to < order.len() {
                let r = task.regions[order[to] as usize];
                if r.ref_id != first.ref_id || r.start - reach > STRETCH_GAP {
                    break;
                }
                reach = reach.max(r.stop);
                to += 1;
            }
            let stretch = order[from..to]
                .iter()
                .map(|&i| {
                    let r = task.regions[i as usize];
                    (r.start, r.stop, i)
                })
                .collect();
            self.count_stretch(
                first.ref_id,
                stretch,
                (&task.regions, &task.blocks),
                &mut task.counts,
            )?;
            from = to;
        }
        self.write_rows(task);
        Ok(())
    }
}

impl RegionCounter<'_> {
    /// Writes each region's row: its echoed columns (a window's contig, start and end),
    /// then one count per BAM.
    fn write_rows(&self, task: &mut Task) {
        let files = self.bams.len();
        let rows = &mut task.rows;
        rows.clear();
        let mut from = 0;
        for (i, region) in task.regions.iter().enumerate() {
            if task.text.is_empty() {
                rows.extend_from_slice(self.names[region.ref_id as usize].as_bytes());
                for n in [region.start, region.stop] {
                    rows.push(b'\t');
                    push_number(rows, n as u64);
                }
                rows.push(b'\t');
            } else {
                let end = task.text_ends[i];
                rows.extend_from_slice(&task.text[from..end]);
                from = end;
            }
            for (k, &n) in task.counts[i * files..(i + 1) * files].iter().enumerate() {
                if k > 0 {
                    rows.push(b'\t');
                }
                push_number(rows, u64::from(n));
            }
            rows.push(b'\n');
        }
    }
}

/// What a count needs before it runs: the BAMs, where regions come from, the count
/// columns and multicov's rules for whether a read counts.
pub struct CountJob {
    bams: BamSet,
    names: Vec<String>,
    lengths: Vec<i64>,
    ids: std::collections::HashMap<Vec<u8>, i32>,
    bed: Option<PathBuf>,
    window: Option<u64>,
    columns: Vec<usize>,
    rule: ReadCountRule,
}

/// The names and lengths of the reference sequences of the BAMs' (shared) header.
pub(crate) fn reference_names_and_lengths(
    bams: &BamSet,
) -> anyhow::Result<(Vec<String>, Vec<i64>)> {
    let header = bams
        .header()
        .ok_or_else(|| anyhow::anyhow!("no BAM given"))?;
    let names = header.references.iter().map(|r| r.name.clone()).collect();
    let lengths = header
        .references
        .iter()
        .map(|r| i64::from(r.length))
        .collect();
    Ok((names, lengths))
}

/// The ranges the BED file of `args` names, so that a CRAM is decoded only where they
/// lie; none (everything is decoded) when no input is a CRAM, without a BED, or when the
/// BED comes from standard input (it can be read only once).
fn cram_ranges(args: &CountArgs) -> anyhow::Result<Option<WantedRanges>> {
    let Some(bed) = &args.bed else {
        return Ok(None);
    };
    if bed.as_os_str() == "-" || !args.bams.iter().any(|path| cram::is_cram(path)) {
        return Ok(None);
    }
    let mut regions = BedRegions::open(bed)?;
    let mut ranges = Vec::new();
    while let Some(region) = regions.next_region()? {
        let (start, end) = region.counted();
        ranges.push((
            region.chrom.to_vec(),
            start.max(0) as u64,
            end.max(0) as u64,
        ));
    }
    Ok(Some(WantedRanges::new(ranges)))
}

impl CountJob {
    /// Opens the BAMs of `args` (and checks that regions are given).
    pub fn new(args: &CountArgs) -> anyhow::Result<Self> {
        let ranges = cram_ranges(args)?;
        let bams = BamSet::open_with_reference(
            &args.bams,
            &CramReading {
                reference: args.cram.reference.as_deref(),
                fields: Fields::Coverage,
                threads: args.farm.config().workers,
                ranges: ranges.as_ref(),
            },
        )?;
        let (names, lengths) = reference_names_and_lengths(&bams)?;
        let ids = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_bytes().to_vec(), i as i32))
            .collect();
        if args.bed.is_none() && args.window.is_none() {
            option_error!("give --bed REGIONS.bed or --window SIZE");
        }
        let columns: Vec<usize> = args
            .bams
            .iter()
            .map(|p| args.bams.iter().rposition(|q| q == p).unwrap_or(0))
            .collect();
        let rule = ReadCountRule {
            filter: ReadFilter {
                min_map_quality: args.min_map_quality,
                proper_pairs_only: args.proper_pairs,
                keep_duplicates: args.duplicates,
                keep_qc_failed: args.qc_failed,
            },
            strand: StrandRule {
                same: args.same_strand,
                opposite: args.opposite_strand,
            },
            overlap: OverlapRule {
                min_fraction: args.min_overlap.unwrap_or(DEFAULT_MIN_FRACTION),
                reciprocal: args.reciprocal,
                split: args.split,
            },
        };
        Ok(Self {
            bams,
            names,
            lengths,
            ids,
            bed: args.bed.clone(),
            window: args.window,
            columns,
            rule,
        })
    }

    /// Compressed BAM bytes per task for `workers` workers (`--task-bytes` when given).
    pub fn task_bytes(&self, args: &CountArgs, workers: usize) -> u64 {
        let total: u64 = self.bams.files().iter().map(|(bam, _)| bam.len()).sum();
        args.task_bytes
            .unwrap_or_else(|| task_bytes_for(total, workers))
    }

    /// Counts the regions of tasks `tasks` (of `task_bytes` each, numbered from 0 in
    /// region order; the regions are planned no further than their end), giving each
    /// task (its rows: [`Task::rows`]) to `collect` in order; returns the farm's figures,
    /// the regions counted and the tasks planned.
    pub fn run(
        &self,
        config: &FarmConfig,
        task_bytes: u64,
        tasks: std::ops::Range<usize>,
        mut collect: impl FnMut(&Task) -> anyhow::Result<()>,
    ) -> anyhow::Result<(FarmStats, u64, usize)> {
        let source = match (&self.bed, self.window) {
            (Some(bed), _) => Source::Bed(BedRegions::open(bed)?),
            (None, Some(size)) => Source::Windows {
                size: size.min(i64::MAX as u64) as i64,
                ref_id: 0,
                start: 0,
            },
            (None, None) => option_error!("give --bed REGIONS.bed or --window SIZE"),
        };
        let mut regions = 0u64;
        let mut planned = 0usize;
        let mut planner = RegionPlanner {
            source,
            bams: &self.bams,
            ids: self.ids.clone(),
            lengths: self.lengths.clone(),
            task_bytes: task_bytes.max(1),
            split: self.rule.overlap.split,
            line_blocks: Vec::new(),
            ended: false,
        };
        let report = seqfarm_farm::run(
            config,
            Task::default,
            &mut |task: &mut Task| loop {
                if planned >= tasks.end || matches!(planner.fill(task)?, Fill::End) {
                    return Ok(Fill::End);
                }
                planned += 1;
                if tasks.contains(&(planned - 1)) {
                    return Ok(Fill::Task);
                }
            },
            |_| {
                Ok(RegionCounter {
                    bams: &self.bams,
                    counter: StretchCounter::new(self.rule),
                    columns: &self.columns,
                    names: &self.names,
                    reader: RangeReader::new(),
                })
            },
            &mut |task: &mut Task| -> anyhow::Result<()> {
                regions += task.regions.len() as u64;
                collect(task)
            },
        )
        .map_err(farm_error)?;
        Ok((report.stats, regions, planned))
    }
}

/// Compressed BAM bytes per task for `total` bytes of BAMs and `workers` workers: about
/// [`TASKS_PER_WORKER`] tasks each, within [`TASK_BYTES`].
pub(crate) fn task_bytes_for(total: u64, workers: usize) -> u64 {
    (total / (workers.max(1) as u64 * TASKS_PER_WORKER))
        .clamp(*TASK_BYTES.start(), *TASK_BYTES.end())
}

/// The files `args` reads: the BAMs, their indexes and the BED.
fn input_files(args: &CountArgs) -> Vec<PathBuf> {
    let mut inputs = with_bam_indexes(&args.bams);
    inputs.extend(args.bed.clone());
    inputs
}

/// Opens the output of `args` at `to` under the command's rule, before any work: a named
/// output must not be an input, nor the same file as `--plot` or `--stats`.
pub fn open_output(args: &CountArgs, to: &Destination) -> anyhow::Result<Output> {
    if to.is_named() {
        refuse_input_as_output(&args.output, input_files(args))?;
        let output = [("-o", args.output.as_path())];
        refuse_shared_outputs(output, args.plot.as_ref(), args.farm.stats.stats.as_ref())?;
    }
    Ok(to.create(&args.output, args.force.overwrite(EXISTING_OUTPUT))?)
}

/// Runs `seqfarm count`, writing the rows to `to`.
pub fn run(args: CountArgs, to: &Destination) -> anyhow::Result<()> {
    let job = CountJob::new(&args)?;
    let config = args.farm.config();
    let task_bytes = job.task_bytes(&args, config.workers);
    let inputs = input_files(&args);
    let mut out = open_output(&args, to)?;
    let plot_file = PlotFile::create(
        args.plot.as_ref(),
        args.force.overwrite(EXISTING_OUTPUT),
        &inputs,
    )?;
    let mut plot = plot_file.as_ref().map(|_| {
        let kind = WindowValues::Reads(args.bams.clone());
        WindowTable::new(job.names.clone(), kind, args.window.is_some())
    });
    let mut stats = StatsFile::create(
        args.farm.stats.stats.as_ref(),
        "count",
        config.workers,
        args.force.overwrite(EXISTING_OUTPUT),
        &inputs,
    )?;
    let (farm_stats, regions, _) = job.run(&config, task_bytes, 0..usize::MAX, |task| {
        out.write_all(task.rows()).map_err(|e| out.error(e))?;
        if let Some(table) = plot.as_mut() {
            for (contig, start, end, counts) in task.counted() {
                table.add(
                    contig.into(),
                    start,
                    end,
                    counts.iter().map(|&n| f64::from(n)),
                );
            }
        }
        Ok(())
    })?;
    let picture = match (&plot, args.window, &args.bed) {
        (Some(table), Some(size), _) => Some(table.draw(None, &format!("{size}-bp window"))?),
        (Some(table), None, Some(bed)) => {
            Some(table.draw(None, &format!("region of {}", file_label(bed)))?)
        }
        _ => None,
    };
    out.commit()?;
    if let (Some(file), Some(svg)) = (plot_file, picture) {
        file.write(&svg)?;
    }
    stats.add(&farm_stats);
    stats.total("regions", regions, farm_stats.tasks);
    stats.finish()?;
    Ok(())
}
