//! `seqfarm count`: reads per region or per window in one or more BAMs, counted and
//! printed as `bedtools multicov` does (BED columns echoed, then one count per BAM).
//! multicov's own spelling (`-bams A.bam B.bam -bed x.bed`, `-split`) is taken too
//! (the command line's `bedtools_spelling`), with its options and their meanings.
//!
//! The emitter reads the BED (or makes the windows from the BAM header) and cuts the
//! regions into tasks of about equal BAM bytes; a worker sorts its task's regions by
//! position, reads each stretch of a contig once through the index and sweeps the reads
//! over all the regions it holds; the collector prints the rows in input order.

mod options;
mod plan;
mod table;
mod worker;

use std::io::Write;
use std::path::PathBuf;

use seqfarm_farm::{FarmConfig, FarmStats, Fill};
use seqfarm_io::alignment_file::{ReadOptions, RegionInputs};
use seqfarm_io::bam::{BamSet, RangeReader};
use seqfarm_io::bed::BedRegions;
use seqfarm_io::cram::WantedRanges;
use seqfarm_io::input::locate_blocks;
use seqfarm_io::output::{refuse_input_as_output, ExistingOutput, Output};
use seqfarm_plot::{file_label, WindowTable, WindowValues};
use seqfarm_regions::count::{
    OverlapRule, ReadCountRule, ReadFilter, StrandRule, StretchCounter, DEFAULT_MIN_FRACTION,
};

pub use self::options::CountOptions;
pub use self::plan::RegionStart;
pub use self::plan::Task;
use self::plan::{RegionPlanner, Source};
pub use self::table::CountTable;
use self::worker::RegionCounter;
use crate::common::{
    coverage_reading, farm_error, fill_in_range, refuse_shared_outputs, with_bam_indexes,
};
use crate::farm_stats::StatsFile;
use crate::plot_file::PlotFile;

/// Regions further apart than this are read separately.
const STRETCH_GAP: i64 = 1 << 16;
/// Tasks per worker the BAMs are cut into, about.
const TASKS_PER_WORKER: u64 = 16;
/// Compressed BAM bytes per task, at least and at most.
const TASK_BYTES: std::ops::RangeInclusive<u64> = (1 << 20)..=(32 << 20);
/// An existing `-o FILE`, `--plot` or `--stats` file is replaced: bedtools multicov
/// prints to standard output, which a re-run's redirection (`> FILE`) replaces.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;

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
    /// Whether workers write each task's rows as text (the command's output).
    text_rows: bool,
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

/// How the BAMs of `args` are read, a CRAM decoded where `ranges` say.
fn reading<'a>(args: &'a CountOptions, ranges: Option<&'a WantedRanges>) -> ReadOptions<'a> {
    coverage_reading(args.reference.as_deref(), args.farm.workers(), ranges)
}

