//! `seqfarm flagstat`: samtools-identical FLAG statistics, parallel through the BAM index.
//!
//! * An indexed BAM is memory-mapped and cut by its index into work units of about equal
//!   compressed size that start at record boundaries; each worker inflates its own blocks
//!   and counts into private [`FlagCounts`], merged at the end.
//! * The unplaced unmapped reads after the last indexed record, and the whole file when
//!   there is no index (or it is older than the BAM, or the BAM comes from standard
//!   input), are cut at BGZF blocks: workers inflate, and the collector walks the
//!   records across blocks in order.
//! * SAM (plain or gzip) is read sequentially.

mod options;

use std::io::Read;
use std::ops::ControlFlow;
use std::path::Path;

use seqfarm_farm::{FarmConfig, FarmStats, Fill, Worker};
use seqfarm_io::alignment_file::{AlignmentFile, BamWithIndex, ReadOptions};
use seqfarm_io::bam::{
    BamFile, BamIndex, BamStream, BlockBatch, RangeReader, Record, RecordStitcher, WorkPlan,
    WorkUnit,
};
use seqfarm_io::bgzf::{self, InflateBuffer, Inflater, VirtualRange};
use seqfarm_io::cram::{CramFile, Fields, ReferenceSource};
use seqfarm_io::input::{Input, LineReader};
use seqfarm_io::output::{refuse_input_as_output, ExistingOutput, Output};
use seqfarm_io::sam::flag_fields;
use seqfarm_io::sam::text::MAX_LINE;
use seqfarm_io::Error;
use seqfarm_regions::FlagCounts;

pub use self::options::FlagstatOptions;
use crate::common::{farm_error, refuse_shared_outputs, with_bam_indexes};
use crate::farm_stats::StatsFile;
pub use seqfarm_regions::FlagstatFormat;

/// An existing `-o FILE` or `--stats FILE` is replaced: samtools flagstat prints to
/// standard output, which a re-run's redirection (`> FILE`) replaces.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;

/// Compressed bytes per indexed work unit, at most.
const RANGE_UNIT: u64 = 4 << 20;
/// Compressed bytes per batch of blocks where no record start is known.
const BLOCK_BATCH: u64 = 256 << 10;

/// Runs `seqfarm flagstat` on `input` (BAM, CRAM, SAM or gzip-compressed SAM; `-`:
/// standard input, not CRAM).
pub fn run(input: &Path, options: &FlagstatOptions) -> anyhow::Result<()> {
    let config = options.farm.config();
    let inputs = with_bam_indexes(&[input.to_path_buf()]);
    refuse_input_as_output(&options.output, &inputs)?;
    refuse_shared_outputs(
        [("-o", options.output.as_path())],
        None,
        options.farm.stats.as_ref(),
    )?;
    let overwrite = EXISTING_OUTPUT.overwrite(options.force);
    let mut out = Output::create(&options.output, overwrite)?;
    let mut stats = StatsFile::create(
        options.farm.stats.as_ref(),
        "flagstat",
        config.workers,
        overwrite,
        &inputs,
    )?;
    let mut farm_stats = FarmStats::default();
    let counts = count_with_reference(
        input,
        options.reference.as_deref(),
        &config,
        &mut farm_stats,
    )?;
    out.put(counts.render(options.format).as_bytes())?;
    out.commit()?;
    stats.add(&farm_stats);
    stats.total("reads", counts.total[0] + counts.total[1], farm_stats.tasks);
    stats.finish()?;
    Ok(())
}

/// Counts the records of `input` (a path or `-`), adding the figures of the farms it
/// runs to `stats` (a SAM input is read on one thread, without a farm).
pub fn count(
    input: &Path,
    config: &FarmConfig,
    stats: &mut FarmStats,
) -> anyhow::Result<FlagCounts> {
    count_with_reference(input, None, config, stats)
}

/// As [`count`], decoding a CRAM input against `reference` (else its `@SQ UR:` file or
/// embedded reference).
pub fn count_with_reference(
    input: &Path,
    reference: Option<&Path>,
    config: &FarmConfig,
    stats: &mut FarmStats,
) -> anyhow::Result<FlagCounts> {
    let options = ReadOptions {
        reference,
        fields: Fields::FlagStatistics,
        threads: config.workers,
        ranges: None,
    };
    match AlignmentFile::open(input, &options)? {
        AlignmentFile::Bam(bam) => count_bam_file(input, bam, config, stats),
        AlignmentFile::BamStream(stream) => count_bam_stream(input, stream, config, stats),
        AlignmentFile::Cram { cram, reference } => {
            let all = 0..cram.containers().len();
            count_cram_containers(&cram, &reference, all, config.workers)
        }
        AlignmentFile::Sam(sam) => count_sam(sam),
    }
}

