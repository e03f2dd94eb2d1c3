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
//!    chunk then going to one task per group, see `QueryGroups`); the collector,
//!    which receives chunks in database order, joins the pieces of a record and writes
//!    the scores (`--scores-only`) or keeps each query's best hits, ties broken by
//!    database order so the result does not depend on the thread count;
//! 2. **traceback** ([`traceback`]): each reported alignment is aligned again with
//!    traceback (in parallel, in report order) and written with E-values computed for
//!    the whole database, whose size is known only once the scan is over.

mod alphabet;
pub mod hits;
mod options;
pub mod records;
mod run;
mod scan;
mod score_table;
mod setup;
pub mod traceback;

pub use options::{GpuChoice, SearchOptions, StrandChoice};
pub(crate) use run::open_output;
pub use run::{results, run, SearchResults};
pub use score_table::ScoreTable;

use std::sync::Arc;

use anyhow::Result;
use seqfarm_farm::Fill;
use seqfarm_io::blast::{BlastTable, OutputFormat, RunInfo};
use seqfarm_io::fasta_chunks::{FastaChunk, FastaChunker, ResidueMap};
use seqfarm_io::input::regular_file_size;
use seqfarm_io::output::{ExistingOutput, Output};
use seqfarm_sw::gpu::{GpuKernels, GpuSearcher};
use seqfarm_sw::stats::KarlinParams;
use seqfarm_sw::{Isa, PassCounts, Scoring, Searcher};

use crate::common::farm_error;
use crate::option_value::OptionValueError;
use crate::progress;
use hits::{better_score, Capacity, Hit, Strand, StrandHit, TopHits};
use records::Fragmenting;
use scan::{
    cut_lanes, join_group_lines, score_line, PiecedRecord, QueryGroups, ScanTask, ScanWorker,
    Scorer, COMPRESSION_ESTIMATE,
};
use setup::{karlin_params, open_gpu, read_queries, scoring, LetterCheck};
use traceback::{Reporting, Traceback};

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

/// An existing `-o FILE` or `--stats` file is replaced, as parasail_aligner's output
/// file (opened with `fopen(..., "w")`) and BLAST's `-out` are.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;

/// A search's set-up: the scoring, the kernel, the letter checks and the queries.
pub struct SearchJob<'a> {
    options: &'a SearchOptions,
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
    /// `--scores-only` scores are kept as values ([`Scan::scores`]), not printed.
    score_values: bool,
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
    /// `--scores-only` scores, when the job keeps them as values.
    pub scores: Option<ScoreTable>,
}

impl<'a> SearchJob<'a> {
    /// Checks the options and reads the queries.
    pub fn new(options: &'a SearchOptions) -> Result<Self> {
        Self::with_gpu(options, options.gpu)
    }

    /// [`SearchJob::new`] for counting the database's chunks only: no GPU is opened (the
    /// planning machine may have none), and the chunks are those the search cuts.
    pub fn for_planning(options: &'a SearchOptions) -> Result<Self> {
        Self::with_gpu(options, GpuChoice::Off)
    }

