//! `--scores-only`'s results as values: one row per query and database record, in the
//! order the command prints them (records in database order, queries in input order
//! within each).

use std::ops::Range;

use super::records::RecordBlock;
use super::scan::score_line;

/// The best local alignment score of every query against every record, column by
/// column.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScoreTable {
    /// The queries' names; `query` indexes them.
    pub query_names: Vec<String>,
    /// Each row's query (an index into `query_names`).
    pub query: Vec<u32>,
    /// Each row's database record (the first word of its header).
    pub subject: Vec<String>,
    /// Each row's score (the better strand's, for DNA).
    pub score: Vec<i64>,
}

impl ScoreTable {
    /// An empty table for the queries named `query_names`.
    pub fn new(query_names: Vec<String>) -> Self {
        Self {
            query_names,
            ..Self::default()
        }
    }

    /// Rows in the table.
    pub fn len(&self) -> usize {
        self.score.len()
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.score.is_empty()
    }

    /// Appends the rows of `other`, a table of the same queries (or an empty table:
    /// then this one takes `other`'s queries).
    pub fn append(&mut self, other: ScoreTable) {
        if self.query_names.is_empty() {
            self.query_names = other.query_names;
        }
        self.query.extend(other.query);
        self.subject.extend(other.subject);
        self.score.extend(other.score);
    }

    /// The rows as the command prints them: query, subject and score, tab-separated.
    pub fn lines(&self) -> Vec<u8> {
        let mut text = String::new();
        for ((&query, subject), &score) in self.query.iter().zip(&self.subject).zip(&self.score) {
            score_line(&mut text, &self.query_names[query as usize], subject, score);
        }
        text.into_bytes()
    }

    /// Appends one row.
    pub(super) fn push(&mut self, query: usize, subject: &str, score: i32) {
        self.query.push(query as u32);
        self.subject.push(subject.to_string());
        self.score.push(i64::from(score));
    }

    /// Appends the rows of `records` scored by the queries `queries`, whose scores are
    /// in `scores` record by record (`queries.len()` per record).
    pub(super) fn add_records(
        &mut self,
        records: &RecordBlock,
        queries: Range<usize>,
        scores: &[i32],
    ) {
        self.add_groups(records, &[(queries, scores)]);
    }

    /// Appends the rows of `records` scored by groups of queries (each group's range
    /// and its scores, record by record): per record, every group's rows in turn.
    pub(super) fn add_groups(&mut self, records: &RecordBlock, groups: &[(Range<usize>, &[i32])]) {
        for record in 0..records.records() {
            let name = records.name(record);
            for (queries, scores) in groups {
                let per_record = queries.len();
                let row = &scores[record * per_record..(record + 1) * per_record];
                for (query, &score) in queries.clone().zip(row) {
                    self.push(query, name, score);
                }
            }
        }
    }
}
