//! A depth run's inputs, opened once, and its tasks: the command runs all of them, a part
//! of a run in parts (`seqfarm::api::parts::depth`) a range of them; the tasks are the
//! same however the run is spread, so their rows are too.

use std::collections::HashMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use seqfarm_farm::{FarmConfig, FarmStats, Fill};
use seqfarm_io::alignment_file::{open_by_region, ReadOptions, RegionInputs};
use seqfarm_io::bam::{BamSet, RangeReader};
use seqfarm_io::cram::WantedRanges;
use seqfarm_io::output::refuse_input_as_output;
use seqfarm_regions::depth::{Coverage, DepthFilter};

use super::bed::{bed_warnings, read_bed, Region};
use super::outputs::with_suffix;
use super::stretch::{StretchPlanner, StretchWorker, Task};
use super::DepthOptions;
use crate::cmd::count::task_bytes_for;
use crate::common::{
    coverage_reading, farm_error, fill_in_range, refuse_shared_outputs, with_bam_indexes,
};

/// How the BAM of `options` is read, a CRAM decoded where `ranges` say.
fn reading<'a>(options: &'a DepthOptions, ranges: Option<&'a WantedRanges>) -> ReadOptions<'a> {
    coverage_reading(options.reference.as_deref(), options.farm.workers(), ranges)
}

/// The BAM (or CRAM) of a depth run, its contigs, its BED regions and thresholds.
pub struct DepthJob {
    bam: PathBuf,
    bams: BamSet,
    names: Vec<String>,
    lengths: Vec<i64>,
    bed: Option<HashMap<String, Vec<Region>>>,
    /// The thresholds in increasing order.
    thresholds: Vec<i32>,
    options: DepthOptions,
}

impl DepthJob {
    /// Opens `bam` and reads the BED of `options`, checked as the command checks them.
    pub fn new(bam: &Path, options: &DepthOptions) -> anyhow::Result<Self> {
        Self::open(bam, options, None)
    }

    /// Opens the job to plan it (`DepthJob::run` on no task) or to name its contigs:
    /// a CRAM is decoded not at all, its containers' sizes pricing the tasks as they do
    /// when it is decoded.
    pub fn planning(bam: &Path, options: &DepthOptions) -> anyhow::Result<Self> {
        Self::open(bam, options, Some(WantedRanges::default()))
    }

    /// Opens the job to run tasks `tasks` of the plan with tasks of `task_bytes` and no
    /// others (a part of the run): a CRAM is decoded only where they read.
    pub fn for_tasks(
        bam: &Path,
        options: &DepthOptions,
        task_bytes: u64,
        tasks: Range<usize>,
    ) -> anyhow::Result<Self> {
        let inputs = RegionInputs::sniff(std::slice::from_ref(&bam.to_path_buf()));
        if !inputs.any_cram() {
            return Self::new(bam, options);
        }
        options.check()?;
        let (planned, opened) = inputs.open_planned()?;
        let planning = Self::with_bams(bam, options, planned)?;
        let mut spans = Vec::new();
        planning.plan(task_bytes, tasks, |task| {
            let (from, to) = task.read_span(planning.lengths[task.ref_id]);
            spans.push((
                planning.names[task.ref_id].as_bytes(),
                from as u64,
                to as u64,
            ));
        })?;
        let ranges = WantedRanges::new(spans);
        let bams = opened.open(&reading(options, Some(&ranges)))?;
        Self::with_bams(bam, options, bams)
    }

    /// Opens `bam`, a CRAM decoded where `ranges` say (`None`: whole, even with a BED:
    /// the summary and the global distribution cover every base).
    fn open(
        bam: &Path,
        options: &DepthOptions,
        ranges: Option<WantedRanges>,
    ) -> anyhow::Result<Self> {
        options.check()?;
        let reading = reading(options, ranges.as_ref());
        let bams = open_by_region(std::slice::from_ref(&bam.to_path_buf()), &reading)?;
        Self::with_bams(bam, options, bams)
    }

    /// The job of `options` on `bam`, opened as `bams`.
    fn with_bams(bam: &Path, options: &DepthOptions, bams: BamSet) -> anyhow::Result<Self> {
        let (names, lengths) = crate::cmd::count::reference_names_and_lengths(&bams)?;
        let bed = options.bed.as_deref().map(read_bed).transpose()?;
        let mut thresholds: Vec<i32> = options
            .thresholds
            .iter()
            .map(|&t| t.min(i32::MAX as u32) as i32)
            .collect();
        thresholds.sort_unstable();
        Ok(Self {
            bam: bam.to_path_buf(),
            bams,
            names,
            lengths,
            bed,
            thresholds,
            options: options.clone(),
        })
    }

    /// Warns on standard error about the BED regions the BAM cannot cover.
    pub(crate) fn warn_about_bed(&self) {
        if let (Some(bed), Some(path)) = (&self.bed, &self.options.bed) {
            for warning in bed_warnings(bed, &self.names, &self.lengths) {
                stderr_line!("seqfarm: warning: {}: {warning}", path.display());
            }
        }
    }

    /// The contigs' names, in header order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The length of the longest contig.
    pub fn max_length(&self) -> u64 {
        self.lengths.iter().copied().max().unwrap_or(0).max(0) as u64
    }

    /// Whether thresholds were asked for (a `.thresholds.bed.gz` output).
    pub fn has_thresholds(&self) -> bool {
        !self.thresholds.is_empty()
    }

