//! `seqfarm depth`: mean depth per window or BED region and bases at or above depth
//! thresholds, with the output files of `mosdepth -n --by` (0.3): `.regions.bed.gz`,
//! `.thresholds.bed.gz`, `.mosdepth.summary.txt`, `.mosdepth.global.dist.txt`,
//! `.mosdepth.region.dist.txt`, and with `--per-base` the `.per-base.bed.gz` runs.
//!
//! The emitter walks the contigs in header order and cuts each into stretches of about
//! equal BAM bytes (at window boundaries; a BED region goes with the stretch holding its
//! start); a worker reads the stretch's reads through the index, builds its per-base
//! depth ([`Coverage`]) and computes its rows, statistics and distributions; the collector
//! writes the rows in order and adds the statistics up contig by contig.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use seqfarm_farm::{Fill, Worker};
use seqfarm_io::bam::{BamSet, RangeReader};
use seqfarm_io::bed_index::{BedIndexer, BedWriteError, IndexedBedWriter};
use seqfarm_io::bgzf_writer::compressor_threads;
use seqfarm_io::cram::{CramReading, Fields};
use seqfarm_io::input::{Input, LineReader};
use seqfarm_io::output::{refuse_input_as_output, ExistingOutput, Output};
use seqfarm_plot::{file_label, WindowTable, WindowValues};
use seqfarm_regions::count::read_end;
use seqfarm_regions::depth::{
    bases_at_least, mean_depth, push_runs, summary_line, window_mean_bin, AlignedRead, Coverage,
    DepthDistribution, DepthFilter, DepthStat, DEFAULT_EXCLUDE_FLAGS,
};
use seqfarm_regions::pileup::cigar::Cigar;
use seqfarm_regions::pileup::visit::push_number;

use crate::cmd::count::task_bytes_for;
use crate::common::{farm_error, refuse_shared_outputs, with_bam_indexes, FarmArgs, ForceArg};
use crate::farm_stats::StatsFile;
use crate::plot_file::PlotFile;

/// Bases a stretch holds at most (its depth array is 4 bytes a base).
const MAX_STRETCH: i64 = 1 << 22;
/// Steps the emitter prices a stretch in.
const STEP: i64 = 1 << 16;
/// Reads are added from this far before a stretch, so that a pair of single-operation
/// mates starting before it takes its overlap off as over the whole contig.
const MATE_REACH: i64 = 1 << 14;
/// Existing output files (every `PREFIX.*` file, `--plot`, `--stats`) are replaced, as
/// mosdepth replaces its files when run again with the same prefix.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;

/// Per-window or per-region depth, identical to `mosdepth -n --by` (0.3).
#[derive(Debug, clap::Args)]
pub struct DepthArgs {
    /// Consecutive windows of SIZE bases over every contig (the last one shorter)
    #[arg(long = "window", value_name = "SIZE", required_unless_present = "bed",
          conflicts_with = "bed", value_parser = clap::value_parser!(u32).range(1..), allow_negative_numbers = true)]
    window: Option<u32>,
    /// Regions (BED, plain or gzip; a 4th column names the region)
    #[arg(long = "bed", value_name = "REGIONS.bed")]
    bed: Option<PathBuf>,
    /// For each region, the bases with at least each of these depths (PREFIX.thresholds.bed.gz)
    #[arg(
        short = 'T',
        long = "thresholds",
        value_name = "D,D,...",
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    thresholds: Vec<u32>,
    /// Leave out reads with a lower mapping quality
    #[arg(
        short = 'Q',
        long = "mapq",
        value_name = "MAPQ",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    mapq: u8,
    /// Leave out reads with any of these FLAG bits
    #[arg(short = 'F', long = "flag", value_name = "FLAGS", default_value_t = DEFAULT_EXCLUDE_FLAGS, allow_negative_numbers = true)]
    flag: u16,
    /// Also write the depth of every base, as runs (PREFIX.per-base.bed.gz)
    #[arg(long = "per-base")]
    per_base: bool,
    /// Draw the mean depth of each window or region along the genome as SVG to FILE.svg
    #[arg(long = "plot", value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Output prefix: PREFIX.regions.bed.gz, PREFIX.mosdepth.summary.txt, ...
    #[arg(short = 'o', long = "output", value_name = "PREFIX")]
    prefix: PathBuf,
    #[command(flatten)]
    force: ForceArg,
    #[command(flatten)]
    farm: FarmArgs,
    /// Compressed BAM bytes per task (for tests of task boundaries)
    #[arg(long = "task-bytes", hide = true)]
    task_bytes: Option<u64>,
    /// Reference FASTA of a CRAM input (else its @SQ UR: file or embedded reference)
    #[arg(short = 'f', long = "reference", visible_aliases = ["fasta", "ref"], value_name = "FASTA")]
    reference: Option<PathBuf>,
    /// Coordinate-sorted, indexed BAM, or coordinate-sorted CRAM
    #[arg(value_name = "BAM")]
    bam: PathBuf,
}

