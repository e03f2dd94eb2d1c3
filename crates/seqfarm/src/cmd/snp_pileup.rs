//! `seqfarm snp-pileup`: FACETS `snp-pileup`'s allele counts, byte for byte, on a farm.
//!
//! The master does little per site, so that one master feeds many workers (see the
//! ceiling in docs/FARM.md):
//!
//! * The emitter (`chunk`) reads the VCF header, then hands out the body as whole lines,
//!   unparsed, cut into tasks of about equal BAM bytes (from the indexes); it parses only
//!   the lines where a task may end.
//! * Workers ([`replay`]) parse their lines into sites (`sites`): biallelic SNVs, the
//!   contig found in the BAMs, sites behind an earlier one dropped. They replay htslib's
//!   pileup over the sites' ranges from a little before them
//!   ([`seqfarm_regions::pileup::replay`]), widening the replay until nothing before it
//!   can change the result, and find per site the counts and the next covered
//!   positions. Then they walk their sites as snp-pileup's loop does and write the rows
//!   (`rows`), from a walk state just before their first site on a BAM contig.
//! * The collector ([`collect`]) handles what crosses tasks: line numbers of errors and
//!   the contig order of the sites, and the walk's state (the last covered position
//!   consumed). Where that state lies before a task's first site, the task's rows are
//!   written as they are; otherwise, and from a site whose next covered position lies on
//!   a later contig, it walks the sites itself. Rows go out plain or BGZF-compressed.
//!
//! With pseudo-SNPs (`-P`) a row can depend on covered positions of any task, so the
//! emitter (`plan`) parses the sites itself and cuts tasks that tile the contigs (every
//! pseudo-SNP position belongs to one task); the workers only replay, and the collector
//! walks every site.

use std::path::PathBuf;

use seqfarm_farm::{Collector, FarmConfig};
use seqfarm_io::alignment_file::{ReadOptions, RegionInputs};
use seqfarm_io::bam::BamSet;
use seqfarm_io::bgzf_writer::compressor_threads;
use seqfarm_io::cram::{CramRanges, Fields, WantedRanges};
use seqfarm_io::input::Input;
use seqfarm_io::output::{refuse_input_as_output, ExistingOutput, Output};
use seqfarm_regions::pileup::replay::{ReplayFindings, ReplayStats};
pub use seqfarm_regions::pileup::rows::PileupTable;
use seqfarm_regions::pileup::visit::{RowRules, Site, SiteWalker};
use seqfarm_regions::pileup::PileupParams;

use self::emitter::Emitter;
use crate::common::{farm_error, fill_in_range, refuse_shared_outputs, with_bam_indexes};
use crate::farm_stats::StatsFile;
use crate::plot_file::PlotFile;

mod chunk;
pub mod collect;
mod emitter;
pub mod findings;
mod options;
mod plan;
pub mod replay;
mod rows;
mod sites;
pub mod skipped;

pub use self::emitter::EmitterStart;
pub use self::options::SnpPileupOptions;
pub use self::plan::PlannerState;

/// Tasks per worker the BAMs are cut into, about (load balance against the re-reading
/// each task does at its edges).
const TASKS_PER_WORKER: u64 = 16;
/// Compressed BAM bytes per task (all BAMs together), at least and at most.
const TASK_BYTES: std::ops::RangeInclusive<u64> = (2 << 20)..=(32 << 20);
/// An existing OUTPUT is refused unless `--force`, as FACETS snp-pileup refuses it
/// ("Output file ... already exists!"); so are existing `--plot` and `--stats` files.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::RefuseUnlessForced;

/// One piece of work: consecutive VCF sites on one contig and the range they need.
#[derive(Debug, Default)]
pub struct Task {
    /// Contig of the range (`-1`: no range, only sites on contigs not in the BAMs).
    ref_id: i32,
    /// The positions this task answers for: pseudo-SNP positions in it are reported.
    range: std::ops::Range<i64>,
    /// The sites, in VCF order (sites of other contigs than `ref_id` have `ref_id -1`).
    sites: Vec<Site>,
    /// What the replay found: per site on `ref_id` the next covered positions and the
    /// counts per BAM, and the covered pseudo-SNP positions with their counts.
    found: ReplayFindings,
    /// Without pseudo-SNPs: the task's VCF lines, whole, for the worker to parse.
    text: Vec<u8>,
    /// The last line of `text` holds only the line's first bytes.
    last_line_cut: bool,
    /// Lines of the VCF header before `text` (first task only).
    header_lines: u64,
    /// What the parse of `text` leaves to the collector.
    summary: sites::ChunkSummary,
    /// The rows of `sites[..walked]` when the walk reaches the first site on a BAM
    /// contig before it (see [`rows`]).
    rows: Vec<u8>,
    /// The sites whose rows are in `rows`.
    walked: usize,
    /// The walk's last consumed position after `sites[..walked]`, if it consumed any.
    cursor: Option<(i32, i64)>,
    /// Whether a site on a contig absent from the BAMs comes before the first site on a
    /// BAM contig.
    lead_absent: bool,
}

