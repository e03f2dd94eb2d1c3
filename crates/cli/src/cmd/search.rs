//! `seqfarm search`: exhaustive Smith-Waterman search of a protein (or DNA) database.
//!
//! Two farms run one after the other:
//!
//! 1. **scan**: the emitter cuts the database into chunks of whole records (about 1 MB,
//!    FASTA or gzipped FASTA, streamed, never loaded whole) without parsing them, and
//!    records longer than a chunk into overlapping pieces; each worker parses and encodes
//!    its chunk, cuts long records into overlapping fragments (so that every SIMD lane
//!    holds an equally long sequence, see [`records`]), packs them into lane streams once
//!    and scores every query (on both strands, for DNA) against them with its own
//!    [`Searcher`] (or, for a database of few chunks, one group of the queries, each
//!    chunk then going to one task per group, see [`QueryGroups`]); the collector,
//!    which receives chunks in database order, joins the pieces of a record and writes
//!    the scores (`--scores-only`) or keeps each query's best hits, ties broken by
//!    database order so the result does not depend on the thread count;
//! 2. **traceback** ([`traceback`]): each reported alignment is aligned again with
//!    traceback (in parallel, in report order) and written with E-values computed for
//!    the whole database, whose size is known only once the scan is over.

mod alphabet;
pub mod hits;
pub mod records;
pub mod traceback;

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Result};
use seqfarm_farm::Fill;
use seqfarm_io::blast::{OutputFormat, RunInfo};
use seqfarm_io::fasta::{FastaReader, FastaRecord};
use seqfarm_io::fasta_chunks::{FastaChunk, FastaChunker, ResidueMap};
use seqfarm_io::input::regular_file_size;
use seqfarm_io::output::{refuse_input_as_output, ExistingOutput, Output};
use seqfarm_sw::gpu::{GpuDevice, GpuKernels, GpuSearcher};
use seqfarm_sw::stats::{self, KarlinParams};
use seqfarm_sw::{Isa, PassCounts, ScoreMatrix, Scoring, Searcher, SequenceBlock, Width};

use crate::common::{farm_error, refuse_shared_outputs, Destination, FarmArgs, ForceArg};
use crate::farm_stats::StatsFile;
use crate::option_value::OptionValueError;
use crate::progress;
use hits::{better_score, cut_to_capacity, Capacity, Hit, Strand, StrandHit, TopHits};
use records::{Fragmenting, RecordBlock};
use traceback::{Reporting, Traceback};

/// Smith-Waterman database search: every query against every database sequence, with
/// SIMD across database sequences (exact scores, like parasail's `sw_*`).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Output (default): for each query, its --top best database sequences \
(hits) with an E-value of at most --evalue, best first, one line per alignment in BLAST's \
tabular format (-outfmt 6): qseqid sseqid pident length mismatch gapopen qstart qend sstart \
send evalue bitscore; other columns with --outfmt, JSON with --json. A search finds the best \
alignment of each query and subject on each strand searched, so a DNA hit has up to two \
(minus-strand ones with sstart > send, as in BLAST). With --scores-only: `qseqid sseqid \
score` for every pair (the better strand for DNA), database order, queries in file order \
for each database sequence, no cut-off. Set SEQFARM_SIMD=scalar|avx2|avx512 to force a \
kernel. --gpu scores on an NVIDIA GPU (--gpu auto: where there is one; the CUDA driver and NVRTC 13, libnvrtc.so.13, loaded \
at run time; SEQFARM_GPU=N picks GPU N): the same scores, every worker thread feeding the GPU."
)]
pub struct SearchArgs {
    /// Query sequences (FASTA; gzip recognised; - for standard input)
    pub query: PathBuf,
    /// Database sequences (FASTA; gzip recognised; streamed, any size; - for standard input)
    pub database: PathBuf,
    /// Hits (database sequences) reported per query, and every hit tied with the K-th
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = at_least_one, allow_negative_numbers = true)]
    pub top: usize,
    /// Exactly --top hits: of those tied with the K-th, the first in the database
    #[arg(long)]
    pub top_strict: bool,
    /// Report alignments with an E-value of at most X (BLAST's -evalue; not applied
    /// when the scoring has no statistics)
    #[arg(
        long,
        value_name = "X",
        default_value_t = 10.0,
        value_parser = positive_evalue,
        allow_negative_numbers = true
    )]
    pub evalue: f64,
    /// Report alignments with a raw score of at least S
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    pub min_score: Option<i32>,
    /// Alignments reported per query and subject (the best of each strand searched)
    #[arg(long, value_name = "N", value_parser = at_least_one, allow_negative_numbers = true)]
    pub max_hsps: Option<usize>,
    /// Strands of the database searched with --dna: both (as blastn), plus or minus
    #[arg(long, value_enum, requires = "dna")]
    pub strand: Option<StrandChoice>,
    /// Output columns, as BLAST's -outfmt: "6" (tabular), "7" (tabular with comment
    /// lines), "6 qseqid sseqid evalue ...", "7 std qlen slen"
    #[arg(long, value_name = "FORMAT", conflicts_with = "scores_only")]
    pub outfmt: Option<String>,
    /// Write one JSON document (the --outfmt columns, typed) instead of tabular lines
    #[arg(long, conflicts_with = "scores_only")]
    pub json: bool,
    /// Write `qseqid sseqid score` for every pair instead of the top hits
    #[arg(long)]
    pub scores_only: bool,
    /// Output file (- for standard output)
    #[arg(short = 'o', long, value_name = "FILE", default_value = "-")]
    pub output: PathBuf,
    /// Substitution matrix: BLOSUM45/50/62/80/90, PAM30/70/250, or an NCBI-format file
    #[arg(long, value_name = "NAME|FILE", default_value = "BLOSUM62")]
    pub matrix: String,
    /// Nucleotide scoring with --match/--mismatch instead of a matrix
    #[arg(long, conflicts_with = "matrix")]
    pub dna: bool,
    /// Score of a nucleotide match (with --dna)
    #[arg(
        long = "match",
        value_name = "SCORE",
        default_value_t = 2,
        requires = "dna",
        allow_negative_numbers = true
    )]
    pub match_score: i32,
    /// Score of a nucleotide mismatch, usually negative (with --dna)
    #[arg(long, value_name = "SCORE", default_value_t = -3, allow_negative_numbers = true, requires = "dna")]
    pub mismatch: i32,
    /// Gap open cost: a gap of length k costs open + k * extend [default: BLAST's for the
    /// matrix (11 for BLOSUM62, 9 for PAM30...), 5 with --dna]
    #[arg(long, value_name = "COST", allow_negative_numbers = true)]
    pub gap_open: Option<i32>,
    /// Gap extension cost [default: BLAST's for the matrix (1 for BLOSUM62), 2 with --dna]
    #[arg(long, value_name = "COST", allow_negative_numbers = true)]
    pub gap_extend: Option<i32>,
    /// Score on an NVIDIA GPU: --gpu needs one, --gpu auto (or --gpu=auto) uses one if
    /// there is one and the CPU otherwise
    #[arg(long, value_name = "WHEN", value_enum, num_args = 0..=1, require_equals = true,
          default_missing_value = "on")]
    pub gpu: Option<GpuChoice>,
    /// Database bytes per farm task (whole records) [default: 1 MiB, 16 MiB with --gpu]
    #[arg(long, value_name = "BYTES", hide = true)]
    pub chunk_size: Option<usize>,
    #[command(flatten)]
    pub farm: FarmArgs,
    #[command(flatten)]
    pub force: ForceArg,
}