/// One region: start, stop and its name (empty when unnamed).
#[derive(Debug, Clone)]
struct Region {
    start: i64,
    stop: i64,
    name: String,
}

/// A stretch of a contig and the regions starting in it.
#[derive(Debug, Default)]
pub struct Task {
    ref_id: usize,
    /// The contig bases this task accounts for.
    start: i64,
    end: i64,
    last_of_contig: bool,
    regions: Vec<Region>,
    // Results.
    found: bool,
    stat: DepthStat,
    region_stat: DepthStat,
    dist: DepthDistribution,
    region_dist: DepthDistribution,
    rows: Vec<u8>,
    threshold_rows: Vec<u8>,
    runs: Vec<(i64, i64, i32)>,
    /// Each region's mean depth.
    means: Vec<f64>,
}

/// BED regions by contig name, each list sorted by start (ties in file order).
fn read_bed(path: &Path) -> anyhow::Result<HashMap<String, Vec<Region>>> {
    let mut lines = LineReader::new(Input::open(path)?);
    let mut by_contig: HashMap<String, Vec<Region>> = HashMap::new();
    while lines.next_line()? {
        let text = String::from_utf8_lossy(&lines.line);
        let line = text.trim();
        // UCSC header lines, as mosdepth and `count --bed` pass over them.
        if line.is_empty()
            || line.starts_with('#')
            || line.starts_with("track")
            || line.starts_with("browser")
        {
            continue;
        }
        let error = |m: String| seqfarm_io::Error::line(path, lines.number, m);
        let fields: Vec<&str> = line.splitn(6, '\t').collect();
        if fields.len() < 3 {
            return Err(error("fewer than 3 tab-separated columns".into()).into());
        }
        let number = |name: &str, t: &str| {
            t.parse::<u32>()
                .ok()
                .filter(|_| t.bytes().all(|b| b.is_ascii_digit()))
                .map(i64::from)
                .ok_or_else(|| error(format!("{name} {t:?} is not a non-negative integer")))
        };
        let start = number("start", fields[1])?;
        let stop = number("end", fields[2])?;
        if start > stop {
            return Err(error(format!("start {start} is greater than end {stop}")).into());
        }
        let name = fields.get(3).map_or("", |n| n.trim()).to_string();
        by_contig
            .entry(fields[0].to_string())
            .or_default()
            .push(Region { start, stop, name });
    }
    for regions in by_contig.values_mut() {
        regions.sort_by_key(|r| r.start);
    }
    Ok(by_contig)
}