impl Task {
    fn clear(&mut self) {
        self.ref_id = -1;
        self.range = 0..0;
        self.sites.clear();
        self.found.clear();
        self.text.clear();
        self.last_line_cut = false;
        self.header_lines = 0;
        self.summary = sites::ChunkSummary::default();
        self.rows.clear();
        self.walked = 0;
        self.cursor = None;
        self.lead_absent = false;
    }
}

/// What a snp-pileup needs before it runs: the BAMs, the pileup settings and the walk's
/// rules; it runs the whole command or any range of its tasks.
pub struct SnpPileupJob {
    /// The BAMs, and for each CRAM its header and containers' sizes (none decoded).
    bams: BamSet,
    /// Each CRAM of `bams` opened to be decoded where it is read (none for a BAM; empty
    /// when the job only plans).
    crams: Vec<Option<CramRanges>>,
    names: Vec<String>,
    contigs: chunk::ContigLookup,
    params: PileupParams,
    walker: SiteWalker,
    vcf: PathBuf,
    /// The VCF opened by [`SnpPileupJob::new`], for the first run (standard input can be
    /// read once only).
    opened: std::sync::Mutex<Option<Input>>,
    pseudo_snps: i64,
    task_bytes: Option<u64>,
    task_span: i64,
    gzip: bool,
    progress: bool,
    /// Whether the workers write the rows they can (see [`rows`]).
    worker_rows: bool,
}

/// What [`SnpPileupJob::open`] opens the job for.
enum Opening {
    /// Planning: a CRAM's containers are sized, not opened to decode.
    Plan,
    /// Runs and collectors.
    Run,
    /// A part's run: the VCF opened where the part starts reading it.
    Part,
    /// A collector only: the VCF is left unopened.
    Collect,
}

/// What a run of [`SnpPileupJob::run`] reports.
pub struct RunFigures {
    /// The farm's figures.
    pub stats: seqfarm_farm::FarmStats,
    /// BGZF blocks the workers inflated.
    pub blocks: u64,
    /// CRAM containers the workers decoded.
    pub containers: u64,
    /// What the workers replayed.
    pub replay: ReplayStats,
    /// Tasks planned, up to the end of the range run.
    pub planned: usize,
    /// What the planner skipped (with pseudo-SNPs; otherwise the tasks carry it).
    pub skipped: skipped::SkippedSites,
}

impl SnpPileupJob {
    /// Opens the VCF and the BAMs of `options` (after [`SnpPileupOptions::check`]); a
    /// CRAM is opened to be decoded where it is read: each thread decodes the containers
    /// its replays reach (a run of some of the tasks, or the collector's walk, decodes
    /// little of it), and nothing is written to disk.
    pub fn new(options: &SnpPileupOptions) -> anyhow::Result<Self> {
        Self::open(options, Opening::Run)
    }

    /// Opens the job to plan it ([`SnpPileupJob::run`] on no task): a CRAM is not
    /// opened for decoding, its containers' sizes pricing the tasks.
    pub fn planning(options: &SnpPileupOptions) -> anyhow::Result<Self> {
        Self::open(options, Opening::Plan)
    }

    /// Opens the job for a collector only ([`SnpPileupJob::collector`]): the BAMs as
    /// [`SnpPileupJob::new`] opens them, the VCF not at all (its lines come as the tasks'
    /// findings).
    pub fn for_collector(options: &SnpPileupOptions) -> anyhow::Result<Self> {
        Self::open(options, Opening::Collect)
    }

    /// Opens the job for a run of some of its tasks from a start of the plan: the BAMs as
    /// [`SnpPileupJob::new`] opens them, the VCF where [`SnpPileupJob::run`] starts.
    pub fn for_part(options: &SnpPileupOptions) -> anyhow::Result<Self> {
        Self::open(options, Opening::Part)
    }

