//! `seqfarm align` in parts, for a job spread over several machines: a planner cuts the
//! reads into parts that start and end at the command's own task boundaries, a worker
//! aligns one part on its own farm, and the parts' bytes written in input order between
//! the header and the trailer are the command's output, byte for byte (each task's BAM
//! records are compressed into BGZF blocks of their own, whatever runs them).

pub mod ranges;
pub mod sorted;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use seqfarm_farm::{FarmConfig, WorkerInfo};
use seqfarm_fmindex::FmIndex;
use seqfarm_io::bgzf_writer::EOF_MARKER;
use seqfarm_io::input::Input;
use seqfarm_io::output::Output;
use seqfarm_io::reads::{InputChunk, InputChunker};

use crate::cmd::align::{
    header_bytes, summary_text, AlignOptions, AlignTask, AlignedTimes, ChunkWorker, MetricsCounts,
    SummaryCounts, SummaryStyle, HEADER_ONLY, TASK_LIMITS,
};
use crate::common::{farm_error, worker_threads};
use crate::numa::open_unplaced;

/// Where a part's records of one file are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartReads {
    /// The records themselves, read by the planner (a file it cannot have workers read
    /// at an offset: standard input, bzip2).
    Carried(Vec<u8>),
    /// In the file: `skip` records after the record at `offset` of its (inflated)
    /// stream, a gzip file entered at its access point `point`.
    InFile {
        offset: u64,
        point: Option<usize>,
        skip: u64,
    },
}

/// One file's share of a part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartFile {
    /// The file, as named on the command line.
    pub path: PathBuf,
    /// Where its records are.
    pub reads: PartReads,
}

/// A run of consecutive tasks of one read source (one file, or the two files of pairs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlignPart {
    /// The source's number, in the order the command reads its sources.
    pub source: usize,
    /// The part's first fragment's 0-based number in the whole input (names reads that
    /// have none).
    pub first_fragment: u64,
    /// Records of each file before the part (numbers the records in messages).
    pub records_before: [u64; 2],
    /// Fragments (reads or pairs) in the part.
    pub fragments: u64,
    /// The part's share of each file of the source.
    pub files: Vec<PartFile>,
}

/// One task as the planner saw it.
struct PlannedTask {
    source: usize,
    first_fragment: u64,
    first_record: [u64; 2],
    fragments: u64,
    /// Stream offsets where the task starts in each file.
    starts: [u64; 2],
    paths: [PathBuf; 2],
    files: usize,
    data: Option<[Vec<u8>; 2]>,
}

/// Fails on what a run in parts cannot do: `--un`/`--al`/`--met` files, `--markdup`
/// and `--plot`.
pub fn refuse_in_parts(options: &AlignOptions) -> anyhow::Result<()> {
    if !options.read_files.is_empty() || options.met_file.is_some() || options.met_stderr {
        option_error!("--un/--al/--met options are not available when aligning in parts");
    }
    if options.markdup {
        option_error!("--markdup is not available when aligning in parts: mark the sorted output");
    }
    super::refuse_plot_and_stats(options.plot.as_ref(), &options.farm)
}

/// Cuts a command line's reads into [`AlignPart`]s of `tasks_per_part` tasks of the
/// command (fewer at the end of a source).
pub struct AlignPlanner {
    chunker: InputChunker,
    chunk: InputChunk,
    tasks_per_part: u64,
    pending: Option<PlannedTask>,
}

impl AlignPlanner {
    /// A planner over the reads of the run `options` ask for.
    pub fn new(options: &AlignOptions, tasks_per_part: usize) -> anyhow::Result<Self> {
        refuse_in_parts(options)?;
        if options.sort {
            option_error!(
                "--sort is not available with reads the planner reads (standard input, \
                 bzip2, or gzip that could not be indexed): give files the workers can read"
            );
        }
        Ok(Self {
            chunker: InputChunker::new(&options.reads, TASK_LIMITS)?,
            chunk: InputChunk::default(),
            tasks_per_part: tasks_per_part.max(1) as u64,
            pending: None,
        })
    }