/// Warnings about BED regions the BAM cannot cover: those on a contig its header lacks
/// (left out of the output, as mosdepth leaves them out and warns) and those running
/// past their contig's end (reported over their whole length, the bases past the end at
/// depth 0). One line per contig, in header order, then the absent ones by name.
fn bed_warnings(
    bed: &HashMap<String, Vec<Region>>,
    names: &[String],
    lengths: &[i64],
) -> Vec<String> {
    let mut warnings = Vec::new();
    for (name, &len) in names.iter().zip(lengths) {
        let past: Vec<&Region> = bed
            .get(name)
            .map_or(&[][..], |v| v)
            .iter()
            .filter(|r| r.stop > len)
            .collect();
        if let Some(first) = past.first() {
            warnings.push(format!(
                "{} region(s) on {name} run past its end ({len} bp), e.g. {name}:{}-{}; \
                 their bases past the end count as depth 0",
                past.len(),
                first.start,
                first.stop
            ));
        }
    }
    let known: HashSet<&String> = names.iter().collect();
    let mut absent: Vec<(&String, usize)> = bed
        .iter()
        .filter(|(name, _)| !known.contains(name))
        .map(|(name, regions)| (name, regions.len()))
        .collect();
    absent.sort();
    for (name, n) in absent {
        warnings.push(format!(
            "{n} region(s) on {name}, which the BAM header lacks, are left out"
        ));
    }
    warnings
}

/// The emitter: contigs in header order, cut into stretches.
struct StretchPlanner<'a> {
    bams: &'a BamSet,
    lengths: &'a [i64],
    names: &'a [String],
    window: Option<i64>,
    bed: Option<HashMap<String, Vec<Region>>>,
    /// Contigs outside the BED are still read (for the summary and distributions).
    all_contigs: bool,
    task_bytes: u64,
    ref_id: usize,
    pos: i64,
    next_region: usize,
}

