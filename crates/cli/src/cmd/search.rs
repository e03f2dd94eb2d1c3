//! `seqfarm search`: exhaustive Smith-Waterman search of a protein (or DNA) database.
//!
//! Two farms run one after the other:
//!
//! 1. **scan**: the emitter cuts the database into chunks of whole records (about 1 MB,
//!    FASTA or gzipped FASTA, streamed, never loaded whole) without parsing them; each
//!    worker parses and encodes its chunk, packs it into SIMD lane streams once and scores
//!    every query against it with its own [`Searcher`]; the collector, which receives
//!    chunks in database order, writes the scores (`--scores-only`) or keeps each query's
//!    best hits, ties broken by database order so the result does not depend on the
//!    thread count;
//! 2. **traceback**: each reported hit is aligned again with traceback (in parallel, in
//!    report order) to print BLAST tabular lines with E-values computed for the whole
//!    database, whose size is known only once the scan is over.

mod alphabet;
pub mod format;
pub mod hsp;
pub(crate) mod tabular;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Result};
use seqfarm_farm::Fill;
use seqfarm_io::fasta::{FastaReader, FastaRecord};
use seqfarm_io::fasta_chunks::{FastaChunk, FastaChunker, ResidueMap};
use seqfarm_io::output::{refuse_input_as_output, Output};
use seqfarm_sw::stats::{self, KarlinParams};
use seqfarm_sw::{align, Isa, PassCounts, ScoreMatrix, Scoring, Searcher, SequenceBlock};

use crate::common::{farm_error, Destination, FarmArgs, ForceArg};
use crate::farm_stats::StatsFile;
use crate::progress;
use tabular::{Hit, LineContext, TopHits};

/// Smith-Waterman database search: every query against every database sequence, with
/// SIMD across database sequences (exact scores, like parasail's `sw_*`).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Output (default): the --top best hits per query as BLAST tabular \
lines (-outfmt 6): qseqid sseqid pident length mismatch gapopen qstart qend sstart send \
evalue bitscore. With --scores-only: `qseqid sseqid score` for every pair, database order, \
queries in file order for each database sequence. Set SEQFARM_SIMD=scalar|avx2|avx512 to \
force a kernel."
)]
pub struct SearchArgs {
    /// Query sequences (FASTA; gzip recognised; - for standard input)
    pub query: PathBuf,
    /// Database sequences (FASTA; gzip recognised; streamed, any size; - for standard input)
    pub database: PathBuf,
    /// Hits reported per query
    #[arg(long, value_name = "K", default_value_t = 10, value_parser = at_least_one)]
    pub top: usize,
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
        requires = "dna"
    )]
    pub match_score: i32,
    /// Score of a nucleotide mismatch, usually negative (with --dna)
    #[arg(long, value_name = "SCORE", default_value_t = -3, allow_negative_numbers = true, requires = "dna")]
    pub mismatch: i32,
    /// Gap open cost: a gap of length k costs open + k * extend [default: BLAST's for the
    /// matrix (11 for BLOSUM62, 9 for PAM30...), 5 with --dna]
    #[arg(long, value_name = "COST")]
    pub gap_open: Option<i32>,
    /// Gap extension cost [default: BLAST's for the matrix (1 for BLOSUM62), 2 with --dna]
    #[arg(long, value_name = "COST")]
    pub gap_extend: Option<i32>,
    /// Database bytes per farm task (whole records)
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20, hide = true)]
    pub chunk_size: usize,
    #[command(flatten)]
    pub farm: FarmArgs,
    #[command(flatten)]
    pub force: ForceArg,
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

/// A query, as read and encoded.
struct Query {
    name: String,
    codes: Vec<u8>,
}

/// Database totals, counted by the collector.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DatabaseSize {
    /// Sequences.
    pub sequences: u64,
    /// Residues.
    pub residues: u64,
}

/// One scan task: a chunk of database records and what the worker made of it.
#[derive(Default)]
struct ScanTask {
    chunk: FastaChunk,
    /// Sequences of the chunks before this one that were left to other parts.
    skipped_before: u64,
    /// The chunk's sequences, encoded.
    block: SequenceBlock,
    /// Their names, back to back.
    names: String,
    name_ends: Vec<usize>,
    /// `--scores-only` lines.
    text: String,
    /// Top-hit candidates per query: (score, index in chunk), best first.
    candidates: Vec<Vec<(i32, u32)>>,
}

