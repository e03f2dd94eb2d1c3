//! One replay step on one contig: which reads of a file it pushes into the engine
//! ([`ReadWindow`], [`ContigReplay::push_reads`]), the counts at one position replayed
//! from far enough back, and the first covered position of a contig ([`ContigProbe`]).

use std::collections::HashMap;
use std::ops::ControlFlow;

use super::{ReadSource, OVERHANG};
use crate::pileup::engine::FileEngine;
use crate::pileup::visit::{CoverageProbe, FoundPosition};
use crate::pileup::PileupParams;

/// Which reads of a contig a replay step pushes: those starting in `resume..end`, and
/// before `start` only those that reach `start - 1` (older reads cannot matter). With
/// `until_covered: Some(q)` the step stops after the reads at the first position from
/// which the file covers `q` or beyond.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReadWindow {
    /// Where the replay starts: earlier reads are unknown to it.
    pub start: i64,
    /// Reads starting before this were pushed by an earlier step.
    pub resume: i64,
    /// Reads starting here or later are left for a later step.
    pub end: i64,
    /// Stop once something at or after this position is covered.
    pub until_covered: Option<i64>,
}

impl ReadWindow {
    /// A whole replay from `start` to `end`.
    pub fn new(start: i64, end: i64) -> Self {
        Self {
            start,
            resume: i64::MIN,
            end,
            until_covered: None,
        }
    }
}

/// The first position at or after `q` in `coverage` (sorted, merged intervals).
pub(super) fn first_covered(coverage: &[(i64, i64)], q: i64) -> Option<i64> {
    let i = coverage.partition_point(|&(_, e)| e <= q);
    coverage.get(i).map(|&(s, _)| s.max(q))
}

/// The pileup settings and one contig: what every replay step needs besides the source.
#[derive(Debug, Clone, Copy)]
pub(super) struct ContigReplay {
    /// snp-pileup's filters and htslib's pileup settings.
    pub params: PileupParams,
    /// Reference index.
    pub ref_id: i32,
}

impl ContigReplay {
    /// Where reads of the contig may start, at most: [`OVERHANG`] past its end.
    pub fn reach(&self, source: &impl ReadSource) -> i64 {
        source.contig_len(self.ref_id) + OVERHANG
    }

    /// Pushes the filtered reads of file `file` in `window` into `engine`. Returns where
    /// the step stopped: every read starting before it was pushed, none after.
    pub fn push_reads<S: ReadSource>(
        &self,
        source: &mut S,
        file: usize,
        window: ReadWindow,
        engine: &mut FileEngine,
    ) -> Result<i64, S::Error> {
        let ref_id = self.ref_id;
        // A query reaches at most OVERHANG past the contig end (and the source keeps it
        // to what its index can address).
        let first = window.start.max(window.resume);
        let last = window.end.saturating_sub(1).min(self.reach(source));
        let mut failure = None;
        let mut stopped_at = None;
        // Once coverage from `until_covered` shows up: the last position to push.
        let mut last_group: Option<i64> = None;
        source.for_each_read(file, ref_id, first, last, |record| {
            if record.ref_id != ref_id {
                if record.ref_id > ref_id {
                    stopped_at = Some(window.end);
                    return ControlFlow::Break(());
                }
                return ControlFlow::Continue(());
            }
            let read = record.read;
            let pos = read.pos;
            if pos >= window.end {
                stopped_at = Some(window.end);
                return ControlFlow::Break(());
            }
            if last_group.is_some_and(|g| pos > g) {
                stopped_at = Some(pos);
                return ControlFlow::Break(());
            }
            if pos < window.resume || !self.params.keeps(read.flag, record.ref_id, record.mapq) {
                return ControlFlow::Continue(());
            }
            if pos < window.start && pos + read.cigar.reference_span() < window.start - 1 {
                return ControlFlow::Continue(());
            }
            if let Err(e) = engine.push(&read) {
                failure = Some(e);
                return ControlFlow::Break(());
            }
            if let (Some(q), None) = (window.until_covered, last_group) {
                if let Some(at) = first_covered(engine.coverage(), q) {
                    last_group = Some(at.max(pos));
                }
            }
            ControlFlow::Continue(())
        })?;
        if let Some(e) = failure {
            return Err(source.refused(file, e));
        }
        Ok(stopped_at.unwrap_or(window.end))
    }