/// When `search` uses a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GpuChoice {
    /// Always: an error if no GPU can be used.
    On,
    /// When one can be used; the CPU otherwise (saying why on standard error).
    Auto,
    /// Never.
    Off,
}

/// Rewrites the arguments of `seqfarm search` (after the command's name) so that
/// `--gpu auto` (and `on`, `off`) reads as `--gpu=auto`: `--gpu` alone takes no value, so
/// that `--gpu QUERY DATABASE` keeps its positional arguments. Every other argument is
/// kept.
pub fn gpu_spelling(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut out: Vec<std::ffi::OsString> = Vec::new();
    for arg in args {
        let joins = out.last().is_some_and(|last| last == "--gpu")
            && ["on", "auto", "off"].iter().any(|value| arg == *value);
        match out.last_mut() {
            Some(last) if joins => *last = format!("--gpu={}", arg.to_string_lossy()).into(),
            _ => out.push(arg),
        }
    }
    out
}

/// The strands of a DNA database a search looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StrandChoice {
    /// Both strands.
    Both,
    /// The sequences as written.
    Plus,
    /// Their reverse complements.
    Minus,
}

impl StrandChoice {
    /// The strands, plus first.
    fn strands(self) -> &'static [Strand] {
        match self {
            StrandChoice::Both => &Strand::BOTH,
            StrandChoice::Plus => &Strand::BOTH[..1],
            StrandChoice::Minus => &Strand::BOTH[1..],
        }
    }
}

/// A count that must be at least 1.
fn at_least_one(text: &str) -> std::result::Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{text:?} is not a number of at least 1")),
    }
}

/// How the sequences' letters are checked against the scoring (see [`alphabet`]).
struct LetterCheck<'a> {
    /// Letters a custom matrix lacks, by byte; `None` for built-in scoring.
    missing: Option<[bool; 256]>,
    /// The matrix as named on the command line.
    matrix: &'a str,
    /// `--dna`.
    dna: bool,
}

impl LetterCheck<'_> {
    /// Fails on a letter the custom matrix lacks, if there is one.
    fn letters(&self, sequence: &[u8], name: &str, path: &Path) -> Result<()> {
        match &self.missing {
            Some(missing) => alphabet::check_letters(missing, sequence, name, path, self.matrix),
            None => Ok(()),
        }
    }

    /// Fails when a sample of built-in-scored sequences has the other alphabet.
    fn sample(&self, sample: &alphabet::LetterSample, path: &Path, what: &str) -> Result<()> {
        if self.missing.is_some() {
            return Ok(());
        }
        sample.check(path, what, self.dna, self.matrix)
    }
}

/// One strand of a query, as the kernel scores it.
pub(crate) struct Frame {
    /// Which strand of the database it finds (the query's reverse complement finds the
    /// minus strand).
    pub(crate) strand: Strand,
    /// The residues, encoded.
    pub(crate) codes: Vec<u8>,
    /// The residues as letters (upper case).
    pub(crate) letters: Vec<u8>,
}

/// A query, as read and encoded.
pub(crate) struct Query {
    pub(crate) name: String,
    pub(crate) description: String,
    /// The residues as read (upper case, blanks removed).
    pub(crate) residues: Vec<u8>,
    /// The strands searched.
    pub(crate) frames: Vec<Frame>,
}

impl Query {
    /// The frame finding `strand`, if it is searched.
    pub(crate) fn frame(&self, strand: Strand) -> Option<&Frame> {
        self.frames.iter().find(|f| f.strand == strand)
    }
}

/// Database totals, counted by the collector.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DatabaseSize {
    /// Sequences.
    pub sequences: u64,
    /// Residues.
    pub residues: u64,
}

/// A record's best score on one strand and the first fragment reaching it.
#[derive(Debug, Clone, Copy, Default)]
struct StrandBest {
    score: i32,
    fragment: u32,
}

/// A record of a chunk that may be reported for a query.
#[derive(Debug, Clone, Copy, Default)]
struct Candidate {
    record: u32,
    strands: [StrandBest; 2],
}

impl Candidate {
    fn score(&self) -> i32 {
        self.strands[0].score.max(self.strands[1].score)
    }
}

/// One scan task: a chunk of database records, the queries to score against it, and
/// what the worker made of it.
#[derive(Default)]
struct ScanTask {
    chunk: FastaChunk,
    /// Sequences of the chunks before this one that were left to other parts.
    skipped_before: u64,
    /// The queries scored (all of them, or one of the [`QueryGroups`]: the chunk's
    /// last task has the last queries).
    queries: Range<usize>,
    /// The chunk's records, encoded and cut into fragments.
    records: RecordBlock,
    /// `--scores-only` lines: per record, one per query of the task.
    text: String,
    /// Per query of the task, the records that may be reported, best first (every
    /// record's, for a piece of a record).
    candidates: Vec<Vec<Candidate>>,
}