    /// The next task of the input, `None` at its end.
    fn next_task(&mut self) -> anyhow::Result<Option<PlannedTask>> {
        if let Some(task) = self.pending.take() {
            return Ok(Some(task));
        }
        if !self.chunker.fill(&mut self.chunk)? {
            return Ok(None);
        }
        let Some(span) = self.chunker.last_span() else {
            anyhow::bail!(
                "reads given on the command line (-c), as k-mers (-F) or in BAM (-b) \
                 cannot be cut into parts: give files of reads"
            );
        };
        let chunk = &mut self.chunk;
        let files = if chunk.layout == seqfarm_io::reads::Layout::TwoFiles {
            2
        } else {
            1
        };
        let streamed = chunk.paths[..files].iter().any(|p| p == Path::new("-"));
        let data = (span.compressed || streamed).then(|| {
            [
                std::mem::take(&mut chunk.data[0]),
                std::mem::take(&mut chunk.data[1]),
            ]
        });
        Ok(Some(PlannedTask {
            source: span.source,
            first_fragment: chunk.first_fragment,
            first_record: chunk.first_record,
            fragments: chunk.fragments as u64,
            starts: span.start,
            paths: chunk.paths.clone(),
            files,
            data,
        }))
    }

    /// The next part, `None` when the input is done.
    pub fn next_part(&mut self) -> anyhow::Result<Option<AlignPart>> {
        let Some(first) = self.next_task()? else {
            return Ok(None);
        };
        let mut part = AlignPart {
            source: first.source,
            first_fragment: first.first_fragment,
            records_before: [first.first_record[0] - 1, first.first_record[1] - 1],
            fragments: 0,
            files: (0..first.files)
                .map(|i| PartFile {
                    path: first.paths[i].clone(),
                    reads: match first.data {
                        Some(_) => PartReads::Carried(Vec::new()),
                        None => PartReads::InFile {
                            offset: first.starts[i],
                            point: None,
                            skip: 0,
                        },
                    },
                })
                .collect(),
        };
        let mut tasks = 0;
        let mut next = Some(first);
        while let Some(mut task) = next.take() {
            if task.source != part.source || tasks == self.tasks_per_part {
                self.pending = Some(task);
                break;
            }
            part.fragments += task.fragments;
            tasks += 1;
            for (i, file) in part.files.iter_mut().enumerate() {
                if let (PartReads::Carried(data), Some(task_data)) =
                    (&mut file.reads, task.data.as_mut())
                {
                    data.append(&mut task_data[i]);
                }
            }
            next = self.next_task()?;
        }
        Ok(Some(part))
    }
}

/// What aligning a part gives: the output bytes of its tasks in order, and the counts
/// of the summary (see [`align_summary`]).
pub struct AlignedPart {
    /// BGZF blocks (BAM) or SAM text.
    pub out: Vec<u8>,
    /// The summary's counts, in [`counts_to_vec`]'s order.
    pub counts: Vec<u64>,
}

/// Indexes loaded by this process, by path: loaded (memory-mapped) once, shared by
/// every part aligned here.
static INDEXES: Mutex<Option<HashMap<PathBuf, Arc<FmIndex>>>> = Mutex::new(None);