impl ScanTask {
    fn name(&self, index: usize) -> &str {
        let start = if index == 0 {
            0
        } else {
            self.name_ends[index - 1]
        };
        &self.names[start..self.name_ends[index]]
    }

    /// Parses and encodes the chunk's records.
    fn parse(&mut self, residue_map: &ResidueMap, check: &LetterCheck<'_>) -> Result<()> {
        self.block.clear();
        self.names.clear();
        self.name_ends.clear();
        let path = &self.chunk.path;
        for record in self.chunk.records() {
            let record = record?;
            check.letters(record.body, record.name, path)?;
            self.names.push_str(record.name);
            self.name_ends.push(self.names.len());
            self.block
                .push_with(|codes| record.translate(path, residue_map, codes))?;
        }
        Ok(())
    }
}

/// A worker's private state for the scan.
struct ScanWorker<'a> {
    searcher: Searcher,
    residue_map: ResidueMap,
    scores: Vec<Vec<i32>>,
    queries: &'a [Query],
    top: usize,
    scores_only: bool,
    check: &'a LetterCheck<'a>,
}

impl seqfarm_farm::Worker<ScanTask, anyhow::Error> for ScanWorker<'_> {
    fn process(&mut self, task: &mut ScanTask) -> Result<()> {
        task.parse(&self.residue_map, self.check)?;
        self.searcher.load(&task.block);
        task.text.clear();
        if self.scores_only {
            // Every query's scores first: lines go subject by subject.
            self.scores.resize_with(self.queries.len(), Vec::new);
            for (query, scores) in self.queries.iter().zip(self.scores.iter_mut()) {
                self.searcher.score(&task.block, &query.codes, scores);
            }
            use std::fmt::Write as _;
            let mut text = std::mem::take(&mut task.text);
            for i in 0..task.block.len() {
                let name = task.name(i);
                for (query, scores) in self.queries.iter().zip(&self.scores) {
                    let _ = writeln!(text, "{}\t{}\t{}", query.name, name, scores[i]);
                }
            }
            task.text = text;
            return Ok(());
        }
        self.scores.resize_with(1, Vec::new);
        // The candidate lists are the recycled task's: reused, not allocated per chunk.
        task.candidates.resize_with(self.queries.len(), Vec::new);
        for (query, best) in self.queries.iter().zip(&mut task.candidates) {
            let scores = &mut self.scores[0];
            self.searcher.score(&task.block, &query.codes, scores);
            best.clear();
            best.extend(
                scores
                    .iter()
                    .enumerate()
                    .filter(|&(_, &s)| s > 0)
                    .map(|(i, &s)| (s, i as u32)),
            );
            // Best first: higher score, then earlier in the chunk (and so the database).
            let order = |&(s, i): &(i32, u32)| (std::cmp::Reverse(s), i);
            if best.len() > self.top && self.top > 0 {
                best.select_nth_unstable_by_key(self.top - 1, order);
            }
            best.truncate(self.top);
            best.sort_unstable_by_key(order);
        }
        Ok(())
    }
}

/// A search's set-up: the scoring, the kernel, the letter checks and the queries.
pub struct SearchJob<'a> {
    args: &'a SearchArgs,
    scoring: Scoring,
    params: Option<KarlinParams>,
    isa: Isa,
    check: LetterCheck<'a>,
    queries: Vec<Query>,
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

impl<'a> SearchJob<'a> {
    /// Checks the arguments and reads the queries.
    pub fn new(args: &'a SearchArgs) -> Result<Self> {
        if args.query == Path::new("-") && args.database == Path::new("-") {
            bail!("the query and the database cannot both be standard input");
        }
        let scoring = scoring(args)?;
        let params = karlin_params(args, &scoring);
        let isa = Isa::from_env()?;
        let custom = !args.dna && ScoreMatrix::builtin(&args.matrix).is_none();
        let check = LetterCheck {
            missing: custom.then(|| alphabet::missing_letters(scoring.matrix())),
            matrix: if args.dna { "BLOSUM62" } else { &args.matrix },
            dna: args.dna,
        };
        let queries = read_queries(&args.query, &scoring, &check)?;
        Ok(Self {
            args,
            scoring,
            params,
            isa,
            check,
            queries,
        })
    }

