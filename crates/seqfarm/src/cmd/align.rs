//! `seqfarm align`: single-end and paired-end reads against an FM-index, bowtie2's
//! scoring and options, on a farm.
//!
//! The emitter cuts the read files into chunks of whole reads or whole pairs at record
//! boundaries; each worker parses its chunk, aligns it ([`seqfarm_align::Aligner`]:
//! reads one by one, pairs together) and formats the records (SAM text, or BAM
//! compressed into BGZF blocks) and the `--un`/`--al` reads into the task's own buffers;
//! the collector writes the buffers in input order. With `--sort` the workers leave the
//! BAM records uncompressed and sort their own batch by coordinate, and the collector
//! hands the sorted batches to a
//! [`seqfarm_io::bam_sort::BamSorter`], which merges them into sorted runs, spilled beside the output when
//! its memory is full and, once every read is aligned, merges them into the output
//! (compressed on the workers' threads) and writes the index. A bad record becomes an error stored in its task, which
//! the collector reports in input order, so the first bad record in the file is the one
//! named, at any thread count.

mod header;
mod index_check;
mod marked;
mod mate_files;
mod metrics;
mod options;
mod outputs;
pub(crate) use self::outputs::{peek_contig_lengths, HEADER_ONLY};
mod records;
mod summary;
mod terminal;
#[cfg(test)]
mod tests;
mod worker;

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::Context;
use seqfarm_farm::{FarmConfig, Fill, WorkerInfo};
use seqfarm_fmindex::FmIndex;
use seqfarm_io::bam_sort::{index_beside, BamSorter};
use seqfarm_io::bam_writer::IndexedBamWriter;
use seqfarm_io::bgzf_writer::EOF_MARKER;
use seqfarm_io::output::{refuse_input_as_output, ExistingOutput, Output};
use seqfarm_io::reads::{ChunkLimits, InputChunk, InputChunker};
use seqfarm_plot::AlignTally;

pub use self::header::command_line;
pub(crate) use self::header::header_bytes;
use self::index_check::{check_first_bytes, IndexCheck};
use self::marked::{MarkdupStep, SCRATCH_LEVEL};
use self::mate_files::{ReadFileBuffers, ReadFiles};
pub use self::mate_files::{ReadFileCompression, ReadFileKind, ReadFileSpec, ReadRouting};
pub(crate) use self::metrics::MetricsCounts;
use self::metrics::MetricsReporter;
pub use self::options::AlignOptions;
use self::outputs::read_file_paths;
pub use self::records::{OptionalFields, RecordStyle, ScoreRange};
use self::summary::write_summary;
pub use self::summary::{summary_text, AlignedTimes, SummaryCounts, SummaryStyle};
use self::terminal::{input_progress, PhaseTimer};
pub use self::worker::ChunkWorker;
use crate::common::farm_error;
use crate::farm_stats::StatsFile;
use crate::numa::PlacedIndex;
use crate::plot_file::PlotFile;

/// Reads per task: large enough to amortise the task hand-over and fill the SIMD
/// extension groups, small enough that every worker has several in flight.
const READS_PER_TASK: usize = 1024;
/// How the emitter cuts the reads into tasks (the command's and its parts' alike).
pub(crate) const TASK_LIMITS: ChunkLimits = ChunkLimits {
    max_records: READS_PER_TASK,
    max_bytes: 4 << 20,
};
/// BGZF compression level of BAM output (htslib's default).
pub(crate) const BAM_LEVEL: i32 = 6;
/// Existing output files are replaced, as bowtie2 replaces its `-S` file, its `--un*`
/// and `--al*` read files and its `--met-file`; so are `--sort`'s BAM and index (as
/// `samtools sort -o` and `samtools index` replace theirs) and `--plot` and `--stats`.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;

/// A farm task: a chunk of reads or pairs in; records, read-file bytes and counts (or
/// the first bad record's error) out.
#[derive(Default)]
pub struct AlignTask {
    /// The reads.
    pub chunk: InputChunk,
    /// Their records.
    pub out: Vec<u8>,
    /// Their counts.
    pub(crate) counts: MetricsCounts,
    /// Their records' MAPQ and insert sizes.
    pub(crate) tally: AlignTally,
    read_files: ReadFileBuffers,
    /// The first bad read record.
    pub error: Option<seqfarm_io::Error>,
}

impl AlignTask {
    /// Empties the outputs before the task is filled again.
    pub fn clear(&mut self) {
        self.out.clear();
        self.error = None;
        self.counts = MetricsCounts::default();
        self.tally.clear();
        self.read_files.clear();
    }

