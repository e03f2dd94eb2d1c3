//! `seqfarm markdup`: duplicate reads of a coordinate-sorted BAM flagged (0x400) as
//! Picard MarkDuplicates 2.27 flags them with its defaults, and its metrics file.
//!
//! Two passes over the memory-mapped BAM (`scan`), each on a farm: with an index the
//! file is cut at record starts into ranges of about 1 MB and each worker walks its
//! range's records itself; without one, workers inflate batches of blocks and the
//! collector walks the records across them.
//!
//! 1. Workers make each primary mapped read's fragment ends (library, unclipped 5'
//!    position, strand, mate's reference, score, tile and pixel coordinates from its
//!    name); the collector, in file order, checks the order (`@HD SO:coordinate` and
//!    the records themselves) and hands the ends to the kernel's [`DuplicateFinder`],
//!    which pairs mates by name and keeps only ends, never records. It then decides
//!    which record indexes are duplicates.
//! 2. Workers copy the records and look up their libraries; the collector writes them
//!    again in the same order with FLAG 0x400 set or cleared (a BAM marked before gives
//!    the same answer), BGZF blocks compressed on the workers' count of threads and the
//!    index built as they are placed, and counts the metrics per library.
//!
//! The output BAM, its index and the metrics appear together when the run succeeds.

mod header;
mod options;
mod passes;
mod runs;
mod scan;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use seqfarm_farm::FarmStats;
use seqfarm_io::alignment_file::{AlignmentFile, ReadOptions, RegionInputs};
use seqfarm_io::bam::{BamFile, BamIndex};
use seqfarm_io::bam_sort::index_beside;
use seqfarm_io::bam_writer::IndexedBamWriter;
use seqfarm_io::cram::Fields;
use seqfarm_io::output::{refuse_input_as_output, ExistingOutput, Output};
use seqfarm_regions::flags;
use seqfarm_regions::markdup::{
    library_table, metrics, DuplicateFinder, LibraryCounts, MarkdupRules,
};

use self::header::{bam_header_blocks, SortCheck};
pub use self::options::MarkdupOptions;
use self::passes::{CopyPass, EndsPass};
use self::runs::ScratchRuns;
use crate::common::{refuse_shared_outputs, with_bam_indexes};
use crate::farm_stats::StatsFile;

/// An existing output is replaced, as Picard replaces it.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;
/// Compression level of the output BAM (htslib's and Picard's default is 5 or 6).
const BAM_LEVEL: i32 = 6;
/// Offset of FLAG in a BAM record, after its length.
const FLAG_OFFSET: usize = 4 + 14;

/// What a run found: records read and written, duplicates flagged, and the counts of
/// each library as the metrics file reports them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MarkdupSummary {
    /// Records in the input.
    pub records: u64,
    /// Records flagged as duplicates.
    pub duplicates: u64,
    /// Records written.
    pub written: u64,
    /// Runs of read ends written beside the output because they did not fit `--memory`.
    pub spilled_runs: usize,
    /// The counts of each library (Picard's `DuplicationMetrics` rows), by name.
    pub libraries: BTreeMap<String, LibraryCounts>,
}

/// The input opened as a memory-mapped BAM: a BAM file as it is, a CRAM decoded into a
/// temporary indexed BAM.
enum Opened {
    Bam(Box<(BamFile, Option<BamIndex>)>),
    Decoded(seqfarm_io::bam::BamSet),
}

impl Opened {
    /// The BAM and its index, if any.
    fn bam(&self) -> anyhow::Result<(&BamFile, Option<&BamIndex>)> {
        match self {
            Opened::Bam(opened) => Ok((&opened.0, opened.1.as_ref())),
            Opened::Decoded(set) => set
                .files()
                .first()
                .map(|(bam, index)| (bam, Some(index)))
                .ok_or_else(|| anyhow::anyhow!("the CRAM decoded into nothing")),
        }
    }
}