/// How a scan shares the queries among the tasks of one chunk. A database of few
/// chunks would keep most workers waiting (a database under 1 MiB is one chunk, so one
/// worker), so each of its chunks is scored by one task per group of queries: contiguous
/// ranges of queries, of about equal residues. A task parses the chunk and lays it out
/// in lane streams again, so groups are made only when the database is estimated to
/// have fewer chunks than the farm wants tasks, and never hold under
/// [`QueryGroups::MIN_RESIDUES`] query residues. What is written does not depend on
/// the groups: each query sees the chunks in database order whatever its group.
#[derive(Debug, Clone, PartialEq, Eq)]
struct QueryGroups {
    ranges: Vec<Range<usize>>,
}

impl QueryGroups {
    /// Query residues (strands counted) a group holds at least: scoring them against a
    /// chunk takes several times its parsing.
    const MIN_RESIDUES: u64 = 512;
    /// Tasks per worker the groups aim at, so that the workers finish together.
    const TASKS_PER_WORKER: u64 = 4;

    /// Groups for `workers` workers over an estimated `chunks` chunks (`None`: not known,
    /// e.g. a database read from standard input, and one group), for queries of
    /// `residues` residues each (strands counted).
    fn plan(workers: usize, chunks: Option<u64>, residues: &[u64]) -> Self {
        let total: u64 = residues.iter().sum();
        let wanted = match chunks {
            Some(chunks) if workers > 1 => {
                (workers as u64 * Self::TASKS_PER_WORKER).div_ceil(chunks.max(1))
            }
            _ => 1,
        };
        let groups = wanted
            .min(total / Self::MIN_RESIDUES)
            .min(residues.len() as u64)
            .max(1);
        let mut ranges = Vec::new();
        let (mut start, mut sum, mut done) = (0, 0u64, 0u64);
        for (q, &length) in residues.iter().enumerate() {
            let left = groups - ranges.len() as u64;
            // A group ends before a query that would take it further past its share of
            // the residues still to share than it stays below it.
            if q > start && left > 1 && sum + length / 2 > (total - done) / left {
                ranges.push(start..q);
                (start, done, sum) = (q, done + sum, 0);
            }
            sum += length;
        }
        ranges.push(start..residues.len());
        Self { ranges }
    }

    /// Whether each chunk is scored by more than one task.
    fn splits(&self) -> bool {
        self.ranges.len() > 1
    }
}

/// What scores a worker's blocks: the CPU kernels, or the GPU through a stream of the
/// worker's own.
enum Scorer {
    Cpu(Box<Searcher>),
    Gpu(Box<GpuSearcher>),
}

impl Scorer {
    /// Scores every frame of every query (in query order, then frame order) against
    /// `block` and hands each frame's scores (by sequence of the block) to `fold` with
    /// the frame's number. The CPU scores one frame at a time into one buffer of
    /// `scores`; the GPU scores all frames at once, into one buffer per frame.
    fn score_frames(
        &mut self,
        queries: &[Query],
        block: &SequenceBlock,
        scores: &mut Vec<Vec<i32>>,
        mut fold: impl FnMut(usize, &[i32]),
    ) -> Result<()> {
        match self {
            Scorer::Cpu(searcher) => {
                scores.resize_with(1, Vec::new);
                searcher.load(block);
                for (f, frame) in queries.iter().flat_map(|q| &q.frames).enumerate() {
                    searcher.score(block, &frame.codes, &mut scores[0]);
                    fold(f, &scores[0]);
                }
            }
            Scorer::Gpu(searcher) => {
                searcher.score(block, scores)?;
                for (f, frame) in scores.iter().enumerate() {
                    fold(f, frame);
                }
            }
        }
        Ok(())
    }

    /// Sequences scored per lane width.
    fn counts(&self) -> PassCounts {
        match self {
            Scorer::Cpu(searcher) => searcher.counts(),
            Scorer::Gpu(searcher) => PassCounts {
                sequences_i32: searcher.rescored(),
                ..PassCounts::default()
            },
        }
    }
}

/// A worker's private state for the scan.
struct ScanWorker<'a> {
    scorer: Scorer,
    residue_map: ResidueMap,
    /// Scores by sequence of the block: one buffer (CPU) or one per query frame (GPU).
    scores: Vec<Vec<i32>>,
    /// Per query, per record: the best of each strand.
    best: Vec<Vec<[StrandBest; 2]>>,
    job: &'a SearchJob<'a>,
}

impl seqfarm_farm::Worker<ScanTask, anyhow::Error> for ScanWorker<'_> {
    fn process(&mut self, task: &mut ScanTask) -> Result<()> {
        let job = self.job;
        let check = &job.check;
        task.records.parse(
            &task.chunk,
            &self.residue_map,
            job.fragmenting,
            cut_lanes(),
            |body, name, path| check.letters(body, name, path),
        )?;
        let records = &task.records;
        let piece = task.chunk.piece.is_some();
        let queries = &job.queries[task.queries.clone()];
        self.best.resize_with(queries.len(), Vec::new);
        for best in &mut self.best {
            best.clear();
            best.resize(records.records(), Default::default());
        }
        let best = &mut self.best;
        let first_frame: usize = job.queries[..task.queries.start]
            .iter()
            .map(|q| q.frames.len())
            .sum();
        let frame_owners = &job.frame_owners[first_frame..];
        let first_query = task.queries.start;
        self.scorer
            .score_frames(queries, &records.block, &mut self.scores, |f, scores| {
                let (query, strand) = frame_owners[f];
                let best = &mut best[query - first_query];
                for (index, (&score, fragment)) in scores.iter().zip(&records.fragments).enumerate()
                {
                    let slot = &mut best[fragment.record as usize][strand as usize];
                    if score > slot.score {
                        *slot = StrandBest {
                            score,
                            fragment: index as u32,
                        };
                    }
                }
            })?;
        task.text.clear();
        task.candidates.resize_with(queries.len(), Vec::new);
        if job.args.scores_only && !piece {
            for record in 0..records.records() {
                let name = records.name(record);
                for (query, best) in queries.iter().zip(&self.best) {
                    let [plus, minus] = best[record];
                    score_line(
                        &mut task.text,
                        &query.name,
                        name,
                        plus.score.max(minus.score),
                    );
                }
            }
            return Ok(());
        }
        // --scores-only (a piece of a record, here) reports every score.
        let min_score = match job.args.min_score {
            Some(s) if !job.args.scores_only => s.max(1),
            _ => 1,
        };
        for (best, candidates) in self.best.iter().zip(&mut task.candidates) {
            candidates.clear();
            for (record, strands) in best.iter().enumerate() {
                let mut strands = *strands;
                for strand in &mut strands {
                    if strand.score < min_score {
                        *strand = StrandBest::default();
                    }
                }
                let candidate = Candidate {
                    record: record as u32,
                    strands,
                };
                if piece || candidate.score() > 0 {
                    candidates.push(candidate);
                }
            }
            if !piece {
                cut_to_capacity(candidates, job.capacity, |c| (c.score(), c.record as u64));
            }
        }
        Ok(())
    }
}