    /// The emitter's step: empties the task and fills it with the chunker's next chunk.
    pub fn refill(&mut self, chunker: &mut InputChunker) -> anyhow::Result<Fill> {
        self.clear();
        Ok(if chunker.fill(&mut self.chunk)? {
            Fill::Task
        } else {
            Fill::End
        })
    }
}

/// What a run's summary reports: its counts, and which blocks the text has.
#[derive(Debug, Clone, Copy)]
pub struct AlignSummary {
    /// The counts.
    pub counts: SummaryCounts,
    /// The blocks of the text.
    pub style: SummaryStyle,
}

impl AlignSummary {
    /// The summary text, as `seqfarm align` (and bowtie2) prints it.
    pub fn text(&self) -> String {
        summary_text(&self.counts, self.style)
    }
}

/// How an align run was asked for, beyond its options.
pub struct AlignRun<'a> {
    /// The command line the `@PG` header line names.
    pub command_line: String,
    /// An index already loaded, used instead of loading `-x`'s file.
    pub index: Option<&'a FmIndex>,
    /// Print the summary to standard error (unless `--quiet`).
    pub print_summary: bool,
}

/// Runs the align job `options` as `run` says; returns what its summary reports.
pub fn align(options: &AlignOptions, run: &AlignRun<'_>) -> anyhow::Result<AlignSummary> {
    let started = Instant::now();
    options.check()?;
    // A bad SEQFARM_SIMD fails here, before the index is loaded.
    seqfarm_core::SimdLevel::from_env()?;
    let sources = &options.reads;
    let style = &options.style;
    if !options.quiet {
        for line in &options.warnings {
            stderr_line!("{line}");
        }
    }
    let timer = PhaseTimer::new(options.time);
    let out_path = &options.output;
    // Refuse outputs that are inputs, and two outputs that are one file, before
    // loading anything.
    let index_file = options.index_file();
    let read_paths = read_file_paths(sources);
    let inputs = options.input_files(sources);
    options.check_outputs(&inputs, run.index)?;
    options.check_index_exists()?;
    let overwrite = options.overwrite();
    let plot_file = PlotFile::create(options.plot.as_ref(), overwrite, &inputs)?;
    let mut plot_tally = plot_file.as_ref().map(|_| AlignTally::default());
    let mut output = match options.markdup {
        true => Output::scratch(out_path, "sorted.bam")?,
        false => Output::create(out_path, overwrite)?,
    };
    let mut read_files = ReadFiles::create(&options.read_files, overwrite)?;
    let routing = read_files.routing();
    let metrics_file = options
        .met_file
        .as_ref()
        .map(|p| Output::create(p, overwrite))
        .transpose()?;
    let metrics_echo = options
        .met_stderr
        .then(|| Box::new(crate::stderr::LossyStderr) as Box<dyn std::io::Write + Send>);
    let mut metrics = MetricsReporter::new(
        metrics_file,
        metrics_echo,
        Duration::from_secs(options.met_interval),
    );
    let workers = crate::common::worker_threads(options.farm.threads);
    let mut stats_file = StatsFile::create(
        options.farm.stats.as_ref(),
        "align",
        workers,
        overwrite,
        &inputs,
    )?;
    // A small index has its section checksums verified as it is loaded; a large one
    // is loaded without reading it up front (the header and structure are checked at
    // once) and verified by an `IndexCheck` beside the alignment.
    let index_len = std::fs::metadata(&index_file).map_or(0, |m| m.len());
    let verify_first = index_len <= check_first_bytes();
    // Read by as many threads as will align.
    let load = options.index_load(verify_first, workers);
    let placed = match run.index {
        Some(_) => None,
        None => Some(
            PlacedIndex::load(&index_file, options.numa, workers, load)
                .with_context(|| format!("cannot load the index {}", index_file.display()))?,
        ),
    };
    let index_for = |worker: usize| match (&placed, run.index) {
        (Some(placed), _) => placed.for_worker(worker),
        (None, Some(index)) => index,
        (None, None) => unreachable!("an index is loaded or given"),
    };
    let index = index_for(0);
    let check_beside = !verify_first && placed.is_some();
    timer.phase("Time loading reference", started);
    timer.phase("Time loading forward index", started);
    // The index holds both strands: the mirror index bowtie2 loads is the same one.
    timer.phase("Time loading mirror index", started);
    let search_started = Instant::now();
    let header = options.header(index, &run.command_line)?;
    let header_blocks = header_bytes(&header, style.bam);
    output.put(&header_blocks)?;
    let reference_lengths: Vec<u64> = header.references.iter().map(|r| r.len).collect();
    let mut markdup = None;
    let mut sorted = if options.sort {
        let index_output = if options.markdup {
            markdup = Some(MarkdupStep::open(options, &inputs, &reference_lengths)?);
            Output::scratch_at(index_beside(output.path(), &reference_lengths))?
        } else {
            let index_out = index_beside(out_path, &reference_lengths);
            refuse_input_as_output(&index_out, &inputs)?;
            Output::create(&index_out, overwrite)?
        };
        let sorter = BamSorter::new(out_path, options.sort_memory as usize);
        Some((sorter, index_output))
    } else {
        None
    };
    let config = FarmConfig::new(workers)
        .pin(options.farm.pin)
        .placement(placed.as_ref().and_then(|p| p.placement().cloned()))
        .timed(options.farm.stats.is_some());
    let mut chunker = InputChunker::new(sources, TASK_LIMITS)?;
    let progress_paths = read_file_paths(sources);
    let bar = input_progress(&progress_paths, sources.format);
    let mut totals = MetricsCounts::default();
    let mut emitter = |task: &mut AlignTask| task.refill(&mut chunker);
    let format = options.chunk_format(&header, routing, sorted.is_some(), plot_tally.is_some());
    let make_worker = |info: WorkerInfo| -> Result<_, anyhow::Error> {
        let mut worker = ChunkWorker::new(index_for(info.index), options.params.clone())?;
        let format = &format;
        Ok(move |task: &mut AlignTask| worker.process(format, task))
    };
    let mut input_bytes = 0u64;
    let mut fragments = 0u64;
    let stop_check = AtomicBool::new(false);
    let report = std::thread::scope(|scope| -> anyhow::Result<_> {
        let mut verification = IndexCheck::start(scope, index, &stop_check, check_beside);
        let mut collector = |task: &mut AlignTask| -> Result<(), anyhow::Error> {
            if let Some(e) = task.error.take() {
                return Err(e.into());
            }
            verification.poll()?;
            match &mut sorted {
                Some((sorter, _)) => sorter.push(&task.out)?,
                None => output.put(&task.out)?,
            }
            read_files.write(&mut task.read_files)?;
            totals += task.counts;
            if let Some(tally) = plot_tally.as_mut() {
                *tally += &task.tally;
            }
            metrics.update(&totals)?;
            let bytes = task.chunk.data.iter().map(Vec::len).sum::<usize>() as u64;
            bar.advance(bytes, task.chunk.fragments as u64);
            input_bytes += bytes;
            fragments += task.chunk.fragments as u64;
            Ok(())
        };
        let report = seqfarm_farm::run(
            &config,
            AlignTask::default,
            &mut emitter,
            make_worker,
            &mut collector,
        )
        .map_err(farm_error)?;
        verification.finish()?;
        Ok(report)
    })?;
    bar.finish();
    let picture = match &plot_tally {
        Some(tally) => {
            let paired = totals.summary.pairs() > 0;
            Some(tally.draw(&read_paths, &options.index, paired)?)
        }
        None => None,
    };
    // Every file of the run moves into place as one set, the alignments first.
    let mut marking_stats = seqfarm_farm::FarmStats::default();
    let mut outputs = match sorted {
        Some((sorter, mut index_output)) => {
            let writer = IndexedBamWriter::new(
                &mut output,
                out_path,
                header_blocks.len() as u64,
                if markdup.is_some() {
                    SCRATCH_LEVEL
                } else {
                    BAM_LEVEL
                },
                workers,
                &reference_lengths,
            )?
            // Blocks cut by genomic range: the bytes a cluster writes range by range.
            .range_blocks();
            let index = sorter.finish(writer)?;
            index
                .write(&mut index_output)
                .map_err(|e| index_output.error(e))?;
            match markdup.take() {
                Some(step) => step.mark(output, index_output, &mut marking_stats)?,
                None => vec![output, index_output],
            }
        }
        None => {
            if style.bam {
                output.put(&EOF_MARKER)?;
            }
            vec![output]
        }
    };
    outputs.extend(read_files.finish()?);
    if let (Some(file), Some(svg)) = (plot_file, picture) {
        outputs.push(file.written(&svg)?);
    }
    outputs.extend(metrics.last_line(&totals)?);
    Output::commit_together(outputs)?;
    stats_file.add(&report.stats);
    stats_file.add(&marking_stats);
    if let Some(placed) = &placed {
        stats_file.numa(placed.summary());
    }
    stats_file.total("reads", fragments, report.tasks());
    stats_file.total("bytes", input_bytes, report.tasks());
    stats_file.finish()?;
    timer.phase("Multiseed full-index search", search_started);
    let summary_style = SummaryStyle::for_pairing(&options.pairing);
    if !options.quiet && run.print_summary {
        write_summary(
            &mut crate::stderr::LossyStderr,
            &totals.summary,
            summary_style,
        )?;
    }
    timer.phase("Time searching", search_started);
    timer.phase("Overall time", started);
    Ok(AlignSummary {
        counts: totals.summary,
        style: summary_style,
    })
}