/// Opens `input`: a BAM file or a CRAM (standard input and SAM are refused: the input is
/// read twice).
fn open_input(input: &Path, options: &MarkdupOptions) -> anyhow::Result<Opened> {
    let read = ReadOptions {
        reference: options.reference.as_deref(),
        fields: Fields::All,
        threads: options.farm.workers(),
        ranges: None,
    };
    match AlignmentFile::open(input, &read)? {
        AlignmentFile::Bam(bam) => Ok(Opened::Bam(Box::new((bam.bam, bam.index)))),
        AlignmentFile::Cram { .. } => Ok(Opened::Decoded(
            RegionInputs::sniff(std::slice::from_ref(&options.input)).open(&read)?,
        )),
        AlignmentFile::BamStream(_) => anyhow::bail!(
            "{}: markdup reads its input twice: give a BAM file, not standard input",
            input.display()
        ),
        AlignmentFile::Sam(_) => anyhow::bail!(
            "{}: SAM text: give a coordinate-sorted BAM (samtools sort -o x.bam)",
            input.display()
        ),
    }
}

/// The index written beside `output` (none for standard output) for references of
/// `lengths` (the longest chooses BAI or CSI).
fn index_path(output: &Path, lengths: &[u64]) -> Option<PathBuf> {
    (output != Path::new("-")).then(|| index_beside(output, lengths))
}

/// Runs `seqfarm markdup`.
pub fn run(options: &MarkdupOptions) -> anyhow::Result<MarkdupSummary> {
    let inputs = with_bam_indexes(std::slice::from_ref(&options.input));
    let opened = open_input(&options.input, options)?;
    let lengths = reference_lengths(opened.bam()?.0);
    let outputs = MarkdupOutputs::open(options, &inputs, &lengths)?;
    let mut stats = StatsFile::create(
        options.farm.stats.as_ref(),
        "markdup",
        options.farm.workers(),
        EXISTING_OUTPUT.overwrite(options.force),
        &inputs,
    )?;
    let mut farm_stats = FarmStats::default();
    let (files, summary) = mark_opened(&opened, &options.input, options, outputs, &mut farm_stats)?;
    Output::commit_together(files)?;
    stats.add(&farm_stats);
    stats.total("reads", summary.records, farm_stats.tasks);
    stats.finish()?;
    Ok(summary)
}

/// The files a duplicate marking writes, opened before any work: the BAM, its index
/// beside it (none on standard output) and the metrics file.
pub struct MarkdupOutputs {
    bam: Output,
    index: Option<Output>,
    metrics: Option<Output>,
}

impl MarkdupOutputs {
    /// Opens the outputs of `options`, none of which may be one of `inputs` or another
    /// output (the index is named after the references, of lengths `lengths`).
    pub fn open(
        options: &MarkdupOptions,
        inputs: &[PathBuf],
        lengths: &[u64],
    ) -> anyhow::Result<Self> {
        let index_file = index_path(&options.output, lengths);
        let mut named = vec![("-o", options.output.as_path())];
        if let Some(path) = &index_file {
            named.push(("the output's index", path.as_path()));
        }
        if let Some(path) = &options.metrics {
            named.push(("--metrics", path.as_path()));
        }
        for (_, path) in &named {
            refuse_input_as_output(path, inputs)?;
        }
        refuse_shared_outputs(named.iter().copied(), None, options.farm.stats.as_ref())?;
        let overwrite = EXISTING_OUTPUT.overwrite(options.force);
        let create = |path: &Option<PathBuf>| -> anyhow::Result<Option<Output>> {
            Ok(match path {
                Some(path) => Some(Output::create(path, overwrite)?),
                None => None,
            })
        };
        Ok(Self {
            bam: Output::create(&options.output, overwrite)?,
            index: create(&index_file)?,
            metrics: create(&options.metrics)?,
        })
    }
}

/// Marks the duplicates of the coordinate-sorted BAM `input` into `outputs` as `options`
/// say (its `input` and `output` name the files in messages and in the metrics); returns
/// the written files, to be committed by the caller with the rest of its run, and what
/// was found. The passes' farm statistics are added to `farm_stats`.
pub fn mark(
    input: &Path,
    options: &MarkdupOptions,
    outputs: MarkdupOutputs,
    farm_stats: &mut FarmStats,
) -> anyhow::Result<(Vec<Output>, MarkdupSummary)> {
    let opened = open_input(input, options)?;
    mark_opened(&opened, input, options, outputs, farm_stats)
}