/// How many times its size on disk a compressed database's text is taken to be, to
/// estimate its chunks: gzipped protein FASTA is about 1.8-1.9 times smaller (UniProt,
/// an E. coli proteome), DNA about 3.4 (an E. coli genome), where too few chunks
/// estimated costs a few more parses of each chunk.
const COMPRESSION_ESTIMATE: u64 = 2;

/// An existing `-o FILE` or `--stats` file is replaced, as parasail_aligner's output
/// file (opened with `fopen(..., "w")`) and BLAST's `-out` are.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;

/// Joins the `--scores-only` lines of a chunk's groups of queries (`texts`, one per
/// group, each with its lines per record) into database order: for each of the
/// `records` records, the lines of each group in turn.
fn join_group_lines(texts: &[(String, usize)], records: usize, out: &mut Vec<u8>) {
    out.clear();
    let mut rests: Vec<(&[u8], usize)> = texts
        .iter()
        .map(|(text, lines)| (text.as_bytes(), *lines))
        .collect();
    for _ in 0..records {
        for (rest, lines) in &mut rests {
            let mut end = 0;
            for _ in 0..*lines {
                end += rest[end..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(rest.len() - end, |at| at + 1);
            }
            out.extend_from_slice(&rest[..end]);
            *rest = &rest[end..];
        }
    }
}

/// The lanes the database is cut for (chunks, pieces and fragments): the widest kernel's,
/// 8-bit AVX-512. The count is fixed, not this CPU's, so that every machine (and every
/// part of a planned search) cuts the same chunks and fragments.
fn cut_lanes() -> usize {
    Isa::Avx512.lanes(Width::I8)
}

/// Appends a `--scores-only` line.
fn score_line(text: &mut String, query: &str, subject: &str, score: i32) {
    use std::fmt::Write as _;
    let _ = writeln!(text, "{query}\t{subject}\t{score}");
}

/// A search's set-up: the scoring, the kernel, the letter checks and the queries.
pub struct SearchJob<'a> {
    args: &'a SearchArgs,
    scoring: Scoring,
    params: Option<KarlinParams>,
    isa: Isa,
    check: LetterCheck<'a>,
    queries: Vec<Query>,
    capacity: Capacity,
    fragmenting: Option<Fragmenting>,
    format: OutputFormat,
    /// The GPU kernels, when the search scores on a GPU, and the GPU's description.
    gpu: Option<(Arc<GpuKernels>, String)>,
    /// The query and strand of each frame, in the order frames are scored.
    frame_owners: Vec<(usize, Strand)>,
}

/// What a scan of the database (or of some of its chunks) found.
pub struct Scan {
    /// The size of the chunks scanned.
    pub size: DatabaseSize,
    /// Per query, its best hits among them.
    pub hits: Vec<TopHits>,
    /// The scan farm's figures.
    pub stats: seqfarm_farm::FarmStats,
    /// The kernels' pass counts.
    pub counts: PassCounts,
}

/// The best alignments of every query with a record cut into pieces, joined as its
/// pieces come in.
#[derive(Default)]
struct PiecedRecord {
    /// Per query, the best of each strand so far.
    strands: Vec<[StrandHit; 2]>,
}

impl PiecedRecord {
    /// Takes the alignments of one piece (residue `residues_before` of the record is
    /// the piece's first) with the task's queries, of `queries` in all; on equal scores
    /// the earlier piece's stays.
    fn join(&mut self, task: &ScanTask, queries: usize, residues_before: u64, keep_codes: bool) {
        let records = &task.records;
        self.strands.resize_with(queries, Default::default);
        let kept = &mut self.strands[task.queries.clone()];
        for (kept, candidates) in kept.iter_mut().zip(&task.candidates) {
            let Some(candidate) = candidates.first() else {
                continue;
            };
            for (kept, found) in kept.iter_mut().zip(candidate.strands) {
                if found.score > kept.score {
                    let fragment = found.fragment as usize;
                    kept.score = found.score;
                    kept.offset = residues_before + records.fragments[fragment].offset as u64;
                    kept.codes.clear();
                    if keep_codes {
                        kept.codes.extend_from_slice(records.block.get(fragment));
                    }
                }
            }
        }
    }
}

impl<'a> SearchJob<'a> {
    /// Checks the arguments and reads the queries.
    pub fn new(args: &'a SearchArgs) -> Result<Self> {
        Self::with_gpu(args, args.gpu.unwrap_or(GpuChoice::Off))
    }

    /// [`SearchJob::new`] for counting the database's chunks only: no GPU is opened (the
    /// planning machine may have none), and the chunks are those the search cuts.
    pub fn for_planning(args: &'a SearchArgs) -> Result<Self> {
        Self::with_gpu(args, GpuChoice::Off)
    }