    /// Whether the depth of every base is written (a `.per-base.bed.gz` output).
    pub fn has_per_base(&self) -> bool {
        self.options.per_base
    }

    /// The header line of the `.thresholds.bed.gz` output.
    pub fn thresholds_header(&self) -> String {
        let mut head = "#chrom\tstart\tend\tregion".to_string();
        // Labelled as given (mosdepth's), though depths are counted up to i32::MAX.
        let mut labels = self.options.thresholds.clone();
        labels.sort_unstable();
        for t in labels {
            head.push_str(&format!("\t{t}X"));
        }
        head.push('\n');
        head
    }

    /// Every output file of the run with prefix `prefix`, checked as the command checks
    /// them before any work (none is an input, none is `--plot` or `--stats`): the
    /// regions' BED, the summary, the two distributions, the thresholds' and the per-base
    /// BEDs when asked for, then each BED's CSI index in the same order.
    pub fn output_paths(&self, prefix: &Path) -> anyhow::Result<Vec<PathBuf>> {
        let path = |suffix: &str| with_suffix(prefix, suffix);
        let mut named = vec![
            path(".regions.bed.gz"),
            path(".mosdepth.summary.txt"),
            path(".mosdepth.global.dist.txt"),
            path(".mosdepth.region.dist.txt"),
        ];
        if self.has_thresholds() {
            named.push(path(".thresholds.bed.gz"));
        }
        if self.options.per_base {
            named.push(path(".per-base.bed.gz"));
        }
        for out in named
            .clone()
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "gz"))
        {
            named.push(with_suffix(out, ".csi"));
        }
        let inputs = self.input_files();
        for out in &named {
            refuse_input_as_output(out, inputs.iter())?;
        }
        refuse_shared_outputs(
            named.iter().map(|out| ("-o", out.as_path())),
            self.options.plot.as_ref(),
            self.options.farm.stats.as_ref(),
        )?;
        Ok(named)
    }

    /// The files the run reads: the BAM, its index and the BED.
    pub(super) fn input_files(&self) -> Vec<PathBuf> {
        with_bam_indexes(std::slice::from_ref(&self.bam))
            .into_iter()
            .chain(self.options.bed.clone())
            .collect()
    }

    /// Compressed BAM bytes per task for `workers` workers (the command's, unless
    /// `--task-bytes` is given).
    pub fn task_bytes(&self, workers: usize) -> u64 {
        let total = self.bams.total_bytes();
        self.options
            .task_bytes
            .unwrap_or_else(|| task_bytes_for(total, workers))
            .max(1)
    }

    /// Computes tasks `tasks` of the plan with tasks of `task_bytes` on the farm of
    /// `config`; `collect` takes each in order. Returns the farm's statistics and the
    /// tasks planned (all of them when `tasks` goes past the last).
    pub(crate) fn run(
        &self,
        config: &FarmConfig,
        task_bytes: u64,
        tasks: Range<usize>,
        mut collect: impl FnMut(&mut Task) -> anyhow::Result<()>,
    ) -> anyhow::Result<(FarmStats, usize)> {
        let options = &self.options;
        let mut planner = self.planner(task_bytes);
        let filter = DepthFilter {
            min_map_quality: options.mapq,
            exclude_flags: options.exclude_flags,
        };
        let mut planned = 0usize;
        let report = seqfarm_farm::run(
            config,
            Task::default,
            &mut |task: &mut Task| {
                fill_in_range(&tasks, &mut planned, task, |t| Ok(planner.fill(t)))
            },
            |_| {
                Ok(StretchWorker {
                    bams: &self.bams,
                    filter,
                    names: &self.names,
                    lengths: &self.lengths,
                    thresholds: &self.thresholds,
                    windows: options.window.is_some(),
                    per_base: options.per_base,
                    reader: RangeReader::new(),
                    coverage: Coverage::default(),
                    counts: Vec::new(),
                })
            },
            &mut |task: &mut Task| collect(task),
        )
        .map_err(farm_error)?;
        Ok((report.stats, planned))
    }

    /// Bytes of the BAM read (a CRAM's: those of the BAM it was decoded into).
    #[cfg(test)]
    pub(crate) fn bam_bytes(&self) -> u64 {
        self.bams.files().iter().map(|(bam, _)| bam.len()).sum()
    }

    /// The emitter of stretches priced at `task_bytes`, from the first contig.
    fn planner(&self, task_bytes: u64) -> StretchPlanner<'_> {
        StretchPlanner {
            bams: &self.bams,
            lengths: &self.lengths,
            names: &self.names,
            window: self.options.window.map(i64::from),
            all_contigs: self.options.bed.is_none() || self.has_per_base() || self.has_thresholds(),
            bed: self.bed.clone(),
            task_bytes,
            ref_id: 0,
            pos: 0,
            next_region: 0,
        }
    }

    /// Plans tasks `tasks` of the plan with tasks of `task_bytes`, giving each to
    /// `planned` (nothing is computed).
    fn plan(
        &self,
        task_bytes: u64,
        tasks: Range<usize>,
        mut planned: impl FnMut(&Task),
    ) -> anyhow::Result<()> {
        let mut planner = self.planner(task_bytes);
        let (mut count, mut task) = (0, Task::default());
        while let Fill::Task =
            fill_in_range(&tasks, &mut count, &mut task, |t| Ok(planner.fill(t)))?
        {
            planned(&task);
        }
        Ok(())
    }
}