/// What one task carries.
#[derive(Debug, Clone)]
enum Work {
    /// Nothing yet (a fresh task object).
    Idle,
    /// Records in a virtual-offset range: the worker counts them itself.
    Range(VirtualRange),
    /// Whole blocks of the mapped file: inflated by the worker, walked by the collector.
    Blocks(BlockBatch),
    /// Whole blocks copied from a stream into `raw`, the first at this stream offset.
    Copied(u64),
}

/// A task object; its buffers are reused from task to task.
struct Task {
    work: Work,
    raw: Vec<u8>,
    inflated: InflateBuffer,
}

fn new_task() -> Task {
    Task {
        work: Work::Idle,
        raw: Vec::new(),
        inflated: InflateBuffer::new(),
    }
}

/// A worker's private state: its inflater, range reader and counts.
struct FlagWorker<'a> {
    bam: Option<&'a BamFile>,
    name: &'a Path,
    reader: RangeReader,
    inflater: Inflater,
    counts: FlagCounts,
}

impl<'a> FlagWorker<'a> {
    fn new(bam: Option<&'a BamFile>, name: &'a Path) -> Self {
        Self {
            bam,
            name,
            reader: RangeReader::new(),
            inflater: Inflater::new(),
            counts: FlagCounts::default(),
        }
    }
}

/// The flag counts of containers `containers` of `cram`, decoded against `reference`
/// on `workers` workers, each counting the records of the containers it decodes
/// (nothing is written).
pub fn count_cram_containers(
    cram: &CramFile,
    reference: &ReferenceSource,
    containers: std::ops::Range<usize>,
    workers: usize,
) -> anyhow::Result<FlagCounts> {
    let states = cram.for_each_record(
        containers,
        reference,
        Fields::FlagStatistics,
        workers,
        FlagCounts::default,
        |counts, record| count_record(counts, &record),
    )?;
    let mut total = FlagCounts::default();
    for counts in states {
        total += counts;
    }
    Ok(total)
}

#[inline(always)]
fn count_record(counts: &mut FlagCounts, r: &Record<'_>) {
    counts.count(r.flag(), r.ref_id(), r.next_ref_id(), r.mapq());
}

impl Worker<Task, Error> for FlagWorker<'_> {
    fn process(&mut self, task: &mut Task) -> Result<(), Error> {
        let name = self.name;
        let bgzf_error = |e: bgzf::BgzfError| Error::format(name, e.offset, e.kind.to_string());
        match (&task.work, self.bam) {
            (Work::Range(range), Some(bam)) => {
                let counts = &mut self.counts;
                bam.prefetch(range.start.compressed()..range.end.compressed() + 65536);
                self.reader.for_each(bam, *range, |r| {
                    count_record(counts, &r);
                    ControlFlow::Continue(())
                })?;
                bam.release(range.start.compressed()..range.end.compressed());
            }
            (Work::Blocks(batch), Some(bam)) => batch
                .inflate(bam, &mut self.inflater, &mut task.inflated)
                .map_err(bgzf_error)?,
            (Work::Copied(first), _) => {
                task.inflated.clear();
                self.inflater
                    .inflate_blocks(&task.raw, *first, &mut task.inflated)
                    .map_err(bgzf_error)?;
            }
            _ => {}
        }
        Ok(())
    }
}

/// Collector side of the block batches: walks records across them in order, one
/// stitcher per segment.
fn stitch(
    stitcher: &mut RecordStitcher,
    counts: &mut FlagCounts,
    task: &Task,
    name: &Path,
    n_ref: usize,
) -> Result<(), Error> {
    let inflated = task.inflated.as_slice();
    match &task.work {
        Work::Blocks(batch) => batch.stitch(stitcher, n_ref, inflated, name, |r| {
            count_record(counts, &r)
        }),
        Work::Copied(first) => stitcher
            .feed(inflated, |r| count_record(counts, &r))
            .map_err(|e| {
                Error::format(
                    name,
                    *first,
                    format!("{} (in the blocks from here on)", e.0),
                )
            }),
        _ => Ok(()),
    }
}