    fn with_gpu(options: &'a SearchOptions, gpu: GpuChoice) -> Result<Self> {
        options.check()?;
        let format = OutputFormat::parse(options.outfmt.as_deref(), options.json)
            .map_err(OptionValueError::from)?;
        let scoring = scoring(options)?;
        let params = karlin_params(options, &scoring);
        let isa = Isa::from_env()?;
        let check = LetterCheck {
            missing: options
                .custom_matrix()
                .then(|| alphabet::missing_letters(scoring.matrix())),
            matrix: if options.dna {
                "BLOSUM62"
            } else {
                &options.matrix
            },
            dna: options.dna,
        };
        let strands = match (options.dna, options.strand) {
            (true, choice) => choice.unwrap_or(StrandChoice::Both).strands(),
            (false, _) => StrandChoice::Plus.strands(),
        };
        let queries = read_queries(&options.query, &scoring, &check, strands)?;
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
            options,
            capacity: Capacity {
                top: options.top,
                strict: options.top_strict,
            },
            fragmenting: Fragmenting::for_queries(&scoring, longest),
            scoring,
            params,
            isa,
            check,
            queries,
            format,
            score_values: false,
        })
    }

    /// The job with `--scores-only` scores kept as values ([`Scan::scores`]) rather than
    /// given as lines.
    pub fn with_score_values(mut self) -> Self {
        self.score_values = true;
        self
    }

    /// Scans the database chunks for which `wanted(chunk)` holds (numbered from 0 in
    /// database order; the pieces of a record cut into pieces count as one chunk, so a
    /// record is never split between callers); `--scores-only` lines go to `lines` in
    /// database order (or, for a job [`SearchJob::with_score_values`], to
    /// [`Scan::scores`]).
    pub fn scan(
        &self,
        config: &seqfarm_farm::FarmConfig,
        mut wanted: impl FnMut(usize) -> bool,
        mut lines: impl FnMut(&[u8]) -> Result<()>,
    ) -> Result<Scan> {
        let (options, queries, check) = (self.options, &self.queries, &self.check);
        let mut database = FastaChunker::open(&options.database)?;
        // With --scores-only, a chunk's lines for many queries are held at once: smaller
        // chunks keep that bounded (about 16 queries' worth of a default chunk), unless a
        // long record needs a bigger one (below).
        // A GPU launch wants tens of thousands of sequences to fill the GPU. The size
        // follows what was asked (--gpu, --gpu auto), not whether a GPU was found, so
        // that a search planned on one machine cuts the chunks its parts cut on others.
        let asks_for_gpu = options.gpu.asks_for_gpu();
        let base = options
            .chunk_size
            .unwrap_or(if asks_for_gpu { 16 << 20 } else { 1 << 20 });
        let chunk_size = if options.scores_only {
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
                        check.sample(&sampled, &options.database, "database sequences")?;
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
        let mut score_table = (self.score_values && options.scores_only)
            .then(|| ScoreTable::new(queries.iter().map(|q| q.name.clone()).collect()));
        let mut held_scores: Vec<(std::ops::Range<usize>, Vec<i32>)> = Vec::new();
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
                    !options.scores_only,
                );
                if !(piece.last && ends_chunk) {
                    return Ok(());
                }
                let length = piece.residues_before + records.lengths[0];
                size.sequences += 1;
                size.residues += length;
                let name = records.name(0);
                if let Some(table) = score_table.as_mut() {
                    for (query, strands) in pieced.strands.iter().enumerate() {
                        table.push(query, name, better_score(strands));
                    }
                    return Ok(());
                }
                if options.scores_only {
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
            if let Some(table) = score_table.as_mut() {
                if task.queries == all_queries {
                    table.add_records(records, all_queries.clone(), &task.scores);
                    return Ok(());
                }
                held_scores.push((task.queries.clone(), std::mem::take(&mut task.scores)));
                if ends_chunk {
                    let groups: Vec<_> = held_scores
                        .iter()
                        .map(|(q, s)| (q.clone(), s.as_slice()))
                        .collect();
                    table.add_groups(records, &groups);
                    held_scores.clear();
                }
                return Ok(());
            }
            if options.scores_only {
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
            scores: score_table,
        })
    }

    /// The database's chunks of at most `chunk_bytes`, estimated from its size on disk,
    /// a compressed file's text taken as [`COMPRESSION_ESTIMATE`] times its size; `None`
    /// for a stream (standard input, a pipe).
    fn estimated_chunks(&self, chunk_bytes: usize) -> Option<u64> {
        regular_file_size(&self.options.database).map(|(len, compressed)| {
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

    /// Writes the report of `hits` (per query, best first) for a database of `size` to
    /// `output` (none: keeps the alignments as values), aligning each reported alignment
    /// again with traceback; returns the farm's figures and the values kept.
    pub fn write_hits(
        &self,
        config: &seqfarm_farm::FarmConfig,
        hits: Vec<TopHits>,
        size: &DatabaseSize,
        output: Option<&mut Output>,
    ) -> Result<(seqfarm_farm::FarmStats, Option<BlastTable>)> {
        let hits: Vec<Vec<Hit>> = hits.into_iter().map(TopHits::into_hits).collect();
        let options = self.options;
        let database = options.database.display().to_string();
        let traceback = Traceback {
            scoring: &self.scoring,
            isa: self.isa,
            params: self.params.as_ref(),
            queries: &self.queries,
            reporting: Reporting {
                evalue: options.evalue,
                max_hsps: options.max_hsps.unwrap_or(usize::MAX),
            },
            format: &self.format,
            run: RunInfo {
                version: env!("CARGO_PKG_VERSION"),
                database: &database,
                dna: options.dna,
                matrix: self.scoring.matrix().name(),
                gap_open: self.scoring.gap_open(),
                gap_extend: self.scoring.gap_extend(),
            },
        };
        traceback.write(config, hits, size, output)
    }
}

#[cfg(test)]
mod tests;