    fn open(options: &SnpPileupOptions, opening: Opening) -> anyhow::Result<Self> {
        options.check()?;
        let nothing = WantedRanges::default();
        let params = PileupParams {
            min_map_quality: options.min_map_quality,
            min_base_quality: options.min_base_quality,
            max_depth: options.max_depth,
            count_orphans: options.count_orphans,
            detect_overlaps: !options.ignore_overlaps,
        };
        let vcf = match opening {
            Opening::Collect | Opening::Part => None,
            Opening::Run | Opening::Plan => Some(Input::open(&options.vcf)?),
        };
        let inputs = RegionInputs::sniff(&options.bams);
        let reading = ReadOptions {
            reference: options.reference.as_deref(),
            fields: Fields::Pileup,
            threads: options.farm.workers(),
            ranges: Some(&nothing),
        };
        // In `bams`, a CRAM's header and containers' sizes, none decoded.
        let (bams, crams) = match opening {
            Opening::Plan => (inputs.open(&reading)?, Vec::new()),
            Opening::Run | Opening::Part | Opening::Collect => inputs.open_on_demand(&reading)?,
        };
        let names: Vec<String> = bams
            .header()
            .map(|h| h.references.iter().map(|r| r.name.clone()).collect())
            .unwrap_or_default();
        let mut min_depth = options.min_read_counts.clone();
        min_depth.resize(min_depth.len().max(bams.len()), 0);
        let walker = SiteWalker::new(
            RowRules {
                min_depth,
                pseudo_every: options.pseudo_snps,
            },
            bams.len(),
        );
        Ok(Self {
            contigs: chunk::ContigLookup::new(&bams),
            bams,
            crams,
            names,
            params,
            walker,
            vcf: options.vcf.clone(),
            opened: std::sync::Mutex::new(vcf),
            pseudo_snps: options.pseudo_snps,
            task_bytes: options.task_bytes,
            task_span: options.task_span,
            gzip: options.gzip,
            progress: options.progress,
            worker_rows: true,
        })
    }

    /// Compressed BAM bytes per task for `workers` workers (the options' `task_bytes` when
    /// given).
    pub fn task_bytes(&self, workers: usize) -> u64 {
        let total = self.bams.total_bytes();
        self.task_bytes.unwrap_or_else(|| {
            (total / (workers as u64 * TASKS_PER_WORKER))
                .clamp(*TASK_BYTES.start(), *TASK_BYTES.end())
        })
    }

    /// The job with the rows left to the collector: the workers only find the sites'
    /// counts and next covered positions (for a collector that walks every site).
    pub fn without_worker_rows(mut self) -> Self {
        self.worker_rows = false;
        self
    }

    /// The BAMs' count.
    pub fn files(&self) -> usize {
        self.bams.len()
    }

    /// The collector of the tasks' findings, writing the header and then the rows to
    /// `out` (BGZF-compressed on `threads` threads with `-g`; none: rows kept as values).
    pub fn collector(
        &self,
        out: Option<Output>,
        threads: usize,
    ) -> anyhow::Result<collect::RowCollector<'_>> {
        let sink = out.map(|out| collect::Sink::new(out, self.gzip, threads));
        collect::RowCollector::new(
            self.walker.clone(),
            self.vcf.clone(),
            sink.transpose()?,
            replay::BamReads::new(&self.bams, &self.crams)?,
            self.params,
            self.names.clone(),
            self.progress,
        )
    }

    /// The VCF opened by [`SnpPileupJob::new`] for its first run, or opened again.
    fn take_vcf(&self) -> anyhow::Result<Input> {
        let opened = self.opened.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(match opened {
            Some(vcf) => vcf,
            None => Input::open(&self.vcf)?,
        })
    }

    /// Runs tasks `tasks` (of `task_bytes` each, numbered from 0 in VCF order; the VCF is
    /// read no further than their end), giving each task, its sites' findings filled in,
    /// to `collector` in order. With `start`, where the plan found the emitter before
    /// task `tasks.start` ([`SnpPileupJob::task_starts`]), the VCF is read from there
    /// (up to the start's `end` without pseudo-SNPs, whatever `tasks.end`); without it,
    /// from its start, the tasks before `tasks.start` planned and skipped.
    pub fn run(
        &self,
        config: &FarmConfig,
        task_bytes: u64,
        tasks: std::ops::Range<usize>,
        start: Option<&EmitterStart>,
        collector: &mut impl Collector<Task, anyhow::Error>,
    ) -> anyhow::Result<RunFigures> {
        let vcf = match start {
            Some(start) => Input::open_at(&self.vcf, &start.text)?,
            None => self.take_vcf()?,
        };
        let mut emitter = Emitter::new(self, vcf, task_bytes, start);
        let (mut planned, tasks) = match start {
            Some(_) if emitter.runs_to_end() => (tasks.start, tasks.start..usize::MAX),
            Some(_) => (tasks.start, tasks),
            None => (0, tasks),
        };
        let report = seqfarm_farm::run(
            config,
            Task::default,
            &mut |task: &mut Task| fill_in_range(&tasks, &mut planned, task, |t| emitter.fill(t)),
            |_| {
                replay::SiteWorker::new(
                    replay::BamReads::new(&self.bams, &self.crams)?,
                    &self.contigs,
                    &self.names,
                    self.worker_rows.then(|| self.walker.clone()),
                    self.params,
                    self.pseudo_snps,
                )
            },
            collector,
        )
        .map_err(farm_error)?;
        let mut replayed = ReplayStats::default();
        for worker in &report.workers {
            replayed += worker.stats();
        }
        Ok(RunFigures {
            blocks: report.workers.iter().map(|w| w.blocks_inflated()).sum(),
            containers: report.workers.iter().map(|w| w.containers_decoded()).sum(),
            stats: report.stats,
            replay: replayed,
            planned,
            skipped: emitter.into_skipped(),
        })
    }
}