    fn with_gpu(args: &'a SearchArgs, gpu: GpuChoice) -> Result<Self> {
        if args.query == Path::new("-") && args.database == Path::new("-") {
            option_error!("the query and the database cannot both be standard input");
        }
        if args.evalue.is_nan() || args.evalue <= 0.0 {
            option_error!("--evalue {}: must be above 0", args.evalue);
        }
        let format = OutputFormat::parse(args.outfmt.as_deref(), args.json)
            .map_err(OptionValueError::from)?;
        let scoring = scoring(args)?;
        let params = karlin_params(args, &scoring);
        let isa = Isa::from_env()?;
        let custom = !args.dna && ScoreMatrix::builtin(&args.matrix).is_none();
        let check = LetterCheck {
            missing: custom.then(|| alphabet::missing_letters(scoring.matrix())),
            matrix: if args.dna { "BLOSUM62" } else { &args.matrix },
            dna: args.dna,
        };
        let strands = match (args.dna, args.strand) {
            (true, choice) => choice.unwrap_or(StrandChoice::Both).strands(),
            (false, _) => StrandChoice::Plus.strands(),
        };
        let queries = read_queries(&args.query, &scoring, &check, strands)?;
        let longest = queries.iter().map(|q| q.residues.len()).max().unwrap_or(0);
        let gpu = open_gpu(gpu, &scoring, &queries)?;
        let frame_owners = queries
            .iter()
            .enumerate()
            .flat_map(|(q, query)| query.frames.iter().map(move |frame| (q, frame.strand)))
            .collect();
        Ok(Self {
            gpu,
            frame_owners,
            args,
            capacity: Capacity {
                top: args.top,
                strict: args.top_strict,
            },
            fragmenting: Fragmenting::for_queries(&scoring, longest),
            scoring,
            params,
            isa,
            check,
            queries,
            format,
        })
    }