/// [`mark`] of the input `opened` from `input`.
fn mark_opened(
    opened: &Opened,
    input: &Path,
    options: &MarkdupOptions,
    outputs: MarkdupOutputs,
    farm_stats: &mut FarmStats,
) -> anyhow::Result<(Vec<Output>, MarkdupSummary)> {
    let config = options.farm.config();
    let (bam, bam_index) = opened.bam()?;
    let MarkdupOutputs {
        bam: mut out,
        index: mut index_out,
        metrics: mut metrics_out,
    } = outputs;

    let header = header::parse(bam.header(), input)?;
    let rules = MarkdupRules {
        optical_distance: options.optical_distance,
    };
    let runs = Box::new(ScratchRuns::new(&options.output));
    let mut finder = DuplicateFinder::new(header.libraries.clone(), rules, options.memory, runs);
    let mut order = SortCheck::new(input, bam.header());
    let ends = EndsPass {
        libraries: &header.libraries,
    };
    let pass = scan::for_each_item(bam, bam_index, input, &config, &ends, |item, arena| {
        let name = &arena[item.name];
        order.check(item.ref_id, item.pos, name)?;
        finder
            .add_made(item.flag, item.ref_id, name, item.ends)
            .map_err(Into::into)
    })?;
    farm_stats.merge(&pass);
    let records = finder.records();
    let spilled_runs = finder.runs();
    let mut decisions = finder.finish()?;

    let libraries = &header.libraries;
    let mut counts = vec![LibraryCounts::default(); libraries.names().len()];
    let mut cursor = decisions.cursor()?;
    let mut summary = MarkdupSummary {
        records,
        spilled_runs,
        ..MarkdupSummary::default()
    };
    let header_blocks = bam_header_blocks(bam.header(), BAM_LEVEL);
    out.put(&header_blocks)?;
    let lengths = reference_lengths(bam);
    let out_path = options.output.clone();
    let index = {
        let mut writer = IndexedBamWriter::new(
            &mut out,
            &out_path,
            header_blocks.len() as u64,
            BAM_LEVEL,
            config.workers,
            &lengths,
        )?;
        let copy = CopyPass { libraries };
        let pass = scan::for_each_item(bam, bam_index, input, &config, &copy, |item, arena| {
            let duplicate = cursor.next_is_duplicate()?;
            counts[usize::from(item.library)].count(item.flag, duplicate);
            if duplicate {
                summary.duplicates += 1;
                if options.remove_duplicates {
                    return Ok(());
                }
            }
            let flag = if duplicate {
                item.flag | flags::DUPLICATE
            } else {
                item.flag & !flags::DUPLICATE
            };
            let record = &mut arena[item.bytes];
            record[FLAG_OFFSET..FLAG_OFFSET + 2].copy_from_slice(&flag.to_le_bytes());
            writer.write_record(record)?;
            summary.written += 1;
            Ok(())
        })?;
        farm_stats.merge(&pass);
        writer.finish()?
    };
    let mut outputs = vec![out];
    if let Some(mut index_out) = index_out.take() {
        index
            .write(&mut index_out)
            .map_err(|e| index_out.error(e))?;
        outputs.push(index_out);
    }
    decisions.add_optical(&mut counts);
    summary.libraries = library_table(libraries, &counts);
    if let Some(mut file) = metrics_out.take() {
        let lines = [metrics_command_line(options)];
        file.put(metrics::render(&lines, &summary.libraries, decisions.set_sizes()).as_bytes())?;
        outputs.push(file);
    }
    Ok((outputs, summary))
}

/// The lengths of a BAM's references, in order.
fn reference_lengths(bam: &BamFile) -> Vec<u64> {
    bam.header()
        .references
        .iter()
        .map(|r| u64::from(r.length))
        .collect()
}

/// The metrics file's first header: what ran, in Picard's `NAME=value` spelling.
fn metrics_command_line(options: &MarkdupOptions) -> String {
    let metrics = options
        .metrics
        .as_deref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    format!(
        "seqfarm markdup (Picard MarkDuplicates rules) INPUT=[{}] OUTPUT={} METRICS_FILE={} \
         REMOVE_DUPLICATES={} OPTICAL_DUPLICATE_PIXEL_DISTANCE={} \
         DUPLICATE_SCORING_STRATEGY=SUM_OF_BASE_QUALITIES VERSION={}",
        options.input.display(),
        options.output.display(),
        metrics,
        options.remove_duplicates,
        options.optical_distance,
        env!("CARGO_PKG_VERSION"),
    )
}

#[cfg(test)]
mod tests;