/// An indexed or unindexed BAM file, memory-mapped.
fn count_bam_file(
    path: &Path,
    opened: BamWithIndex,
    config: &FarmConfig,
    stats: &mut FarmStats,
) -> anyhow::Result<FlagCounts> {
    let (bam, index) = without_stale_index(opened);
    let unit = range_unit(bam.len(), config.workers);
    count_bam_groups(
        &bam,
        index.as_ref(),
        path,
        unit,
        config,
        stats,
        0..usize::MAX,
    )
}

/// The size of the work plan's ranges for a BAM of `len` bytes read by `workers`.
pub fn range_unit(len: u64, workers: usize) -> u64 {
    let per_worker = len / (workers as u64 * 8).max(1);
    per_worker.clamp(64 << 10, RANGE_UNIT)
}

/// Opens a BAM file and its index (left aside, with a warning, when older than the BAM).
pub fn open_bam(path: &Path) -> anyhow::Result<(BamFile, Option<BamIndex>)> {
    Ok(without_stale_index(BamWithIndex::open(path)?))
}

/// The BAM and its index, warning that a stale index is left aside: it only speeds the
/// count up (samtools never reads it), so it is not refused.
fn without_stale_index(opened: BamWithIndex) -> (BamFile, Option<BamIndex>) {
    if let Some(index_path) = &opened.stale_index {
        stderr_line!(
            "seqfarm: warning: {} is older than {}: counting without the index",
            index_path.display(),
            opened.bam.path().display()
        );
    }
    (opened.bam, opened.index)
}

/// Independent groups of the work plan of `bam` with ranges of `unit` bytes: each
/// virtual-offset range is a group, and so is each run of block batches that one
/// stitcher walks (an unindexed stretch, the unmapped tail). Counts of groups add up.
pub fn plan_groups(bam: &BamFile, index: Option<&BamIndex>, unit: u64) -> anyhow::Result<usize> {
    let plan = WorkPlan::new(bam, index, unit);
    let mut groups = 0;
    for work in plan.units(bam, BLOCK_BATCH.min(unit)) {
        match work.map_err(|e| bam.bgzf_error(e))? {
            WorkUnit::Range(_) => groups += 1,
            WorkUnit::Blocks(batch) if batch.starts_segment => groups += 1,
            WorkUnit::Blocks(_) => {}
        }
    }
    Ok(groups)
}

/// Counts the records of groups `groups` of the work plan (see [`plan_groups`]); the
/// plan is walked no further than their end.
pub fn count_bam_groups(
    bam: &BamFile,
    index: Option<&BamIndex>,
    path: &Path,
    unit: u64,
    config: &FarmConfig,
    stats: &mut FarmStats,
    groups: std::ops::Range<usize>,
) -> anyhow::Result<FlagCounts> {
    let plan = WorkPlan::new(bam, index, unit);
    let mut units = plan.units(bam, BLOCK_BATCH.min(unit));
    let mut group = 0usize;
    let n_ref = bam.header().references.len();
    let mut stitcher = RecordStitcher::new(n_ref, 0);
    let mut block_counts = FlagCounts::default();
    let bar = crate::progress::bytes(bam.len(), "flagstat");
    let report = seqfarm_farm::run(
        config,
        new_task,
        &mut |task: &mut Task| -> Result<Fill, Error> {
            loop {
                let work = match units.next() {
                    Some(Ok(WorkUnit::Range(range))) => {
                        group += 1;
                        Work::Range(range)
                    }
                    Some(Ok(WorkUnit::Blocks(batch))) => {
                        group += usize::from(batch.starts_segment);
                        Work::Blocks(batch)
                    }
                    Some(Err(e)) => return Err(bam.bgzf_error(e)),
                    None => return Ok(Fill::End),
                };
                if group > groups.end {
                    return Ok(Fill::End);
                }
                if groups.contains(&(group - 1)) {
                    task.work = work;
                    return Ok(Fill::Task);
                }
            }
        },
        |_| Ok(FlagWorker::new(Some(bam), path)),
        &mut |task: &mut Task| -> Result<(), Error> {
            bar.inc(match &task.work {
                Work::Range(r) => r.end.compressed().saturating_sub(r.start.compressed()),
                Work::Blocks(b) => b.blocks.end - b.blocks.start,
                _ => 0,
            });
            stitch(&mut stitcher, &mut block_counts, task, path, n_ref)
        },
    )
    .map_err(farm_error)?;
    bar.finish_and_clear();
    stats.merge(&report.stats);
    Ok(merge(report.workers, block_counts))
}

