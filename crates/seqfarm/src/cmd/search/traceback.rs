//! The search's second farm: every reported alignment aligned again with traceback (in
//! parallel, in report order), turned into an [`HspRecord`] in BLAST's conventions and
//! written in the chosen format.

use anyhow::{bail, Result};
use seqfarm_core::nucleotide::reverse_complement_letters;
use seqfarm_farm::Fill;
use seqfarm_io::blast::{BlastTable, Column, HspRecord, OutputFormat, QueryInfo, RunInfo};
use seqfarm_io::output::Output;
use seqfarm_sw::align::AlignOp;
use seqfarm_sw::stats::KarlinParams;
use seqfarm_sw::{align_on, Alignment, Isa, Scoring, Searcher, SequenceBlock};

use super::hits::{Hit, Strand};
use super::records::{alignment_span, Fragmenting};
use super::{DatabaseSize, Query};
use crate::common::farm_error;

/// Which alignments are reported, besides the hits kept per query.
#[derive(Debug, Clone, Copy)]
pub struct Reporting {
    /// Largest E-value reported (not applied without statistics).
    pub evalue: f64,
    /// At most this many alignments per query and subject.
    pub max_hsps: usize,
}

/// One alignment to report: which query, which subject, and the subject's residues.
#[derive(Debug, Default)]
struct HspJob {
    query: usize,
    subject: String,
    subject_len: u64,
    strand: Strand,
    score: i32,
    evalue: Option<f64>,
    offset: u64,
    codes: Vec<u8>,
    /// Alignments reported for this query and subject (this one included).
    subject_hsps: usize,
}

/// A traceback task: an alignment to report and what it became.
#[derive(Default)]
struct AlignTask {
    job: HspJob,
    record: HspRecord,
}

/// Everything the traceback needs of the search.
pub(crate) struct Traceback<'a> {
    /// The scoring.
    pub scoring: &'a Scoring,
    /// The SIMD path that finds where a long subject's best alignment lies and where
    /// each alignment ends.
    pub isa: Isa,
    /// Statistics, when the scoring has them.
    pub params: Option<&'a KarlinParams>,
    /// The queries.
    pub queries: &'a [Query],
    /// The cut-offs.
    pub reporting: Reporting,
    /// The output format.
    pub format: &'a OutputFormat,
    /// What the output's header says.
    pub run: RunInfo<'a>,
}

