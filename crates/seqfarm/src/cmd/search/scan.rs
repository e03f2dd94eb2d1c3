//! The scan farm of `seqfarm search`: each task a chunk of database records scored
//! against the queries (or one group of them), the candidates each query keeps, and the
//! joining of records cut into pieces.

use std::ops::Range;

use anyhow::Result;
use seqfarm_io::fasta_chunks::{FastaChunk, ResidueMap};
use seqfarm_sw::gpu::GpuSearcher;
use seqfarm_sw::{Isa, PassCounts, Searcher, SequenceBlock, Width};

use super::hits::{cut_to_capacity, StrandHit};
use super::records::RecordBlock;
use super::{Query, SearchJob};

/// A record's best score on one strand and the first fragment reaching it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StrandBest {
    pub(super) score: i32,
    pub(super) fragment: u32,
}

/// A record of a chunk that may be reported for a query.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Candidate {
    pub(super) record: u32,
    pub(super) strands: [StrandBest; 2],
}

impl Candidate {
    pub(super) fn score(&self) -> i32 {
        self.strands[0].score.max(self.strands[1].score)
    }
}

/// One scan task: a chunk of database records, the queries to score against it, and
/// what the worker made of it.
#[derive(Default)]
pub(super) struct ScanTask {
    pub(super) chunk: FastaChunk,
    /// Sequences of the chunks before this one that were left to other parts.
    pub(super) skipped_before: u64,
    /// The queries scored (all of them, or one of the [`QueryGroups`]: the chunk's
    /// last task has the last queries).
    pub(super) queries: Range<usize>,
    /// The chunk's records, encoded and cut into fragments.
    pub(super) records: RecordBlock,
    /// `--scores-only` lines: per record, one per query of the task.
    pub(super) text: String,
    /// `--scores-only` scores kept as values (instead of `text`): per record, one per
    /// query of the task.
    pub(super) scores: Vec<i32>,
    /// Per query of the task, the records that may be reported, best first (every
    /// record's, for a piece of a record).
    pub(super) candidates: Vec<Vec<Candidate>>,
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
pub(super) struct QueryGroups {
    pub(super) ranges: Vec<Range<usize>>,
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
    pub(super) fn plan(workers: usize, chunks: Option<u64>, residues: &[u64]) -> Self {
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
    pub(super) fn splits(&self) -> bool {
        self.ranges.len() > 1
    }
}

/// What scores a worker's blocks: the CPU kernels, or the GPU through a stream of the
/// worker's own.
pub(super) enum Scorer {
    Cpu(Box<Searcher>),
    Gpu(Box<GpuSearcher>),
}

impl Scorer {
    /// Scores every frame of every query (in query order, then frame order) against
    /// `block` and hands each frame's scores (by sequence of the block) to `fold` with
    /// the frame's number. The CPU scores one frame at a time into one buffer of
    /// `scores`; the GPU scores all frames at once, into one buffer per frame.
    pub(super) fn score_frames(
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
    pub(super) fn counts(&self) -> PassCounts {
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
pub(super) struct ScanWorker<'a> {
    pub(super) scorer: Scorer,
    pub(super) residue_map: ResidueMap,
    /// Scores by sequence of the block: one buffer (CPU) or one per query frame (GPU).
    pub(super) scores: Vec<Vec<i32>>,
    /// Per query, per record: the best of each strand.
    pub(super) best: Vec<Vec<[StrandBest; 2]>>,
    pub(super) job: &'a SearchJob<'a>,
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
        task.scores.clear();
        task.candidates.resize_with(queries.len(), Vec::new);
        if job.options.scores_only && !piece && job.score_values {
            for record in 0..records.records() {
                for best in &self.best {
                    let [plus, minus] = best[record];
                    task.scores.push(plus.score.max(minus.score));
                }
            }
            return Ok(());
        }
        if job.options.scores_only && !piece {
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
        let min_score = match job.options.min_score {
            Some(s) if !job.options.scores_only => s.max(1),
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
pub(super) const COMPRESSION_ESTIMATE: u64 = 2;

/// Joins the `--scores-only` lines of a chunk's groups of queries (`texts`, one per
/// group, each with its lines per record) into database order: for each of the
/// `records` records, the lines of each group in turn.
pub(super) fn join_group_lines(texts: &[(String, usize)], records: usize, out: &mut Vec<u8>) {
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
pub(super) fn cut_lanes() -> usize {
    Isa::Avx512.lanes(Width::I8)
}

/// Appends a `--scores-only` line.
pub(super) fn score_line(
    text: &mut String,
    query: &str,
    subject: &str,
    score: impl std::fmt::Display,
) {
    use std::fmt::Write as _;
    let _ = writeln!(text, "{query}\t{subject}\t{score}");
}

/// The best alignments of every query with a record cut into pieces, joined as its
/// pieces come in.
#[derive(Default)]
pub(super) struct PiecedRecord {
    /// Per query, the best of each strand so far.
    pub(super) strands: Vec<[StrandHit; 2]>,
}

impl PiecedRecord {
    /// Takes the alignments of one piece (residue `residues_before` of the record is
    /// the piece's first) with the task's queries, of `queries` in all; on equal scores
    /// the earlier piece's stays.
    pub(super) fn join(
        &mut self,
        task: &ScanTask,
        queries: usize,
        residues_before: u64,
        keep_codes: bool,
    ) {
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