/// Opens the output of `options` (it must not be an input, nor the same file as the
/// plot or the statistics file).
pub fn open_output(options: &SnpPileupOptions) -> anyhow::Result<Output> {
    let output = options.output_path();
    let inputs = with_bam_indexes(&options.bams);
    refuse_input_as_output(&output, inputs.iter().chain([&options.vcf]))?;
    let named = [("OUTPUT", output.as_path())];
    refuse_shared_outputs(named, options.plot.as_ref(), options.farm.stats.as_ref())?;
    Ok(Output::create(&output, options.overwrite())?)
}

/// Runs `seqfarm snp-pileup`: the rows go to the output file.
pub fn run(options: &SnpPileupOptions) -> anyhow::Result<()> {
    pileup_into(options, |options| Ok(Some(open_output(options)?)))?;
    Ok(())
}

/// Runs `seqfarm snp-pileup` with its rows kept as values (the output file is not
/// written; the plot and the statistics file are).
pub fn table(options: &SnpPileupOptions) -> anyhow::Result<PileupTable> {
    Ok(pileup_into(options, |_| Ok(None))?.unwrap_or_default())
}

/// Runs the pileup `options` asks for, its rows going to the output `output` opens
/// (called once the inputs are open), or, where it opens none, kept as values and
/// returned.
fn pileup_into(
    options: &SnpPileupOptions,
    output: impl FnOnce(&SnpPileupOptions) -> anyhow::Result<Option<Output>>,
) -> anyhow::Result<Option<PileupTable>> {
    let job = SnpPileupJob::new(options)?;
    if options.verbose {
        for (i, (bam, index)) in job.bams.files().iter().enumerate() {
            let references = bam.header().references.len();
            let read = match job.crams.get(i) {
                Some(Some(_)) => format!("CRAM, {references} references, decoded where read"),
                _ => format!(
                    "BAM, {references} references, {:?} index {}",
                    index.kind(),
                    index.path().display()
                ),
            };
            stderr_line!("File {}: {} ({read})", i + 1, bam.path().display());
        }
        stderr_line!("Max per-file depth set to {}.", options.max_depth);
    }
    let out = output(options)?;
    let job = match out {
        Some(_) => job,
        None => job.without_worker_rows(),
    };
    let config = options.farm.config();
    let inputs = with_bam_indexes(&options.bams);
    let mut stats_file = StatsFile::create(
        options.farm.stats.as_ref(),
        "snp-pileup",
        config.workers,
        options.overwrite(),
        inputs.iter().chain([&options.vcf]),
    )?;
    let plot_file = PlotFile::create(
        options.plot.as_ref(),
        options.overwrite(),
        inputs.iter().chain([&options.vcf]),
    )?;
    let task_bytes = job.task_bytes(config.workers);
    let keep_table = out.is_none();
    let mut collector = job.collector(out, compressor_threads(config.workers))?;
    if plot_file.is_some() {
        collector.keep_sites();
    }
    if keep_table {
        collector.keep_table();
    }
    let figures = job.run(&config, task_bytes, 0..usize::MAX, None, &mut collector)?;
    if options.verbose {
        let stats = figures.replay;
        stderr_line!(
            "{} tasks of {} compressed bytes, {} site clusters replayed ({} widened back, \
             {} read further), {} BGZF blocks inflated",
            figures.stats.tasks,
            task_bytes,
            stats.clusters,
            stats.widened_back,
            stats.widened_forward,
            figures.blocks
        );
    }
    let picture = match collector.take_sites() {
        Some(sites) => Some(sites.draw(&options.vcf, &options.bams)?),
        None => None,
    };
    let warnings = collector.skipped_warnings(&figures.skipped);
    let table = collector.take_table();
    collector.finish()?;
    for warning in warnings {
        stderr_line!("seqfarm: warning: snp-pileup: {warning}");
    }
    if let (Some(file), Some(svg)) = (plot_file, picture) {
        file.write(&svg)?;
    }
    stats_file.add(&figures.stats);
    stats_file.total("bgzf_blocks", figures.blocks, figures.stats.tasks);
    stats_file.finish()?;
    Ok(table)
}