impl Traceback<'_> {
    /// Aligns every reported alignment of `hits` (per query, best first) again with
    /// traceback and writes them to `output` for a database of `size` (none: keeps them
    /// as values); returns the farm's figures and the values kept.
    pub fn write(
        &self,
        config: &seqfarm_farm::FarmConfig,
        hits: Vec<Vec<Hit>>,
        size: &DatabaseSize,
        mut output: Option<&mut Output>,
    ) -> Result<(seqfarm_farm::FarmStats, Option<BlastTable>)> {
        let jobs = self.jobs(hits, size);
        let mut per_query = vec![0usize; self.queries.len()];
        for job in &jobs {
            per_query[job.query] += 1;
        }
        let mut pending = jobs.into_iter();
        let mut emit = |task: &mut AlignTask| -> Result<Fill> {
            Ok(match pending.next() {
                Some(job) => {
                    task.job = job;
                    Fill::Task
                }
                None => Fill::End,
            })
        };
        let make_worker = |_| -> Result<_> {
            let mut window = WindowFinder {
                searcher: Searcher::new(self.scoring, self.isa)?,
                block: SequenceBlock::new(),
                scores: Vec::new(),
            };
            Ok(move |task: &mut AlignTask| -> Result<()> {
                task.record = self.record(&task.job, &mut window)?;
                Ok(())
            })
        };
        let mut text = String::new();
        self.format.begin(&mut text, &self.run);
        let mut writer = ReportWriter {
            format: self.format,
            queries: self.queries,
            per_query: &per_query,
            open: None,
            next_query: 0,
            written_in_query: 0,
            subject: Vec::new(),
            text,
            table: output
                .is_none()
                .then(|| BlastTable::new(&self.format.columns, self.run.dna)),
        };
        let mut collect = |task: &mut AlignTask| -> Result<()> {
            writer.add(&task.job, std::mem::take(&mut task.record));
            if let Some(output) = output.as_mut() {
                output.put(writer.text.as_bytes())?;
            }
            writer.text.clear();
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
        writer.advance_to(self.queries.len());
        self.format.end(&mut writer.text, self.queries.len());
        if let Some(output) = output {
            output.put(writer.text.as_bytes())?;
        }
        Ok((report.stats, writer.table))
    }

    /// The alignments to report, in report order: per query, hits best first, each
    /// hit's strands best first, those above the E-value cut-off dropped.
    fn jobs(&self, hits: Vec<Vec<Hit>>, size: &DatabaseSize) -> Vec<HspJob> {
        let mut jobs = Vec::new();
        for (query, hits) in hits.into_iter().enumerate() {
            let space = self.params.map(|p| {
                p.search_space(
                    self.queries[query].residues.len() as u64,
                    size.residues,
                    size.sequences,
                )
            });
            for mut hit in hits {
                let strands: Vec<(Strand, i32, Option<f64>)> = hit
                    .ranked_strands()
                    .map(|(strand, h)| {
                        let evalue = self.params.zip(space).map(|(p, s)| p.evalue(h.score, s));
                        (strand, h.score, evalue)
                    })
                    .filter(|&(_, _, e)| e.is_none_or(|e| e <= self.reporting.evalue))
                    .take(self.reporting.max_hsps)
                    .collect();
                let count = strands.len();
                for (strand, score, evalue) in strands {
                    let found = &mut hit.strands[strand as usize];
                    jobs.push(HspJob {
                        query,
                        subject: hit.name.clone(),
                        subject_len: hit.length,
                        strand,
                        score,
                        evalue,
                        offset: found.offset,
                        codes: std::mem::take(&mut found.codes),
                        subject_hsps: count,
                    });
                }
            }
        }
        jobs
    }

    /// Aligns `job` with traceback and fills in its record (but for the query
    /// coverage of its subject, which needs the subject's other alignments).
    fn record(&self, job: &HspJob, window: &mut WindowFinder) -> Result<HspRecord> {
        let query = &self.queries[job.query];
        let frame = query
            .frame(job.strand)
            .expect("alignments only on the strands searched");
        let (start, subject) = window.find(self.scoring, &frame.codes, &job.codes, job.score);
        let offset = job.offset + start as u64;
        let a = align_on(self.isa, self.scoring, &frame.codes, subject);
        if a.score != job.score {
            bail!(
                "internal error: traceback of {} against {} scores {}, the search {}",
                query.name,
                job.subject,
                a.score,
                job.score
            );
        }
        let qlen = query.residues.len();
        let mut record = HspRecord {
            query_id: query.name.clone(),
            query_len: qlen,
            subject_id: job.subject.clone(),
            subject_len: job.subject_len,
            minus: job.strand == Strand::Minus,
            score: a.score,
            evalue: job.evalue,
            bit_score: self.params.map(|p| p.bit_score(a.score)),
            length: a.length,
            identities: a.identities,
            mismatches: a.mismatches,
            gap_opens: a.gap_opens,
            gaps: a.gaps,
            ..HspRecord::default()
        };
        let (first, last) = (
            offset + a.subject_start as u64 + 1,
            offset + a.subject_end as u64,
        );
        if record.minus {
            (record.query_start, record.query_end) = (qlen - a.query_end + 1, qlen - a.query_start);
            (record.subject_start, record.subject_end) = (last, first);
        } else {
            (record.query_start, record.query_end) = (a.query_start + 1, a.query_end);
            (record.subject_start, record.subject_end) = (first, last);
        }
        self.aligned_residues(&a, &frame.codes, &frame.letters, subject, &mut record);
        Ok(record)
    }

    /// Fills in the aligned residues and the positives of `a` (of `query` against
    /// `subject`, encoded), in the query's plus orientation.
    fn aligned_residues(
        &self,
        a: &Alignment,
        query: &[u8],
        query_letters: &[u8],
        subject: &[u8],
        record: &mut HspRecord,
    ) {
        let matrix = self.scoring.matrix();
        let subject_letter = |code: u8| match matrix.symbols()[code as usize] {
            b'*' if self.run.dna => b'N',
            symbol => symbol,
        };
        let texts = [Column::QuerySeq, Column::SubjectSeq, Column::Btop]
            .into_iter()
            .any(|c| self.format.uses(c));
        let (mut i, mut j) = (a.query_start, a.subject_start);
        let (mut q, mut s) = (Vec::new(), Vec::new());
        let mut positives = 0;
        for op in &a.ops {
            let (query_letter, subject_letter) = match op {
                AlignOp::Pair => {
                    if matrix.score(query[i], subject[j]) > 0 {
                        positives += 1;
                    }
                    i += 1;
                    j += 1;
                    (query_letters[i - 1], subject_letter(subject[j - 1]))
                }
                AlignOp::QueryGap => {
                    i += 1;
                    (query_letters[i - 1], b'-')
                }
                AlignOp::SubjectGap => {
                    j += 1;
                    (b'-', subject_letter(subject[j - 1]))
                }
            };
            if texts {
                q.push(query_letter);
                s.push(subject_letter);
            }
        }
        if record.minus {
            // Upper case throughout (query residues are upper-cased when read, subject
            // letters are matrix symbols), so case-keeping complements are upper case.
            reverse_complement_letters(&mut q);
            reverse_complement_letters(&mut s);
        }
        // BLAST counts a nucleotide pair as positive only when it is identical.
        record.positives = if self.run.dna {
            record.identities
        } else {
            positives
        };
        record.query_aligned = q;
        record.subject_aligned = s;
    }
}