    /// Scans the database chunks for which `wanted(chunk)` holds (numbered from 0 in
    /// database order; the pieces of a record cut into pieces count as one chunk, so a
    /// record is never split between callers); `--scores-only` lines go to `lines` in
    /// database order.
    pub fn scan(
        &self,
        config: &seqfarm_farm::FarmConfig,
        mut wanted: impl FnMut(usize) -> bool,
        mut lines: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<Scan> {
        let (args, queries, check) = (self.args, &self.queries, &self.check);
        let mut database = FastaChunker::open(&args.database)?;
        // With --scores-only, a chunk's lines for many queries are held at once: smaller
        // chunks keep that bounded (about 16 queries' worth of a default chunk), unless a
        // long record needs a bigger one (below).
        // A GPU launch wants tens of thousands of sequences to fill the GPU. The size
        // follows what was asked (--gpu, --gpu auto), not whether a GPU was found, so
        // that a search planned on one machine cuts the chunks its parts cut on others.
        let asks_for_gpu = matches!(args.gpu, Some(GpuChoice::On | GpuChoice::Auto));
        let base = args
            .chunk_size
            .unwrap_or(if asks_for_gpu { 16 << 20 } else { 1 << 20 });
        let chunk_size = if args.scores_only {
            (base / queries.len().div_ceil(16)).max(base.min(1 << 16))
        } else {
            base
        }
        .max(1);
        // A chunk cut smaller than `base` grows, up to `base`, until it holds its longest
        // record as many times as the widest kernel has lanes (8-bit AVX-512): each lane
        // scores a stream of sequences, and on a smaller chunk most lanes wait for the one
        // with the longest record (150 queries against 20,000 UniProt sequences: about
        // 2x faster, the same bytes).
        let streams = cut_lanes();
        if let Some(fragmenting) = self.fragmenting {
            // Pieces of whole rounds of 64 fragments (every lane of the widest kernel
            // busy), at least a chunk, at most 16 MiB.
            let piece = fragmenting.piece_bytes(streams, chunk_size, 1 << 24);
            database.split_records(piece, fragmenting.overlap as u64);
        }
        let estimated_chunks = self.estimated_chunks(base);
        let mut groups = self.query_groups(config.workers, estimated_chunks);
        let all_queries = 0..queries.len();
        // The chunk whose later groups are still to be emitted, and the next of them.
        let (mut repeated, mut repeated_skipped, mut next_group) = (FastaChunk::default(), 0, 0);
        let mut size = DatabaseSize::default();
        let bar = progress::items("searching database bytes");
        let mut sampled = alphabet::LetterSample::default();
        let mut chunks = 0usize;
        let mut take = false;
        let mut skipped = 0u64;
        let mut emit = |task: &mut ScanTask| -> Result<Fill> {
            if next_group > 0 {
                task.chunk.clone_from(&repeated);
                task.skipped_before = repeated_skipped;
                task.queries = groups.ranges[next_group].clone();
                next_group = (next_group + 1) % groups.ranges.len();
                return Ok(Fill::Task);
            }
            loop {
                let more =
                    database.next_chunk_for_streams(&mut task.chunk, chunk_size, base, streams)?;
                if more && !sampled.is_full() {
                    for record in task.chunk.records() {
                        sampled.add(record?.body);
                    }
                    if sampled.is_full() || task.chunk.offset == 0 {
                        check.sample(&sampled, &args.database, "database sequences")?;
                    }
                }
                bar.set_position(task.chunk.offset + task.chunk.bytes.len() as u64);
                if !more {
                    return Ok(Fill::End);
                }
                if task.chunk.piece.as_ref().is_none_or(|p| p.first) {
                    chunks += 1;
                    take = wanted(chunks - 1);
                    // A streamed database of its size unknown: one chunk, if that one
                    // took all of it.
                    if chunks == 1 && estimated_chunks.is_none() && database.is_exhausted() {
                        groups = self.query_groups(config.workers, Some(1));
                    }
                }
                if take {
                    task.skipped_before = skipped;
                    if groups.splits() {
                        repeated.clone_from(&task.chunk);
                        repeated_skipped = skipped;
                        task.queries = groups.ranges[0].clone();
                        next_group = 1;
                    } else {
                        task.queries = all_queries.clone();
                    }
                    return Ok(Fill::Task);
                }
                match &task.chunk.piece {
                    None => {
                        for record in task.chunk.records() {
                            record?;
                            skipped += 1;
                        }
                    }
                    Some(piece) => skipped += u64::from(piece.last),
                }
            }
        };
        let mut top_hits: Vec<TopHits> = (0..queries.len())
            .map(|_| TopHits::new(self.capacity))
            .collect();
        let mut pieced = PiecedRecord::default();
        // With --scores-only and groups: the lines of a chunk's earlier groups (and the
        // lines per record of each), and the chunk's lines in database order.
        let (mut held, mut joined) = (Vec::new(), Vec::new());
        let mut collect = |task: &mut ScanTask| -> Result<()> {
            let records = &task.records;
            let first_ordinal = size.sequences + task.skipped_before;
            let ends_chunk = task.queries.end == queries.len();
            if let Some(piece) = &task.chunk.piece {
                if piece.first && task.queries.start == 0 {
                    pieced.strands.clear();
                }
                pieced.join(
                    task,
                    queries.len(),
                    piece.residues_before,
                    !args.scores_only,
                );
                if !(piece.last && ends_chunk) {
                    return Ok(());
                }
                let length = piece.residues_before + records.lengths[0];
                size.sequences += 1;
                size.residues += length;
                let name = records.name(0);
                if args.scores_only {
                    let mut text = String::new();
                    for (query, strands) in queries.iter().zip(&pieced.strands) {
                        score_line(&mut text, &query.name, name, better_score(strands));
                    }
                    return lines(text.as_bytes());
                }
                for (top, strands) in top_hits.iter_mut().zip(&mut pieced.strands) {
                    let hit = Hit {
                        ordinal: first_ordinal,
                        name: name.to_string(),
                        length,
                        strands: std::mem::take(strands),
                    };
                    top.offer(hit.score(), first_ordinal, || hit);
                }
                return Ok(());
            }
            if ends_chunk {
                size.sequences += records.records() as u64;
                size.residues += records.lengths.iter().sum::<u64>();
            }
            if args.scores_only {
                if task.queries == all_queries {
                    return lines(task.text.as_bytes());
                }
                held.push((std::mem::take(&mut task.text), task.queries.len()));
                if !ends_chunk {
                    return Ok(());
                }
                join_group_lines(&held, records.records(), &mut joined);
                held.clear();
                return lines(&joined);
            }
            for (top, candidates) in top_hits[task.queries.clone()]
                .iter_mut()
                .zip(&task.candidates)
            {
                for candidate in candidates {
                    let record = candidate.record as usize;
                    let ordinal = first_ordinal + record as u64;
                    top.offer(candidate.score(), ordinal, || Hit {
                        ordinal,
                        name: records.name(record).to_string(),
                        length: records.lengths[record],
                        strands: candidate.strands.map(|found| {
                            if found.score == 0 {
                                return StrandHit::default();
                            }
                            let fragment = found.fragment as usize;
                            StrandHit {
                                score: found.score,
                                offset: records.fragments[fragment].offset as u64,
                                codes: records.block.get(fragment).to_vec(),
                            }
                        }),
                    });
                }
            }
            Ok(())
        };
        let make_worker = |_| -> Result<_> {
            Ok(ScanWorker {
                scorer: match &self.gpu {
                    Some((kernels, _)) => Scorer::Gpu(Box::new(GpuSearcher::new(kernels)?)),
                    None => Scorer::Cpu(Box::new(Searcher::new(&self.scoring, self.isa)?)),
                },
                residue_map: ResidueMap::new(self.scoring.matrix().codes()),
                scores: Vec::new(),
                best: Vec::new(),
                job: self,
            })
        };
        let report = seqfarm_farm::run(
            config,
            ScanTask::default,
            &mut emit,
            make_worker,
            &mut collect,
        )
        .map_err(farm_error)?;
        bar.finish_and_clear();
        let mut counts = PassCounts::default();
        for worker in &report.workers {
            counts += worker.scorer.counts();
        }
        Ok(Scan {
            size,
            hits: top_hits,
            stats: report.stats,
            counts,
        })
    }

    /// The database's chunks of at most `chunk_bytes`, estimated from its size on disk,
    /// a compressed file's text taken as [`COMPRESSION_ESTIMATE`] times its size; `None`
    /// for a stream (standard input, a pipe).
    fn estimated_chunks(&self, chunk_bytes: usize) -> Option<u64> {
        regular_file_size(&self.args.database).map(|(len, compressed)| {
            let text = if compressed {
                len * COMPRESSION_ESTIMATE
            } else {
                len
            };
            text.div_ceil(chunk_bytes as u64)
        })
    }

    /// How the queries are shared among the tasks of a chunk, for `workers` workers and
    /// a database of `chunks` chunks (one group on a GPU, which scores every query at
    /// once).
    fn query_groups(&self, workers: usize, chunks: Option<u64>) -> QueryGroups {
        let residues: Vec<u64> = self
            .queries
            .iter()
            .map(|q| (q.residues.len() * q.frames.len()) as u64)
            .collect();
        let workers = if self.gpu.is_some() { 1 } else { workers };
        QueryGroups::plan(workers, chunks, &residues)
    }

    /// A fresh list of the best hits of one query, as this search keeps them.
    pub fn top_hits(&self) -> TopHits {
        TopHits::new(self.capacity)
    }

    /// Writes the report of `hits` (per query, best first) for a database of `size`,
    /// aligning each reported alignment again with traceback; returns the farm's
    /// figures.
    pub fn write_hits(
        &self,
        config: &seqfarm_farm::FarmConfig,
        hits: Vec<TopHits>,
        size: &DatabaseSize,
        output: &mut Output,
    ) -> Result<seqfarm_farm::FarmStats> {
        let hits: Vec<Vec<Hit>> = hits.into_iter().map(TopHits::into_hits).collect();
        let args = self.args;
        let database = args.database.display().to_string();
        let traceback = Traceback {
            scoring: &self.scoring,
            isa: self.isa,
            params: self.params.as_ref(),
            queries: &self.queries,
            reporting: Reporting {
                evalue: args.evalue,
                max_hsps: args.max_hsps.unwrap_or(usize::MAX),
            },
            format: &self.format,
            run: RunInfo {
                version: env!("CARGO_PKG_VERSION"),
                database: &database,
                dna: args.dna,
                matrix: self.scoring.matrix().name(),
                gap_open: self.scoring.gap_open(),
                gap_extend: self.scoring.gap_extend(),
            },
        };
        traceback.write(config, hits, size, output)
    }
}

/// The files `args` reads: the queries, the database and a matrix file.
fn input_files(args: &SearchArgs) -> Vec<PathBuf> {
    let custom = !args.dna && ScoreMatrix::builtin(&args.matrix).is_none();
    let matrix_file = custom.then(|| PathBuf::from(&args.matrix));
    [args.query.clone(), args.database.clone()]
        .into_iter()
        .chain(matrix_file)
        .collect()
}

/// Opens the output of `args` at `to` under the command's rule, before any work: a named
/// output must not be an input, nor the same file as `--stats`.
pub(crate) fn open_output(args: &SearchArgs, to: &Destination) -> Result<Output> {
    if to.is_named() {
        refuse_input_as_output(&args.output, input_files(args))?;
        let output = [("-o", args.output.as_path())];
        refuse_shared_outputs(output, None, args.farm.stats.stats.as_ref())?;
    }
    Ok(to.create(&args.output, args.force.overwrite(EXISTING_OUTPUT))?)
}

/// Runs `seqfarm search`.
pub fn run(args: &SearchArgs, to: &Destination) -> Result<()> {
    let job = SearchJob::new(args)?;
    let mut output = open_output(args, to)?;
    let config = args.farm.config();
    let mut stats_file = StatsFile::create(
        args.farm.stats.stats.as_ref(),
        "search",
        config.workers,
        args.force.overwrite(EXISTING_OUTPUT),
        input_files(args),
    )?;
    let started = Instant::now();
    let scan = job.scan(&config, |_| true, |lines| Ok(output.put(lines)?))?;
    let seconds = started.elapsed().as_secs_f64();
    stats_file.add(&scan.stats);
    stats_file.total("residues", scan.size.residues, scan.stats.tasks);
    stats_file.total("sequences", scan.size.sequences, scan.stats.tasks);
    if !args.scores_only {
        let traceback = job.write_hits(&config, scan.hits, &scan.size, &mut output)?;
        stats_file.add(&traceback);
    }
    output.commit()?;
    let kernel = match &job.gpu {
        Some((_, name)) => format!("GPU {name}"),
        None => format!("{} kernel", job.isa),
    };
    report_speed(
        &job.queries,
        &scan.size,
        seconds,
        &kernel,
        config.workers,
        &scan.counts,
    );
    stats_file.finish()?;
    Ok(())
}

/// The GPU kernels for `queries` (every frame, in order) when `choice` asks for a GPU
/// and one can be used (`SEQFARM_GPU=N` picks the N-th, from 0), with the GPU's
/// description; with `auto`, none when the GPU cannot be used, saying why.
fn open_gpu(
    choice: GpuChoice,
    scoring: &Scoring,
    queries: &[Query],
) -> Result<Option<(Arc<GpuKernels>, String)>> {
    if choice == GpuChoice::Off {
        return Ok(None);
    }
    let ordinal = match std::env::var("SEQFARM_GPU") {
        Ok(text) if !text.is_empty() => text
            .parse()
            .map_err(|_| anyhow::anyhow!("SEQFARM_GPU={text}: not a GPU number (0, 1, ...)"))?,
        _ => 0,
    };
    let device = match GpuDevice::open(ordinal) {
        Ok(device) => device,
        Err(e) if choice == GpuChoice::Auto => {
            stderr_line!("search: no GPU used ({e}); searching on the CPU");
            return Ok(None);
        }
        Err(e) => bail!("--gpu: {e}"),
    };
    let frames: Vec<&[u8]> = queries
        .iter()
        .flat_map(|q| &q.frames)
        .map(|f| f.codes.as_slice())
        .collect();
    let kernels =
        GpuKernels::new(&device, scoring, &frames).map_err(|e| anyhow::anyhow!("--gpu: {e}"))?;
    Ok(Some((kernels, device.describe())))
}

/// The scoring scheme the arguments ask for.
fn scoring(args: &SearchArgs) -> Result<Scoring> {
    let (matrix, default_open, default_extend) = if args.dna {
        (ScoreMatrix::dna(args.match_score, args.mismatch)?, 5, 2)
    } else {
        let matrix = match ScoreMatrix::builtin(&args.matrix) {
            Some(builtin) => builtin,
            None if Path::new(&args.matrix).exists() => {
                ScoreMatrix::from_file(Path::new(&args.matrix))?
            }
            None => option_error!(
                "--matrix {}: neither a built-in matrix ({}) nor a file",
                args.matrix,
                ScoreMatrix::builtin_names().collect::<Vec<_>>().join(", ")
            ),
        };
        let (open, extend) = stats::default_gap_costs(&args.matrix)
            .unwrap_or((Scoring::DEFAULT_GAP_OPEN, Scoring::DEFAULT_GAP_EXTEND));
        (matrix, open, extend)
    };
    let open = args.gap_open.unwrap_or(default_open);
    let extend = args.gap_extend.unwrap_or(default_extend);
    Ok(Scoring::new(matrix, open, extend)?)
}

/// BLAST's statistics for the scoring scheme, with a warning when it has none.
fn karlin_params(args: &SearchArgs, scoring: &Scoring) -> Option<KarlinParams> {
    let (open, extend) = (scoring.gap_open(), scoring.gap_extend());
    let (params, what) = if args.dna {
        (
            KarlinParams::lookup_dna(args.match_score, args.mismatch, open, extend),
            format!("DNA scores {}/{}", args.match_score, args.mismatch),
        )
    } else if ScoreMatrix::builtin(&args.matrix).is_some() {
        (
            KarlinParams::lookup(&args.matrix, open, extend),
            args.matrix.to_ascii_uppercase(),
        )
    } else {
        (None, format!("custom matrix {}", args.matrix))
    };
    if params.is_none() && !args.scores_only {
        stderr_line!(
            "seqfarm: warning: BLAST publishes no Karlin-Altschul parameters for {what} with gap \
             open {open}, extend {extend}; evalue and bitscore are written as NA"
        );
    }
    params
}

/// Reads and encodes every query, one frame per strand searched.
fn read_queries(
    path: &Path,
    scoring: &Scoring,
    check: &LetterCheck<'_>,
    strands: &[Strand],
) -> Result<Vec<Query>> {
    let mut reader = FastaReader::open(path)?;
    let mut record = FastaRecord::default();
    let mut queries = Vec::new();
    let mut sample = alphabet::LetterSample::default();
    let matrix = scoring.matrix();
    while reader.read_record(&mut record)? {
        check.letters(&record.sequence, &record.name, path)?;
        sample.add(&record.sequence);
        let residues: Vec<u8> = record
            .sequence
            .iter()
            .filter(|b| !matches!(b, b' ' | b'\t'))
            .map(u8::to_ascii_uppercase)
            .collect();
        if residues.len() > scoring.max_query_len() {
            bail!(
                "{}: query {} has {} residues; at most {} are supported with {}",
                path.display(),
                record.name,
                residues.len(),
                scoring.max_query_len(),
                matrix.name()
            );
        }
        let frames = strands
            .iter()
            .map(|&strand| {
                let mut letters = residues.clone();
                if strand == Strand::Minus {
                    traceback::reverse_complement(&mut letters);
                }
                Frame {
                    strand,
                    codes: matrix.encode(&letters),
                    letters,
                }
            })
            .collect();
        queries.push(Query {
            name: std::mem::take(&mut record.name),
            description: std::mem::take(&mut record.description),
            residues,
            frames,
        });
    }
    if queries.is_empty() {
        bail!("{}: no query sequences", path.display());
    }
    check.sample(&sample, path, "queries")?;
    Ok(queries)
}

/// The report on standard error: what was searched, how long it took, GCUPS.
fn report_speed(
    queries: &[Query],
    size: &DatabaseSize,
    seconds: f64,
    kernel: &str,
    threads: usize,
    counts: &PassCounts,
) {
    let query_residues: u64 = queries.iter().map(|q| q.residues.len() as u64).sum();
    let strands = queries.first().map_or(1, |q| q.frames.len());
    let cells = (query_residues * strands as u64) as f64 * size.residues as f64;
    let on = match strands {
        1 => "",
        _ => ", both strands",
    };
    stderr_line!(
        "search: {} queries ({} residues{on}) against {} sequences ({} residues) in {:.2} s: \
         {:.2} GCUPS ({}, {} threads; rescored {} at 16 bits, {} at 32 bits)",
        queries.len(),
        query_residues,
        size.sequences,
        size.residues,
        seconds,
        cells / seconds.max(1e-9) / 1e9,
        kernel,
        threads,
        counts.sequences_i16,
        counts.sequences_i32
    );
}

/// `--evalue`'s value: a number above 0, which a double can hold (`1e-400` is below the
/// smallest, and would be read as 0).
fn positive_evalue(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|e| format!("{e}"))?;
    if value.is_nan() || value < 0.0 {
        return Err("must be above 0".into());
    }
    if value == 0.0 {
        let zero = text.trim().trim_start_matches(['+', '-']);
        let written_as_zero = zero
            .split(['e', 'E'])
            .next()
            .is_some_and(|m| m.chars().all(|c| c == '0' || c == '.'));
        return Err(if written_as_zero {
            "must be above 0".into()
        } else {
            format!(
                "below the smallest E-value that can be held ({:e}); give that or more",
                f64::MIN_POSITIVE
            )
        });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelled(args: &[&str]) -> Vec<String> {
        gpu_spelling(args.iter().map(std::ffi::OsString::from))
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn queries_are_grouped_only_when_the_database_has_too_few_chunks() {
        let residues = [300u64; 10];
        let one_group = |workers, chunks| {
            let groups = QueryGroups::plan(workers, chunks, &residues);
            !groups.splits() && groups.ranges[0] == (0..10)
        };
        assert!(one_group(1, Some(1)));
        assert!(one_group(2, None));
        assert!(one_group(2, Some(8)));
        assert!(one_group(16, Some(1000)));
        // 2 workers want 8 tasks; 3,000 residues make at most 5 groups of 512.
        let groups = QueryGroups::plan(2, Some(1), &residues);
        assert_eq!(groups.ranges, vec![0..2, 2..4, 4..6, 6..8, 8..10]);
        assert!(groups.splits());
        assert_eq!(
            QueryGroups::plan(2, Some(4), &residues).ranges,
            vec![0..5, 5..10]
        );
        // Never more groups than queries, nor an empty one.
        assert_eq!(
            QueryGroups::plan(16, Some(1), &[5000, 5000]).ranges,
            vec![0..1, 1..2]
        );
    }

    #[test]
    fn query_groups_share_the_residues() {
        let residues = [4000, 100, 100, 100, 100, 1000, 1000, 1000, 1000];
        let groups = QueryGroups::plan(4, Some(4), &residues);
        assert_eq!(groups.ranges, vec![0..1, 1..6, 6..8, 8..9]);
        let total: u64 = residues.iter().sum();
        for range in &groups.ranges {
            assert!(!range.is_empty());
            assert!(residues[range.clone()].iter().sum::<u64>() <= total / 2);
        }
    }

    #[test]
    fn group_lines_are_joined_record_by_record_in_query_order() {
        let texts = [
            ("q1\ta\t5\nq2\ta\t6\nq1\tb\t7\nq2\tb\t8\n".to_string(), 2),
            ("q3\ta\t9\nq3\tb\t10\n".to_string(), 1),
        ];
        let mut out = Vec::new();
        join_group_lines(&texts, 2, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "q1\ta\t5\nq2\ta\t6\nq3\ta\t9\nq1\tb\t7\nq2\tb\t8\nq3\tb\t10\n"
        );
    }

    #[test]
    fn gpu_takes_a_value_after_a_space_and_leaves_files_alone() {
        assert_eq!(
            spelled(&["--gpu", "auto", "q.fa", "db.fa"]),
            ["--gpu=auto", "q.fa", "db.fa"]
        );
        assert_eq!(
            spelled(&["--gpu", "q.fa", "db.fa"]),
            ["--gpu", "q.fa", "db.fa"]
        );
        assert_eq!(
            spelled(&["q.fa", "--gpu", "off", "db.fa"]),
            ["q.fa", "--gpu=off", "db.fa"]
        );
        assert_eq!(spelled(&["--top", "auto"]), ["--top", "auto"]);
    }

    #[test]
    fn an_evalue_too_small_to_hold_is_not_called_0() {
        assert_eq!(positive_evalue("1e-5"), Ok(1e-5));
        assert_eq!(positive_evalue("0").unwrap_err(), "must be above 0");
        assert_eq!(positive_evalue("0.0e3").unwrap_err(), "must be above 0");
        assert_eq!(positive_evalue("-1").unwrap_err(), "must be above 0");
        let small = positive_evalue("1e-400").unwrap_err();
        assert!(small.contains("smallest"), "{small}");
    }
}