/// The ranges the BED file of `args` names, so that a CRAM among `inputs` is decoded
/// only where they lie; none (everything is decoded) when no input is a CRAM, without a
/// BED, or when the BED comes from standard input (it can be read only once).
fn cram_ranges(args: &CountOptions, inputs: &RegionInputs) -> anyhow::Result<Option<WantedRanges>> {
    let Some(bed) = &args.bed else {
        return Ok(None);
    };
    if bed.as_os_str() == "-" || !inputs.any_cram() {
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
    /// Opens the BAMs of `args` (after [`CountOptions::check`]).
    pub fn new(args: &CountOptions) -> anyhow::Result<Self> {
        Self::open(args, None)
    }

    /// Opens the job to plan it ([`CountJob::run`] on no task): a CRAM is decoded not at
    /// all, its containers' sizes pricing the tasks as they do when it is decoded.
    pub fn planning(args: &CountOptions) -> anyhow::Result<Self> {
        Self::open(args, Some(WantedRanges::default()))
    }

    /// Opens the job to run tasks `tasks` of the plan with tasks of `task_bytes` and no
    /// others (a part of the run, starting at `start`: see [`CountJob::run`]): a CRAM is
    /// decoded only where their regions lie.
    pub fn for_tasks(
        args: &CountOptions,
        task_bytes: u64,
        tasks: std::ops::Range<usize>,
        start: Option<&RegionStart>,
    ) -> anyhow::Result<Self> {
        let inputs = RegionInputs::sniff(&args.bams);
        if !inputs.any_cram() {
            return Self::new(args);
        }
        args.check()?;
        let (planned, opened) = inputs.open_planned()?;
        let ranges = Self::with_bams(args, planned)?.task_ranges(task_bytes, tasks, start)?;
        let bams = opened.open(&reading(args, Some(&ranges)))?;
        Self::with_bams(args, bams)
    }

    /// Opens the BAMs of `args`, a CRAM decoded where `ranges` say (`None`: where the
    /// BED's regions lie, or whole without a BED).
    fn open(args: &CountOptions, ranges: Option<WantedRanges>) -> anyhow::Result<Self> {
        args.check()?;
        let inputs = RegionInputs::sniff(&args.bams);
        let ranges = match ranges {
            Some(ranges) => Some(ranges),
            None => cram_ranges(args, &inputs)?,
        };
        let bams = inputs.open(&reading(args, ranges.as_ref()))?;
        Self::with_bams(args, bams)
    }

    /// The job of `args` on `bams`, opened.
    fn with_bams(args: &CountOptions, bams: BamSet) -> anyhow::Result<Self> {
        let (names, lengths) = reference_names_and_lengths(&bams)?;
        let ids = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_bytes().to_vec(), i as i32))
            .collect();
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
            text_rows: true,
        })
    }

    /// Compressed BAM bytes per task for `workers` workers (`--task-bytes` when given).
    pub fn task_bytes(&self, args: &CountOptions, workers: usize) -> u64 {
        let total = self.bams.total_bytes();
        args.task_bytes
            .unwrap_or_else(|| task_bytes_for(total, workers))
    }

    /// Counts the regions of tasks `tasks` (of `task_bytes` each, numbered from 0 in
    /// region order; the regions are planned no further than their end), giving each
    /// task (its rows: [`Task::rows`]) to `collect` in order; returns the farm's figures,
    /// the regions counted and the tasks planned. With `start`, where the plan found the
    /// emitter before task `tasks.start` ([`CountJob::task_starts`]), the regions are read
    /// from there; without it, from the first, those before `tasks.start` planned and
    /// skipped.
    pub fn run(
        &self,
        config: &FarmConfig,
        task_bytes: u64,
        tasks: std::ops::Range<usize>,
        start: Option<&RegionStart>,
        mut collect: impl FnMut(&Task) -> anyhow::Result<()>,
    ) -> anyhow::Result<(FarmStats, u64, usize)> {
        let mut regions = 0u64;
        let mut planned = start.map_or(0, |_| tasks.start);
        let mut planner = self.planner(task_bytes, start)?;
        let report = seqfarm_farm::run(
            config,
            Task::default,
            &mut |task: &mut Task| fill_in_range(&tasks, &mut planned, task, |t| planner.fill(t)),
            |_| {
                Ok(RegionCounter {
                    bams: &self.bams,
                    counter: StretchCounter::new(self.rule),
                    columns: &self.columns,
                    names: &self.names,
                    reader: RangeReader::new(),
                    text_rows: self.text_rows,
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

    /// Bytes of the BAMs read (a CRAM's: those of the BAM it was decoded into).
    #[cfg(test)]
    pub(crate) fn bam_bytes(&self) -> u64 {
        self.bams.files().iter().map(|(bam, _)| bam.len()).sum()
    }

    /// The emitter of tasks of `task_bytes`, from the job's first region or from `start`.
    fn planner(
        &self,
        task_bytes: u64,
        start: Option<&RegionStart>,
    ) -> anyhow::Result<RegionPlanner<'_>> {
        let size = |size: u64| size.min(i64::MAX as u64) as i64;
        let source = match (&self.bed, self.window, start) {
            (Some(bed), _, None) => Source::Bed(BedRegions::open(bed)?),
            (Some(bed), _, Some(RegionStart::Bed { text, fields })) => {
                Source::Bed(BedRegions::open_at(bed, text, *fields)?)
            }
            (None, Some(window), None) => Source::Windows {
                size: size(window),
                ref_id: 0,
                start: 0,
            },
            (None, Some(window), Some(&RegionStart::Window { ref_id, start })) => Source::Windows {
                size: size(window),
                ref_id,
                start,
            },
            (None, None, _) => option_error!("give --bed REGIONS.bed or --window SIZE"),
            (_, _, Some(start)) => anyhow::bail!("count: a part's start of another job: {start:?}"),
        };
        Ok(RegionPlanner {
            source,
            bams: &self.bams,
            ids: self.ids.clone(),
            lengths: self.lengths.clone(),
            task_bytes: task_bytes.max(1),
            split: self.rule.overlap.split,
            line_blocks: Vec::new(),
            ended: false,
        })
    }

    /// Where the regions of tasks `tasks` of the plan with tasks of `task_bytes` lie,
    /// as a CRAM decoded for them alone is asked.
    fn task_ranges(
        &self,
        task_bytes: u64,
        tasks: std::ops::Range<usize>,
        start: Option<&RegionStart>,
    ) -> anyhow::Result<WantedRanges> {
        let mut planner = self.planner(task_bytes, start)?;
        let mut planned = start.map_or(0, |_| tasks.start);
        let mut task = Task::default();
        let mut ranges = Vec::new();
        while let Fill::Task = fill_in_range(&tasks, &mut planned, &mut task, |t| planner.fill(t))?
        {
            for region in &task.regions {
                let name = usize::try_from(region.ref_id)
                    .ok()
                    .and_then(|id| self.names.get(id));
                if let Some(name) = name {
                    let start = region.start.max(0) as u64;
                    ranges.push((
                        name.as_bytes(),
                        start,
                        (region.stop.max(0) as u64).max(start),
                    ));
                }
            }
        }
        Ok(WantedRanges::new(ranges))
    }
}

impl CountJob {
    /// Plans all the regions into tasks of `task_bytes` BAM bytes: where the emitter stands
    /// before each task, in order (a BGZF BED's blocks located; the first task's start is
    /// the first region's).
    pub fn task_starts(&self, task_bytes: u64) -> anyhow::Result<Vec<RegionStart>> {
        let mut planner = self.planner(task_bytes, None)?;
        let mut task = Task::default();
        let mut starts = Vec::new();
        loop {
            let start = planner.start()?;
            if let Fill::End = planner.fill(&mut task)? {
                break;
            }
            starts.push(start);
        }
        if let Some(bed) = &self.bed {
            let points = starts.iter_mut().filter_map(|start| match start {
                RegionStart::Bed { text, .. } => Some(text),
                RegionStart::Window { .. } => None,
            });
            locate_blocks(bed, points);
        }
        Ok(starts)
    }

    /// The job with no rows written as text: each task's counts are taken as values.
    pub fn without_text_rows(mut self) -> Self {
        self.text_rows = false;
        self
    }

    /// The rows of tasks `tasks` (as [`CountJob::run`] plans them from `start`) as
    /// columns.
    pub fn table(
        self,
        config: &FarmConfig,
        task_bytes: u64,
        tasks: std::ops::Range<usize>,
        start: Option<&RegionStart>,
    ) -> anyhow::Result<CountTable> {
        let job = self.without_text_rows();
        let mut table = CountTable::new(job.bams.len());
        job.run(config, task_bytes, tasks, start, |task| {
            table.add_task(task, &job.names);
            Ok(())
        })?;
        Ok(table)
    }
}

/// Compressed BAM bytes per task for `total` bytes of BAMs and `workers` workers: about
/// [`TASKS_PER_WORKER`] tasks each, within [`TASK_BYTES`].
pub(crate) fn task_bytes_for(total: u64, workers: usize) -> u64 {
    (total / (workers.max(1) as u64 * TASKS_PER_WORKER))
        .clamp(*TASK_BYTES.start(), *TASK_BYTES.end())
}

/// The files `args` reads: the BAMs, their indexes and the BED.
fn input_files(args: &CountOptions) -> Vec<PathBuf> {
    let mut inputs = with_bam_indexes(&args.bams);
    inputs.extend(args.bed.clone());
    inputs
}

/// Opens the output of `args` under the command's rule, before any work: it must not be
/// an input, nor the same file as `--plot` or `--stats`.
pub fn open_output(args: &CountOptions) -> anyhow::Result<Output> {
    refuse_input_as_output(&args.output, input_files(args))?;
    let output = [("-o", args.output.as_path())];
    refuse_shared_outputs(output, args.plot.as_ref(), args.farm.stats.as_ref())?;
    Ok(Output::create(
        &args.output,
        EXISTING_OUTPUT.overwrite(args.force),
    )?)
}

/// Where a count's rows go: the command's text output, or columns in memory.
enum CountRows {
    Text(Output),
    Table(CountTable),
}

impl CountRows {
    fn add(&mut self, task: &Task, names: &[String]) -> anyhow::Result<()> {
        match self {
            CountRows::Text(out) => out.write_all(task.rows()).map_err(|e| out.error(e))?,
            CountRows::Table(table) => table.add_task(task, names),
        }
        Ok(())
    }

    /// Moves a text output into place; a table is handed back.
    fn finish(self) -> anyhow::Result<Option<CountTable>> {
        match self {
            CountRows::Text(out) => {
                out.commit()?;
                Ok(None)
            }
            CountRows::Table(table) => Ok(Some(table)),
        }
    }
}

/// Runs a count, writing the rows to its output.
pub fn run(options: &CountOptions) -> anyhow::Result<()> {
    count_into(options, |args| Ok(CountRows::Text(open_output(args)?)))?;
    Ok(())
}

/// Runs a count with its rows kept as columns (an `-o` file is not written;
/// `--plot` and `--stats` are).
pub fn table(args: &CountOptions) -> anyhow::Result<CountTable> {
    let files = args.bams.len();
    let table = count_into(args, |_| Ok(CountRows::Table(CountTable::new(files))))?;
    Ok(table.unwrap_or_default())
}

/// Counts as `args` asks, the rows going where `rows` (called once the BAMs are open)
/// says.
fn count_into(
    args: &CountOptions,
    rows: impl FnOnce(&CountOptions) -> anyhow::Result<CountRows>,
) -> anyhow::Result<Option<CountTable>> {
    let job = CountJob::new(args)?;
    let config = args.farm.config();
    let task_bytes = job.task_bytes(args, config.workers);
    let inputs = input_files(args);
    let mut out = rows(args)?;
    let job = match out {
        CountRows::Text(_) => job,
        CountRows::Table(_) => job.without_text_rows(),
    };
    let plot_file = PlotFile::create(
        args.plot.as_ref(),
        EXISTING_OUTPUT.overwrite(args.force),
        &inputs,
    )?;
    let mut plot = plot_file.as_ref().map(|_| {
        let kind = WindowValues::Reads(args.bams.clone());
        WindowTable::new(job.names.clone(), kind, args.window.is_some())
    });
    let mut stats = StatsFile::create(
        args.farm.stats.as_ref(),
        "count",
        config.workers,
        EXISTING_OUTPUT.overwrite(args.force),
        &inputs,
    )?;
    let (farm_stats, regions, _) = job.run(&config, task_bytes, 0..usize::MAX, None, |task| {
        out.add(task, &job.names)?;
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
    let table = out.finish()?;
    if let (Some(file), Some(svg)) = (plot_file, picture) {
        file.write(&svg)?;
    }
    stats.add(&farm_stats);
    stats.total("regions", regions, farm_stats.tasks);
    stats.finish()?;
    Ok(table)
}