/// Narrows a long subject down to a window holding its best alignment before the scalar
/// traceback, whose cost grows with the subject: the subject is cut into windows that
/// overlap by the query's [`alignment_span`] (as the scan cuts long records into
/// fragments, and so with the same result: the first window reaching the best score holds
/// the alignment the whole subject's traceback reports), which the SIMD kernel scores
/// all at once.
struct WindowFinder {
    searcher: Searcher,
    block: SequenceBlock,
    scores: Vec<i32>,
}

impl WindowFinder {
    /// The offset in `subject` and the window of it where the traceback of `query`
    /// (which scores `score` against `subject`) finds the same alignment; `subject`
    /// itself when it is short.
    fn find<'s>(
        &mut self,
        scoring: &Scoring,
        query: &[u8],
        subject: &'s [u8],
        score: i32,
    ) -> (usize, &'s [u8]) {
        let Some(span) = alignment_span(scoring, query.len()) else {
            return (0, subject);
        };
        let overlap = span as usize;
        let windows = Fragmenting {
            length: overlap + (overlap / 4).max(64),
            overlap,
        };
        if subject.len() <= 2 * windows.length {
            return (0, subject);
        }
        self.block.clear();
        let starts: Vec<usize> = windows.starts(subject.len()).collect();
        for &start in &starts {
            self.block
                .push_encoded(&subject[start..(start + windows.length).min(subject.len())]);
        }
        self.searcher.score(&self.block, query, &mut self.scores);
        match self.scores.iter().position(|&s| s == score) {
            Some(k) => {
                let start = starts[k];
                (
                    start,
                    &subject[start..(start + windows.length).min(subject.len())],
                )
            }
            None => (0, subject),
        }
    }
}

/// The collector's side of the traceback: query headers and footers around each
/// query's alignments (also for queries with none), and each subject's alignments held
/// until all are in, for the query coverage of the subject.
struct ReportWriter<'a> {
    format: &'a OutputFormat,
    queries: &'a [Query],
    /// Alignments reported per query.
    per_query: &'a [usize],
    /// The query whose header is written and footer is not.
    open: Option<usize>,
    /// The first query whose header is not written yet.
    next_query: usize,
    written_in_query: usize,
    subject: Vec<HspRecord>,
    text: String,
    /// The alignments kept as values rather than written.
    table: Option<BlastTable>,
}