    /// Scans the database chunks (numbered from 0 in database order) for which
    /// `wanted(chunk)` holds; `--scores-only` lines go to `lines` in database order.
    pub fn scan(
        &self,
        config: &seqfarm_farm::FarmConfig,
        mut wanted: impl FnMut(usize) -> bool,
        mut lines: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<Scan> {
        let (args, queries, check) = (self.args, &self.queries, &self.check);
        let mut database = FastaChunker::open(&args.database)?;
        let mut size = DatabaseSize::default();
        let bar = progress::items("searching database bytes");
        // With --scores-only, a chunk's lines for many queries are held at once: smaller
        // chunks keep that bounded (about 16 queries' worth of a default chunk).
        let chunk_size = if args.scores_only {
            (args.chunk_size / queries.len().div_ceil(16)).max(args.chunk_size.min(1 << 16))
        } else {
            args.chunk_size
        }
        .max(1);
        let mut sampled = alphabet::LetterSample::default();
        let mut chunks = 0usize;
        let mut skipped = 0u64;
        let mut emit = |task: &mut ScanTask| -> Result<Fill> {
            loop {
                let more = database.next_chunk(&mut task.chunk, chunk_size)?;
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
                chunks += 1;
                if wanted(chunks - 1) {
                    task.skipped_before = skipped;
                    return Ok(Fill::Task);
                }
                for record in task.chunk.records() {
                    record?;
                    skipped += 1;
                }
            }
        };
        let mut top_hits: Vec<TopHits> =
            (0..queries.len()).map(|_| TopHits::new(args.top)).collect();
        let mut collect = |task: &mut ScanTask| -> Result<()> {
            let first_ordinal = size.sequences + task.skipped_before;
            size.sequences += task.block.len() as u64;
            size.residues += task.block.residues() as u64;
            if args.scores_only {
                return lines(task.text.as_bytes());
            }
            for (top, candidates) in top_hits.iter_mut().zip(&task.candidates) {
                for &(score, index) in candidates {
                    let ordinal = first_ordinal + index as u64;
                    top.offer(score, ordinal, || Hit {
                        score,
                        ordinal,
                        name: task.name(index as usize).to_string(),
                        codes: task.block.get(index as usize).to_vec(),
                    });
                }
            }
            Ok(())
        };
        let make_worker = |_| -> Result<_> {
            Ok(ScanWorker {
                searcher: Searcher::new(&self.scoring, self.isa)?,
                residue_map: ResidueMap::new(self.scoring.matrix().codes()),
                scores: Vec::new(),
                queries,
                top: args.top,
                scores_only: args.scores_only,
                check,
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
            counts += worker.searcher.counts();
        }
        Ok(Scan {
            size,
            hits: top_hits,
            stats: report.stats,
            counts,
        })
    }

    /// Writes the tabular lines of `hits` (per query, best first) for a database of
    /// `size`, aligning each hit again with traceback; returns the farm's figures.
    pub fn write_hits(
        &self,
        config: &seqfarm_farm::FarmConfig,
        hits: Vec<TopHits>,
        size: &DatabaseSize,
        output: &mut Output,
    ) -> Result<seqfarm_farm::FarmStats> {
        let hits: Vec<Vec<Hit>> = hits.into_iter().map(TopHits::into_hits).collect();
        write_alignments(
            config,
            &self.scoring,
            self.params.as_ref(),
            &self.queries,
            hits,
            size,
            output,
        )
    }
}

/// Runs `seqfarm search`.
pub fn run(args: &SearchArgs, to: &Destination) -> Result<()> {
    let job = SearchJob::new(args)?;
    let custom = !args.dna && ScoreMatrix::builtin(&args.matrix).is_none();
    let matrix_file = custom.then(|| PathBuf::from(&args.matrix));
    let inputs = [args.query.clone(), args.database.clone()];
    if to.is_named() {
        refuse_input_as_output(&args.output, inputs.iter().chain(&matrix_file))?;
    }
    let mut output = to.create(&args.output, args.force.overwrite())?;
    let config = args.farm.config();
    let mut stats_file = StatsFile::create(
        args.farm.stats.stats.as_ref(),
        "search",
        config.workers,
        &args.output,
        args.force.overwrite(),
        inputs.iter().chain(&matrix_file),
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
    report_speed(
        &job.queries,
        &scan.size,
        seconds,
        job.isa,
        config.workers,
        &scan.counts,
    );
    stats_file.finish()?;
    Ok(())
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
            None => bail!(
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
        eprintln!(
            "seqfarm: warning: BLAST publishes no Karlin-Altschul parameters for {what} with gap \
             open {open}, extend {extend}; evalue and bitscore are written as NA"
        );
    }
    params
}

/// Reads and encodes every query.
fn read_queries(path: &Path, scoring: &Scoring, check: &LetterCheck<'_>) -> Result<Vec<Query>> {
    let mut reader = FastaReader::open(path)?;
    let mut record = FastaRecord::default();
    let mut queries = Vec::new();
    let mut sample = alphabet::LetterSample::default();
    while reader.read_record(&mut record)? {
        check.letters(&record.sequence, &record.name, path)?;
        sample.add(&record.sequence);
        let residues: Vec<u8> = record
            .sequence
            .iter()
            .copied()
            .filter(|b| !matches!(b, b' ' | b'\t'))
            .collect();
        if residues.len() > scoring.max_query_len() {
            bail!(
                "{}: query {} has {} residues; at most {} are supported with {}",
                path.display(),
                record.name,
                residues.len(),
                scoring.max_query_len(),
                scoring.matrix().name()
            );
        }
        queries.push(Query {
            name: std::mem::take(&mut record.name),
            codes: scoring.matrix().encode(&residues),
        });
    }
    if queries.is_empty() {
        bail!("{}: no query sequences", path.display());
    }
    check.sample(&sample, path, "queries")?;
    Ok(queries)
}

/// One traceback task: a hit to align and its output line.
#[derive(Default)]
struct AlignTask {
    query: usize,
    hit: Hit,
    line: String,
}

/// Aligns every reported hit with traceback (second farm) and writes the tabular lines
/// in query order, best hit first; returns the farm's figures.
fn write_alignments(
    config: &seqfarm_farm::FarmConfig,
    scoring: &Scoring,
    params: Option<&KarlinParams>,
    queries: &[Query],
    hits: Vec<Vec<Hit>>,
    size: &DatabaseSize,
    output: &mut Output,
) -> Result<seqfarm_farm::FarmStats> {
    let spaces: Vec<f64> = queries
        .iter()
        .map(|q| {
            params.map_or(0.0, |p| {
                p.search_space(q.codes.len() as u64, size.residues, size.sequences)
            })
        })
        .collect();
    let mut pending = hits
        .into_iter()
        .enumerate()
        .flat_map(|(query, hits)| hits.into_iter().map(move |hit| (query, hit)));
    let mut emit = |task: &mut AlignTask| -> Result<Fill> {
        Ok(match pending.next() {
            Some((query, hit)) => {
                task.query = query;
                task.hit = hit;
                Fill::Task
            }
            None => Fill::End,
        })
    };
    let make_worker = |_| -> Result<_> {
        Ok(|task: &mut AlignTask| -> Result<()> {
            let query = &queries[task.query];
            let alignment = align(scoring, &query.codes, &task.hit.codes);
            if alignment.score != task.hit.score {
                bail!(
                    "internal error: traceback of {} against {} scores {}, the search {}",
                    query.name,
                    task.hit.name,
                    alignment.score,
                    task.hit.score
                );
            }
            let context = LineContext {
                query: &query.name,
                subject: &task.hit.name,
                params,
                search_space: spaces[task.query],
            };
            task.line.clear();
            tabular::write_line(&mut task.line, &context, &alignment);
            Ok(())
        })
    };
    let mut collect = |task: &mut AlignTask| -> Result<()> {
        output.put(task.line.as_bytes())?;
        Ok(())
    };
    let report = seqfarm_farm::run(
        config,
        AlignTask::default,
        &mut emit,
        make_worker,
        &mut collect,
    )
    .map_err(farm_error)?;
    Ok(report.stats)
}

/// The report on standard error: what was searched, how long it took, GCUPS.
fn report_speed(
    queries: &[Query],
    size: &DatabaseSize,
    seconds: f64,
    isa: Isa,
    threads: usize,
    counts: &PassCounts,
) {
    let query_residues: u64 = queries.iter().map(|q| q.codes.len() as u64).sum();
    let cells = query_residues as f64 * size.residues as f64;
    eprintln!(
        "search: {} queries ({} residues) against {} sequences ({} residues) in {:.2} s: \
         {:.2} GCUPS ({} kernel, {} threads; rescored {} at 16 bits, {} at 32 bits)",
        queries.len(),
        query_residues,
        size.sequences,
        size.residues,
        seconds,
        cells / seconds.max(1e-9) / 1e9,
        isa,
        threads,
        counts.sequences_i16,
        counts.sequences_i32
    );
}