/// A BAM from a stream: a reader thread (the emitter) copies blocks, workers inflate,
/// the collector walks the records in order.
fn count_bam_stream(
    name: &Path,
    mut stream: BamStream<impl Read>,
    config: &FarmConfig,
    stats: &mut FarmStats,
) -> anyhow::Result<FlagCounts> {
    let n_ref = stream.header().references.len();
    let mut counts = FlagCounts::default();
    let mut stitcher = stream.stitcher(|r| count_record(&mut counts, &r))?;
    let bar = crate::progress::items("flagstat: reads");
    let report = seqfarm_farm::run(
        config,
        new_task,
        &mut |task: &mut Task| -> Result<Fill, Error> {
            task.raw.clear();
            let first = stream.read_blocks(&mut task.raw, BLOCK_BATCH as usize)?;
            if task.raw.is_empty() {
                return Ok(Fill::End);
            }
            task.work = Work::Copied(first);
            Ok(Fill::Task)
        },
        |_| Ok(FlagWorker::new(None, name)),
        &mut |task: &mut Task| {
            stitch(&mut stitcher, &mut counts, task, name, n_ref)?;
            bar.set_position(stitcher.records());
            Ok(())
        },
    )
    .map_err(farm_error)?;
    bar.finish_and_clear();
    stats.merge(&report.stats);
    stitcher
        .finish()
        .map_err(|e| Error::format(name, stream.position(), e.0))?;
    Ok(merge(report.workers, counts))
}

fn merge(workers: Vec<FlagWorker<'_>>, mut counts: FlagCounts) -> FlagCounts {
    for w in workers {
        counts += w.counts;
    }
    counts
}

/// SAM text (plain or gzip), read sequentially; the fields are interpreted as htslib
/// does (unknown references and zero positions make a read unmapped).
fn count_sam(input: Input) -> anyhow::Result<FlagCounts> {
    let mut lines = LineReader::new(input).with_max_len(MAX_LINE, "SAM line");
    let mut counts = FlagCounts::default();
    flag_fields::read_each(&mut lines, |record| {
        counts.count(record.flag, record.ref_id, record.mate_ref_id, record.mapq);
    })?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;

    fn count_bytes(sam: &[u8]) -> FlagCounts {
        let input = Input::from_reader("x.sam", Box::new(Cursor::new(sam.to_vec()))).unwrap();
        count_sam(input).unwrap()
    }

    #[test]
    fn counts_sam_lines_like_htslib() {
        let sam = b"@HD\tVN:1.6\n@SQ\tSN:a\tLN:100\n@SQ\tSN:b\tLN:100\n\
r1\t99\ta\t1\t60\t10M\t=\t20\t29\tACGTACGTAC\t*\n\
r2\t65\ta\t5\t30\t10M\tb\t5\t0\t*\t*\n\
r3\t0\tzz\t5\t30\t10M\t*\t0\t0\t*\t*\n\
r4\t0x10\ta\t0\t30\t10M\t*\t0\t0\t*\t*\n";
        let c = count_bytes(sam);
        assert_eq!(c.total, [4, 0]);
        // r3: unknown reference; r4: position 0: both unmapped.
        assert_eq!(c.mapped, [2, 0]);
        assert_eq!(c.mate_other_chr, [1, 0]);
        // A header without records is a valid, empty SAM.
        assert_eq!(count_bytes(b"@HD\tVN:1.6\n").total, [0, 0]);
    }

    #[test]
    fn alternative_reference_names_resolve() {
        let sam = b"@SQ\tSN:r1\tLN:1000\n@SQ\tSN:r3\tLN:1000\tAN:ref3,chr3\n\
a\t0\tref3\t1\t60\t3M\t*\t0\t0\tACG\t*\n\
b\t1\tr1\t1\t60\t3M\tchr3\t5\t0\tACG\t*\n\
c\t1\tchr3\t1\t60\t3M\tr3\t5\t0\tACG\t*\n\
d\t0\tzz\t1\t60\t3M\t*\t0\t0\tACG\t*\n";
        let c = count_bytes(sam);
        // As samtools: a, b and c mapped; b's mate is on another reference, c's is not.
        assert_eq!(c.mapped, [3, 0]);
        assert_eq!(c.mate_other_chr, [1, 0]);
    }
}