impl<'a> ReportWriter<'a> {
    fn info(&self, query: usize) -> QueryInfo<'a> {
        let q = &self.queries[query];
        QueryInfo {
            index: query,
            id: &q.name,
            description: &q.description,
            len: q.residues.len(),
        }
    }

    /// Closes the open query, writes the queries before `query` (they have no
    /// alignments) and opens `query` (none when it is past the last).
    fn advance_to(&mut self, query: usize) {
        if let Some(open) = self.open.take() {
            let info = self.info(open);
            self.format.end_query(&mut self.text, &info);
        }
        let last = query.min(self.queries.len());
        for skipped in self.next_query..last {
            let info = self.info(skipped);
            self.format.begin_query(&mut self.text, &info, 0);
            self.format.end_query(&mut self.text, &info);
        }
        self.next_query = self.next_query.max(last);
        if query < self.queries.len() {
            let info = self.info(query);
            self.format
                .begin_query(&mut self.text, &info, self.per_query[query]);
            self.open = Some(query);
            self.next_query = query + 1;
            self.written_in_query = 0;
        }
    }

    /// Takes the aligned record of `job`.
    fn add(&mut self, job: &HspJob, record: HspRecord) {
        if self.open != Some(job.query) {
            self.advance_to(job.query);
        }
        self.subject.push(record);
        if self.subject.len() < job.subject_hsps {
            return;
        }
        let covered = covered_residues(self.subject.iter().map(|r| (r.query_start, r.query_end)));
        for mut record in std::mem::take(&mut self.subject) {
            record.query_covered_by_subject = covered;
            match self.table.as_mut() {
                Some(table) => table.add(&record),
                None => self
                    .format
                    .hsp(&mut self.text, &record, self.written_in_query),
            }
            self.written_in_query += 1;
        }
    }
}

/// Residues in the union of 1-based inclusive ranges.
fn covered_residues(ranges: impl Iterator<Item = (usize, usize)>) -> usize {
    let mut ranges: Vec<(usize, usize)> = ranges.collect();
    ranges.sort_unstable();
    let mut covered = 0;
    let mut reached = 0;
    for (start, end) in ranges {
        let from = start.max(reached + 1);
        if end >= from {
            covered += end - from + 1;
        }
        reached = reached.max(end);
    }
    covered
}

#[cfg(test)]
mod tests {
    use super::*;
    use seqfarm_sw::align;

    #[test]
    fn union_of_ranges() {
        assert_eq!(covered_residues([(1, 10)].into_iter()), 10);
        assert_eq!(covered_residues([(5, 10), (1, 6)].into_iter()), 10);
        assert_eq!(covered_residues([(1, 3), (7, 8)].into_iter()), 5);
        assert_eq!(covered_residues([(2, 9), (3, 4)].into_iter()), 8);
    }

    #[test]
    fn the_window_holds_the_whole_subjects_alignment() {
        use seqfarm_sw::ScoreMatrix;
        let scoring = Scoring::new(ScoreMatrix::dna(2, -3).unwrap(), 5, 2).unwrap();
        let m = scoring.matrix();
        let mut subject = super::super::records::random_dna(&mut 11, 20_000);
        let query = subject[7_000..7_150].to_vec();
        // A second, equal copy later: the first must be reported, as by the whole.
        subject.splice(15_000..15_150, query.iter().copied());
        let (q, s) = (m.encode(&query), m.encode(&subject));
        let whole = align(&scoring, &q, &s);
        let mut finder = WindowFinder {
            searcher: Searcher::new(&scoring, Isa::from_env().unwrap()).unwrap(),
            block: SequenceBlock::new(),
            scores: Vec::new(),
        };
        let (start, window) = finder.find(&scoring, &q, &s, whole.score);
        assert!(window.len() < s.len() / 4, "narrowed to {}", window.len());
        let mut narrowed = align(&scoring, &q, window);
        narrowed.subject_start += start;
        narrowed.subject_end += start;
        assert_eq!(narrowed, whole);
        assert_eq!(whole.subject_start, 7_000);
    }

    #[test]
    fn reverse_complement_of_iupac() {
        // As the query is read: upper case.
        let mut s = b"ACGTNRY-a".to_ascii_uppercase();
        reverse_complement_letters(&mut s);
        assert_eq!(s, b"T-RYNACGT");
    }
}