/// The index of `options` (`-x`), loaded once per process as the command loads it: read
/// into memory (huge pages: its searches read it at random) on every core (the process's
/// other parts wait for it), or memory-mapped with `--mm` or when the memory available
/// is under twice its size or unknown (the worker processes of a machine then share the
/// file's pages).
fn cached_index(options: &AlignOptions) -> anyhow::Result<Arc<FmIndex>> {
    options.check_index_exists()?;
    let path = options.index_file();
    let mut cache = INDEXES.lock().unwrap_or_else(|e| e.into_inner());
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some(index) = cache.get(&path) {
        return Ok(index.clone());
    }
    let asked = options.index_load(
        true,
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    let (index, _) = open_unplaced(&path, asked)
        .with_context(|| format!("cannot load the index {}", path.display()))?;
    let index = Arc::new(index);
    cache.insert(path, index.clone());
    Ok(index)
}

/// Aligns `part` of the run `options` ask for on `threads` workers (`None`: one
/// per core), the index loaded once per process.
pub fn align_part(
    options: &AlignOptions,
    part: &AlignPart,
    threads: Option<usize>,
) -> anyhow::Result<AlignedPart> {
    run_part(options, part, threads, false)
}

/// [`align_part`]; with `sorting`, the part's tasks' BAM records uncompressed, each
/// task's sorted by coordinate.
fn run_part(
    options: &AlignOptions,
    part: &AlignPart,
    threads: Option<usize>,
    sorting: bool,
) -> anyhow::Result<AlignedPart> {
    let mut sources = options.reads.clone();
    sources.skip = 0;
    sources.upto = Some(part.fragments);
    let index = cached_index(options)?;
    let header = options.header(&index, "")?;
    let mut streams = part
        .files
        .iter()
        .map(|file| ranges::part_stream(options, file))
        .collect::<anyhow::Result<Vec<_>>>()?
        .into_iter();
    // Named as on the command line, for messages.
    let opener = Box::new(move |path: &Path| match streams.next() {
        Some(stream) => Input::from_reader(path, stream),
        None => Err(seqfarm_io::Error::record(
            path,
            0,
            "a part names fewer files than its source",
        )),
    });
    let mut chunker = InputChunker::new(&sources, TASK_LIMITS)?.part(
        part.source,
        opener,
        part.first_fragment,
        part.records_before,
    )?;
    let mut emitter = |task: &mut AlignTask| task.refill(&mut chunker);
    let format = options.chunk_format(&header, Default::default(), sorting, false);
    let (format, index) = (&format, &*index);
    let make_worker = |_: WorkerInfo| -> anyhow::Result<_> {
        let mut worker = ChunkWorker::new(index, options.params.clone())?;
        Ok(move |task: &mut AlignTask| worker.process(format, task))
    };
    let mut out = Vec::new();
    let mut totals = MetricsCounts::default();
    let mut collector = |task: &mut AlignTask| -> anyhow::Result<()> {
        if let Some(e) = task.error.take() {
            return Err(e.into());
        }
        out.extend_from_slice(&task.out);
        totals += task.counts;
        Ok(())
    };
    let config = FarmConfig::new(worker_threads(threads));
    seqfarm_farm::run(
        &config,
        AlignTask::default,
        &mut emitter,
        make_worker,
        &mut collector,
    )
    .map_err(farm_error)?;
    Ok(AlignedPart {
        out,
        counts: counts_to_vec(&totals.summary),
    })
}

/// Opens the output file of the run `options` ask for (its `-S`/`-o` file), as the
/// command opens it before any work: never one of its inputs (the reads, the index) nor
/// another of its outputs, an existing file replaced once the output is committed (as
/// bowtie2 replaces it), written through a temporary file beside it. The caller writes
/// the header, the parts' bytes in order and the trailer, then commits it.
pub fn align_output(options: &AlignOptions) -> anyhow::Result<Output> {
    options.open_main_output()
}

/// The output's first bytes for the run `options` ask for: the header, BGZF-compressed
/// for BAM, with `command_line` in `@PG CL:` (see [`crate::cmd::align::command_line`]).
pub fn align_header(options: &AlignOptions, command_line: &str) -> anyhow::Result<Vec<u8>> {
    // The header needs the contigs' names and lengths alone: the client that writes it
    // neither reads the whole index nor keeps it.
    options.check_index_exists()?;
    let path = options.index_file();
    let index = FmIndex::open(&path, HEADER_ONLY)
        .with_context(|| format!("cannot load the index {}", path.display()))?;
    let header = options.header(&index, command_line)?;
    Ok(header_bytes(&header, options.style.bam))
}

/// The output's last bytes: BGZF's end-of-file block for BAM, nothing for SAM.
pub fn align_trailer(options: &AlignOptions) -> Vec<u8> {
    if options.style.bam {
        EOF_MARKER.to_vec()
    } else {
        Vec::new()
    }
}

/// The summary bowtie2 prints on standard error, from the parts' counts added up.
pub fn align_summary(options: &AlignOptions, counts: &[u64]) -> anyhow::Result<String> {
    let style = SummaryStyle::for_pairing(&options.pairing);
    Ok(summary_text(&counts_from_vec(counts)?, style))
}

/// The summary's counts as a flat list (added up element by element across parts).
pub fn counts_to_vec(c: &SummaryCounts) -> Vec<u64> {
    let times = |t: &AlignedTimes| [t.zero, t.once, t.more];
    let mut v = Vec::with_capacity(10);
    v.extend(times(&c.unpaired));
    v.extend(times(&c.concordant));
    v.push(c.discordant);
    v.extend(times(&c.mates));
    v
}

/// [`counts_to_vec`] undone.
pub fn counts_from_vec(v: &[u64]) -> anyhow::Result<SummaryCounts> {
    anyhow::ensure!(
        v.len() == 10,
        "alignment counts: 10 numbers expected, not {}",
        v.len()
    );
    let times = |t: &[u64]| AlignedTimes {
        zero: t[0],
        once: t[1],
        more: t[2],
    };
    Ok(SummaryCounts {
        unpaired: times(&v[0..3]),
        concordant: times(&v[3..6]),
        discordant: v[6],
        mates: times(&v[7..10]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_round_trip() {
        let v: Vec<u64> = (1..=10).collect();
        assert_eq!(counts_to_vec(&counts_from_vec(&v).unwrap()), v);
        assert!(counts_from_vec(&v[..9]).is_err());
    }
}