impl StretchPlanner<'_> {
    fn fill(&mut self, task: &mut Task) -> Fill {
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
struct StretchWorker<'a> {
    bams: &'a BamSet,
    filter: DepthFilter,
    names: &'a [String],
    lengths: &'a [i64],
    thresholds: &'a [i32],
    windows: bool,
    per_base: bool,
    reader: RangeReader,
    coverage: Coverage,
    counts: Vec<u64>,
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
                        cigar: Cigar(cigar.as_bytes()),
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

impl Worker<Task, anyhow::Error> for StretchWorker<'_> {
    fn process(&mut self, task: &mut Task) -> anyhow::Result<()> {
        let len = self.lengths[task.ref_id];
        // Depths are defined up to the contig's end, where mosdepth's array ends with a 0.
        let limit = len + 1;
        let reach = task.regions.iter().map(|r| r.stop).max().unwrap_or(0);
        let hi = task.end.max(reach).min(limit);
        let lo = (task.start - MATE_REACH).max(0);
        self.coverage.reset(lo, hi);
        task.found = len > 0 && self.add_reads(task.ref_id, lo, hi.min(len))?;
        let depths = self.coverage.depths();
        let at = |p: i64| (p.clamp(lo, hi) - lo) as usize;
        let own = depths.map(|d| &d[at(task.start)..at(task.end)]);
        let own_len = (at(task.end) - at(task.start)) as u64;
        task.dist = DepthDistribution::default();
        task.runs.clear();
        match own {
            Some(own) => {
                task.stat = DepthStat::of(own);
                task.dist.add_depths(own);
                if self.per_base {
                    push_runs(own, task.start, &mut task.runs);
                }
            }
            None => {
                task.stat = DepthStat::zeros(own_len);
                task.dist.add_many(0, own_len);
                if self.per_base && own_len > 0 {
                    task.runs.push((task.start, task.end, 0));
                }
            }
        }
        task.region_stat = DepthStat::default();
        task.region_dist = DepthDistribution::default();
        task.rows.clear();
        task.threshold_rows.clear();
        task.means.clear();
        let name = self.names[task.ref_id].as_bytes();
        self.counts.resize(self.thresholds.len(), 0);
        // mosdepth counts no base at any threshold, 0 included, on a contig without reads.
        let empty_contig = depths.is_none()
            && self.thresholds.first().is_some_and(|&t| t <= 0)
            && !task.found
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
                    task.region_stat += DepthStat::of(slice);
                    if !self.windows {
                        task.region_dist.add_depths(slice);
                    }
                    if !self.thresholds.is_empty() {
                        bases_at_least(slice, self.thresholds, &mut self.counts);
                    }
                    mean_depth(slice, r.start, r.stop)
                }
                None => {
                    let n = (to - from) as u64;
                    task.region_stat += DepthStat::zeros(n);
                    if !self.windows {
                        task.region_dist.add_many(0, n);
                    }
                    for (c, &t) in self.counts.iter_mut().zip(self.thresholds) {
                        *c = if t <= 0 && !empty_contig { n } else { 0 };
                    }
                    0.0
                }
            };
            if self.windows {
                task.region_dist.add_bin(window_mean_bin(mean));
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

/// The collector's totals for the contig in progress and the whole file.
struct Totals {
    found: bool,
    stat: DepthStat,
    region_stat: DepthStat,
    dist: DepthDistribution,
    region_dist: DepthDistribution,
    /// mosdepth's first contig region statistics and its totals start from a zero
    /// minimum rather than an empty one.
    first_found: bool,
    all: DepthStat,
    all_regions: DepthStat,
    all_dist: DepthDistribution,
    all_region_dist: DepthDistribution,
    summary: String,
    dist_text: String,
    region_dist_text: String,
    run: Option<(i64, i64, i32)>,
}

impl Totals {
    fn new() -> Self {
        let zero_min = DepthStat {
            min: 0,
            ..DepthStat::default()
        };
        Self {
            found: false,
            stat: DepthStat::default(),
            region_stat: DepthStat::default(),
            dist: DepthDistribution::default(),
            region_dist: DepthDistribution::default(),
            first_found: true,
            all: zero_min,
            all_regions: zero_min,
            all_dist: DepthDistribution::default(),
            all_region_dist: DepthDistribution::default(),
            summary: "chrom\tlength\tbases\tmean\tmin\tmax\n".to_string(),
            dist_text: String::new(),
            region_dist_text: String::new(),
            run: None,
        }
    }

    /// Adds a task's figures; at a contig's end writes its summary and distributions.
    fn add(&mut self, task: &Task, name: &str) {
        self.found |= task.found;
        self.stat += task.stat;
        self.region_stat += task.region_stat;
        self.dist += &task.dist;
        self.region_dist += &task.region_dist;
        if !task.last_of_contig {
            return;
        }
        if self.found {
            if self.first_found {
                self.region_stat.min = 0;
                self.first_found = false;
            }
            summary_line(name, &self.stat, &mut self.summary);
            summary_line(
                &format!("{name}_region"),
                &self.region_stat,
                &mut self.summary,
            );
            self.all += self.stat;
            self.all_regions += self.region_stat;
            self.dist.write(name, &mut self.dist_text);
            self.region_dist.write(name, &mut self.region_dist_text);
            self.all_dist += &self.dist;
            self.all_region_dist += &self.region_dist;
        }
        self.found = false;
        self.stat = DepthStat::default();
        self.region_stat = DepthStat::default();
        self.dist = DepthDistribution::default();
        self.region_dist = DepthDistribution::default();
    }

    /// The `total` lines.
    fn finish(&mut self) {
        summary_line("total", &self.all, &mut self.summary);
        summary_line("total_region", &self.all_regions, &mut self.summary);
        self.all_dist.write("total", &mut self.dist_text);
        self.all_region_dist
            .write("total", &mut self.region_dist_text);
    }
}

/// Appends per-base run lines to `out`, joining a run that goes on into the next task.
fn write_runs(
    out: &mut Vec<u8>,
    pending: &mut Option<(i64, i64, i32)>,
    runs: &[(i64, i64, i32)],
    name: &[u8],
    last: bool,
) {
    let put = |out: &mut Vec<u8>, (s, e, d): (i64, i64, i32)| {
        out.extend_from_slice(name);
        for n in [s, e] {
            out.push(b'\t');
            push_number(out, n as u64);
        }
        out.push(b'\t');
        push_number(out, d.max(0) as u64);
        out.push(b'\n');
    };
    for &run in runs {
        match pending {
            Some(p) if p.1 == run.0 && p.2 == run.2 => p.1 = run.1,
            _ => {
                if let Some(p) = pending.replace(run) {
                    put(out, p);
                }
            }
        }
    }
    if last {
        if let Some(p) = pending.take() {
            put(out, p);
        }
    }
}

/// A BGZF BED output that appears when complete, with its CSI index beside it (as
/// mosdepth writes them), compressed on `compressor_threads` threads so that the collector
/// stays light; its errors name its file.
struct BgzfOutput {
    path: PathBuf,
    writer: IndexedBedWriter<Output>,
    index_out: Output,
}

impl BgzfOutput {
    fn create(
        path: PathBuf,
        force: &ForceArg,
        level: i32,
        compressor_threads: usize,
        index: BedIndexer,
    ) -> anyhow::Result<Self> {
        let out = Output::create(&path, force.overwrite(EXISTING_OUTPUT))?;
        let index_out =
            Output::create(with_suffix(&path, ".csi"), force.overwrite(EXISTING_OUTPUT))?;
        let writer = IndexedBedWriter::new(out, level, compressor_threads, index)
            .map_err(|e| seqfarm_io::Error::io(&path, e))?;
        Ok(Self {
            path,
            writer,
            index_out,
        })
    }

    /// Compresses and writes all of `bytes`, which are not indexed (a header).
    fn put(&mut self, bytes: &[u8]) -> seqfarm_io::Result<()> {
        self.writer
            .write_unindexed(bytes)
            .map_err(|e| seqfarm_io::Error::io(&self.path, e))
    }

    /// Compresses, writes and indexes `lines`, BED lines of contig number `ref_id`.
    fn put_lines(&mut self, ref_id: usize, lines: &[u8]) -> seqfarm_io::Result<()> {
        self.writer
            .write_lines(ref_id, lines)
            .map_err(|e| Self::error(&self.path, e))
    }

    /// `e` as an error naming the output, `path`.
    fn error(path: &Path, e: BedWriteError) -> seqfarm_io::Error {
        match e {
            BedWriteError::Io(e) => seqfarm_io::Error::io(path, e),
            BedWriteError::Line { offset, message } => {
                seqfarm_io::Error::format(path, offset, message)
            }
        }
    }

    /// Writes the last block and the EOF marker, then the index for `reference_count`
    /// contigs: the two outputs to commit, the file and its index.
    fn finish(mut self, reference_count: usize) -> seqfarm_io::Result<[Output; 2]> {
        let (out, index) = self
            .writer
            .finish()
            .map_err(|e| Self::error(&self.path, e))?;
        let index_path = with_suffix(&self.path, ".csi");
        index
            .write(reference_count, &mut self.index_out)
            .map_err(|e| seqfarm_io::Error::io(&index_path, e))?;
        Ok([out, self.index_out])
    }
}

fn with_suffix(prefix: &Path, suffix: &str) -> PathBuf {
    let mut s = prefix.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Runs `seqfarm depth`.
pub fn run(args: DepthArgs) -> anyhow::Result<()> {
    // A CRAM is decoded whole, even with a BED: the summary and the global distribution
    // cover every base.
    let bams = BamSet::open_with_reference(
        std::slice::from_ref(&args.bam),
        &CramReading {
            reference: args.reference.as_deref(),
            fields: Fields::Coverage,
            threads: args.farm.config().workers,
            ranges: None,
        },
    )?;
    let (names, lengths) = super::count::reference_names_and_lengths(&bams)?;
    let bed = args.bed.as_deref().map(read_bed).transpose()?;
    if let (Some(bed), Some(path)) = (&bed, &args.bed) {
        for warning in bed_warnings(bed, &names, &lengths) {
            stderr_line!("seqfarm: warning: {}: {warning}", path.display());
        }
    }
    let mut thresholds: Vec<i32> = args
        .thresholds
        .iter()
        .map(|&t| t.min(i32::MAX as u32) as i32)
        .collect();
    thresholds.sort_unstable();
    let config = args.farm.config();
    let total = bams.files()[0].0.len();
    let task_bytes = args
        .task_bytes
        .unwrap_or_else(|| task_bytes_for(total, config.workers));

    let inputs: Vec<PathBuf> = with_bam_indexes(std::slice::from_ref(&args.bam))
        .into_iter()
        .chain(args.bed.clone())
        .collect();
    let path = |suffix: &str| with_suffix(&args.prefix, suffix);
    let mut named = vec![
        path(".regions.bed.gz"),
        path(".mosdepth.summary.txt"),
        path(".mosdepth.global.dist.txt"),
        path(".mosdepth.region.dist.txt"),
    ];
    if !thresholds.is_empty() {
        named.push(path(".thresholds.bed.gz"));
    }
    if args.per_base {
        named.push(path(".per-base.bed.gz"));
    }
    for out in named
        .clone()
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "gz"))
    {
        named.push(with_suffix(out, ".csi"));
    }
    for out in &named {
        refuse_input_as_output(out, inputs.iter())?;
    }
    refuse_shared_outputs(
        named.iter().map(|out| ("-o", out.as_path())),
        args.plot.as_ref(),
        args.farm.stats.stats.as_ref(),
    )?;
    let max_length = lengths.iter().copied().max().unwrap_or(0).max(0) as u64;
    let bed_index = || BedIndexer::new(names.iter().map(String::as_str), max_length);
    let compressors = compressor_threads(config.workers);
    let bgzf_output = |suffix: &str, level: i32| {
        BgzfOutput::create(path(suffix), &args.force, level, compressors, bed_index())
    };
    let mut regions_out = bgzf_output(".regions.bed.gz", 6)?;
    let mut summary_out = Output::create(
        path(".mosdepth.summary.txt"),
        args.force.overwrite(EXISTING_OUTPUT),
    )?;
    let mut dist_out = Output::create(
        path(".mosdepth.global.dist.txt"),
        args.force.overwrite(EXISTING_OUTPUT),
    )?;
    let mut region_dist_out = Output::create(
        path(".mosdepth.region.dist.txt"),
        args.force.overwrite(EXISTING_OUTPUT),
    )?;
    let mut thresholds_out = if thresholds.is_empty() {
        None
    } else {
        let mut out = bgzf_output(".thresholds.bed.gz", 1)?;
        let mut head = "#chrom\tstart\tend\tregion".to_string();
        // Labelled as given (mosdepth's), though depths are counted up to i32::MAX.
        let mut labels = args.thresholds.clone();
        labels.sort_unstable();
        for t in labels {
            head.push_str(&format!("\t{t}X"));
        }
        head.push('\n');
        out.put(head.as_bytes())?;
        Some(out)
    };
    let mut per_base_out = if args.per_base {
        Some(bgzf_output(".per-base.bed.gz", 1)?)
    } else {
        None
    };
    let plot_file = PlotFile::create(
        args.plot.as_ref(),
        args.force.overwrite(EXISTING_OUTPUT),
        inputs.iter(),
    )?;
    let mut plot = plot_file
        .as_ref()
        .map(|_| WindowTable::new(names.clone(), WindowValues::Depth, args.window.is_some()));
    let mut stats = StatsFile::create(
        args.farm.stats.stats.as_ref(),
        "depth",
        config.workers,
        args.force.overwrite(EXISTING_OUTPUT),
        inputs.iter(),
    )?;

    let filter = DepthFilter {
        min_map_quality: args.mapq,
        exclude_flags: args.flag,
    };
    let mut planner = StretchPlanner {
        bams: &bams,
        lengths: &lengths,
        names: &names,
        window: args.window.map(i64::from),
        all_contigs: args.bed.is_none() || args.per_base || !thresholds.is_empty(),
        bed,
        task_bytes: task_bytes.max(1),
        ref_id: 0,
        pos: 0,
        next_region: 0,
    };
    let mut totals = Totals::new();
    let mut regions = 0u64;
    let mut per_base_text = Vec::new();
    let report = seqfarm_farm::run(
        &config,
        Task::default,
        &mut |task: &mut Task| -> anyhow::Result<Fill> { Ok(planner.fill(task)) },
        |_| {
            Ok(StretchWorker {
                bams: &bams,
                filter,
                names: &names,
                lengths: &lengths,
                thresholds: &thresholds,
                windows: args.window.is_some(),
                per_base: args.per_base,
                reader: RangeReader::new(),
                coverage: Coverage::default(),
                counts: Vec::new(),
            })
        },
        &mut |task: &mut Task| -> anyhow::Result<()> {
            regions += task.regions.len() as u64;
            regions_out.put_lines(task.ref_id, &task.rows)?;
            if let Some(table) = plot.as_mut() {
                for (r, &mean) in task.regions.iter().zip(&task.means) {
                    table.add(task.ref_id as i64, r.start, r.stop, [mean]);
                }
            }
            if let Some(out) = thresholds_out.as_mut() {
                out.put_lines(task.ref_id, &task.threshold_rows)?;
            }
            let name = &names[task.ref_id];
            if let Some(out) = per_base_out.as_mut() {
                per_base_text.clear();
                write_runs(
                    &mut per_base_text,
                    &mut totals.run,
                    &task.runs,
                    name.as_bytes(),
                    task.last_of_contig,
                );
                out.put_lines(task.ref_id, &per_base_text)?;
            }
            totals.add(task, name);
            Ok(())
        },
    )
    .map_err(farm_error)?;
    totals.finish();
    let picture = match &plot {
        Some(table) => {
            let by = match (args.window, &args.bed) {
                (Some(size), _) => format!("{size}-bp window"),
                (None, Some(bed)) => format!("region of {}", file_label(bed)),
                (None, None) => "region".to_string(),
            };
            Some(table.draw(Some(&args.bam), &by)?)
        }
        None => None,
    };
    summary_out.put(totals.summary.as_bytes())?;
    dist_out.put(totals.dist_text.as_bytes())?;
    region_dist_out.put(totals.region_dist_text.as_bytes())?;
    // Every file of the run moves into place as one set, the regions' BED first.
    let mut outputs = Vec::from(regions_out.finish(names.len())?);
    for out in [thresholds_out, per_base_out].into_iter().flatten() {
        outputs.extend(out.finish(names.len())?);
    }
    outputs.extend([summary_out, dist_out, region_dist_out]);
    Output::commit_together(outputs)?;
    if let (Some(file), Some(svg)) = (plot_file, picture) {
        file.write(&svg)?;
    }
    stats.add(&report.stats);
    stats.total("regions", regions, report.stats.tasks);
    stats.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bed_regions_off_the_bam_are_warned_about() {
        let region = |start, stop| Region {
            start,
            stop,
            name: String::new(),
        };
        let bed = HashMap::from([
            (
                "chrM".to_string(),
                vec![region(0, 100), region(16_000, 17_000)],
            ),
            ("chr1".to_string(), vec![region(0, 10)]),
            ("nochrom".to_string(), vec![region(1, 5), region(6, 9)]),
        ]);
        let names = ["chr1".to_string(), "chrM".to_string()];
        let warnings = bed_warnings(&bed, &names, &[1_000, 16_571]);
        assert_eq!(
            warnings,
            [
                "1 region(s) on chrM run past its end (16571 bp), e.g. chrM:16000-17000; \
                 their bases past the end count as depth 0",
                "2 region(s) on nochrom, which the BAM header lacks, are left out",
            ]
        );
        assert_eq!(bed_warnings(&bed, &names, &[1_000, 20_000]).len(), 1);
    }
}