    /// Each file's `[counted, depth]` at `pos`, replayed from far enough back.
    pub fn counts_at<S: ReadSource>(
        &self,
        source: &mut S,
        pos: i64,
        engine: &mut FileEngine,
    ) -> Result<Vec<[u32; 2]>, S::Error> {
        let files = source.files();
        let mut counts = Vec::with_capacity(files);
        for file in 0..files {
            let mut lookback = super::LOOKBACK;
            loop {
                let start = (pos - lookback).max(0);
                engine.reset(self.params, self.ref_id, start, &[pos]);
                self.push_reads(source, file, ReadWindow::new(start, pos + 1), engine)?;
                engine.finish();
                let c = engine.counts()[0];
                if (c.certain && engine.unknown_reach() <= pos) || start == 0 {
                    counts.push([c.counted(), c.depth]);
                    break;
                }
                lookback = lookback.saturating_mul(8);
            }
        }
        Ok(counts)
    }

    /// The first covered position of the contig with its counts, if any: replays the
    /// contig from its start (where nothing is unknown) until some coverage.
    pub fn first_position<S: ReadSource>(
        &self,
        source: &mut S,
        engine: &mut FileEngine,
    ) -> Result<Option<FoundPosition>, S::Error> {
        let whole = self.reach(source);
        let mut first: Option<i64> = None;
        for file in 0..source.files() {
            engine.reset(self.params, self.ref_id, 0, &[]);
            let window = ReadWindow {
                until_covered: Some(0),
                ..ReadWindow::new(0, first.map_or(whole, |f| f + 1))
            };
            self.push_reads(source, file, window, engine)?;
            if let Some(&(s, _)) = engine.coverage().first() {
                first = Some(first.map_or(s, |f: i64| f.min(s)));
            }
        }
        let Some(pos) = first else {
            return Ok(None);
        };
        let counts = self.counts_at(source, pos, engine)?;
        Ok(Some(FoundPosition {
            ref_id: self.ref_id,
            pos,
            counts,
        }))
    }
}

/// Finds covered positions past the contigs the workers looked at (for snp-pileup's
/// walk, on the collector's thread): a replay from a contig start is exact. Each answer
/// is kept, so each contig is replayed once.
pub struct ContigProbe<S> {
    source: S,
    params: PileupParams,
    engine: FileEngine,
    found: HashMap<i32, Option<FoundPosition>>,
}

impl<S: ReadSource> ContigProbe<S> {
    /// A probe reading `source` with the pileup settings `params`.
    pub fn new(source: S, params: PileupParams) -> Self {
        Self {
            source,
            params,
            engine: FileEngine::new(),
            found: HashMap::new(),
        }
    }
}

impl<S: ReadSource> CoverageProbe for ContigProbe<S> {
    type Error = S::Error;

    fn first_after_contig(&mut self, ref_id: i32) -> Result<Option<FoundPosition>, S::Error> {
        if let Some(found) = self.found.get(&ref_id) {
            return Ok(found.clone());
        }
        let contigs = self.source.contigs() as i32;
        let mut found = None;
        for next in ref_id.max(-1) + 1..contigs {
            let contig = ContigReplay {
                params: self.params,
                ref_id: next,
            };
            if let Some(f) = contig.first_position(&mut self.source, &mut self.engine)? {
                found = Some(f);
                break;
            }
        }
        self.found.insert(ref_id, found.clone());
        Ok(found)
    }
}
