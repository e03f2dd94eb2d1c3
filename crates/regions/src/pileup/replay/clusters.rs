//! [`Replayer`]: a task's sites cut into clusters, each replayed on every file and
//! widened back and forward until its findings are certain (see the parent module).

use std::ops::Range;

use super::contig::{first_covered, ContigReplay, ReadWindow};
use super::{ReadSource, ReplayFindings, ReplayStats, CLUSTER_GAP, LOOKBACK, MARGIN};
use crate::pileup::engine::FileEngine;
use crate::pileup::visit::{Next, Site};
use crate::pileup::{base_code, PileupParams};

/// Replays the pileup of a source's files over tasks' sites: one per worker, reused
/// from task to task (its engines keep their allocations).
pub struct Replayer<S> {
    source: S,
    params: PileupParams,
    /// Pseudo-SNP spacing (`-P`; 0: none).
    pseudo_every: i64,
    /// One engine per file.
    engines: Vec<FileEngine>,
    /// The positions a cluster's replay counts at: its sites, and pseudo-SNP positions.
    needed: Vec<i64>,
    /// The union of the files' covered intervals, sorted and merged.
    coverage: Vec<(i64, i64)>,
    /// What this replayer did.
    pub stats: ReplayStats,
}

impl<S: ReadSource> Replayer<S> {
    /// A replayer of `source`'s files with the pileup settings `params`, reporting
    /// pseudo-SNP positions every `pseudo_every` bases (0: none).
    pub fn new(source: S, params: PileupParams, pseudo_every: i64) -> Self {
        let files = source.files();
        Self {
            source,
            params,
            pseudo_every,
            engines: (0..files).map(|_| FileEngine::new()).collect(),
            needed: Vec::new(),
            coverage: Vec::new(),
            stats: ReplayStats::default(),
        }
    }

    /// The source the replayer reads.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// Without pseudo-SNPs: replays `sites` (in VCF order; those with `ref_id < 0` are
    /// not in the files) in clusters of sites on one contig less than [`CLUSTER_GAP`]
    /// apart, appending each site's findings to `found`.
    pub fn replay_sites(
        &mut self,
        sites: &[Site],
        found: &mut ReplayFindings,
    ) -> Result<(), S::Error> {
        let on_files: Vec<usize> = (0..sites.len()).filter(|&i| sites[i].ref_id >= 0).collect();
        let mut from = 0;
        while from < on_files.len() {
            let ref_id = sites[on_files[from]].ref_id;
            let mut to = from + 1;
            while to < on_files.len() && {
                let (a, b) = (sites[on_files[to - 1]], sites[on_files[to]]);
                b.ref_id == ref_id && b.pos - a.pos <= CLUSTER_GAP
            } {
                to += 1;
            }
            let (a, b) = (on_files[from], on_files[to - 1]);
            let span = sites[a].pos..sites[b].pos + 1;
            self.cluster(sites, ref_id, a..b + 1, span, &(0..0), found)?;
            from = to;
        }
        Ok(())
    }

    /// With pseudo-SNPs: replays the positions `range` of contig `ref_id` (nothing when
    /// `ref_id < 0`) as one cluster with the `sites` on that contig (sites on other
    /// contigs have `ref_id -1`), appending the sites' findings and the covered
    /// pseudo-SNP positions of `range` to `found`.
    pub fn replay_range(
        &mut self,
        ref_id: i32,
        range: Range<i64>,
        sites: &[Site],
        found: &mut ReplayFindings,
    ) -> Result<(), S::Error> {
        if ref_id < 0 {
            return Ok(());
        }
        let on_contig: Vec<usize> = (0..sites.len())
            .filter(|&i| sites[i].ref_id == ref_id)
            .collect();
        let whole = match (on_contig.first(), on_contig.last()) {
            (Some(&a), Some(&b)) => a..b + 1,
            _ => 0..0,
        };
        let (mut start, mut end) = (range.start, range.end);
        if let (Some(&a), Some(&b)) = (on_contig.first(), on_contig.last()) {
            start = start.min(sites[a].pos);
            end = end.max(sites[b].pos + 1);
        }
        self.cluster(sites, ref_id, whole, start..end, &range, found)
    }

    /// Replays one cluster: the sites of `sites[cluster]` on contig `ref_id` (positions
    /// non-decreasing) and, with pseudo-SNPs, the positions of `span`; `range` holds
    /// the pseudo-SNP positions the task answers for.
    fn cluster(
        &mut self,
        sites: &[Site],
        ref_id: i32,
        cluster: Range<usize>,
        span: Range<i64>,
        range: &Range<i64>,
        found: &mut ReplayFindings,
    ) -> Result<(), S::Error> {
        let contig = ContigReplay {
            params: self.params,
            ref_id,
        };
        let on_contig = |s: &&Site| s.ref_id == contig.ref_id;
        let mut positions: Vec<i64> = sites[cluster.clone()]
            .iter()
            .filter(on_contig)
            .map(|s| s.pos)
            .collect();
        positions.dedup();
        self.needed.clear();
        self.needed.extend_from_slice(&positions);
        if self.pseudo_every != 0 {
            let every = self.pseudo_every.abs();
            let mut p = ((span.start + every) / every) * every - 1;
            while p < span.end + MARGIN {
                self.needed.push(p);
                p += every;
            }
            self.needed.sort_unstable();
            self.needed.dedup();
        }
        let unbounded = contig.reach(&self.source);
        self.stats.clusters += 1;
        let mut lookback = LOOKBACK;
        let mut end = loop {
            let start = (span.start - lookback).max(0);
            let first_end = (span.end + MARGIN).min(unbounded);
            self.source.prefetch(contig.ref_id, start, first_end);
            let mut pushed = Vec::with_capacity(self.engines.len());
            for (file, engine) in self.engines.iter_mut().enumerate() {
                engine.reset(self.params, contig.ref_id, start, &self.needed);
                let window = ReadWindow::new(start, first_end);
                pushed.push(contig.push_reads(&mut self.source, file, window, engine)?);
            }
            // Read on until every site's next covered positions are known: each file up
            // to its first coverage from the first unknown one.
            let end = loop {
                let end = pushed.iter().copied().min().unwrap_or(unbounded);
                self.merge_coverage();
                let unsettled = positions
                    .iter()
                    .flat_map(|&p| [p, p + 1])
                    .find(|&q| self.next_covered(q, end, unbounded).is_none());
                let Some(q) = unsettled else {
                    break end;
                };
                self.stats.widened_forward += 1;
                for (file, engine) in self.engines.iter_mut().enumerate() {
                    let reach = pushed[file];
                    if reach >= unbounded
                        || first_covered(engine.coverage(), q).is_some_and(|c| c < reach)
                    {
                        continue;
                    }
                    let window = ReadWindow {
                        start,
                        resume: reach,
                        end: unbounded,
                        until_covered: Some(q),
                    };
                    pushed[file] = contig.push_reads(&mut self.source, file, window, engine)?;
                }
            };
            for engine in &mut self.engines {
                engine.finish();
            }
            let certain = self
                .engines
                .iter()
                .all(|e| e.unknown_reach() <= span.start && e.counts().iter().all(|c| c.certain));
            if certain || start == 0 {
                break end;
            }
            lookback = lookback.saturating_mul(8);
            self.stats.widened_back += 1;
        };
        self.source
            .release(contig.ref_id, span.start - lookback, end);
        if end >= unbounded {
            end = i64::MAX;
        }
        for site in sites[cluster].iter().filter(on_contig) {
            let next = self.next_covered(site.pos, end, unbounded);
            let next_after = self.next_covered(site.pos + 1, end, unbounded);
            found.nexts.push((
                next.unwrap_or(Next::PastContig),
                next_after.unwrap_or(Next::PastContig),
            ));
            let at = self.needed.partition_point(|&p| p < site.pos);
            let (reference, alternate) = (base_code(site.reference), base_code(site.alternate));
            for engine in &self.engines {
                let c = engine.counts()[at];
                let [r, a, e, d] = c.alleles(reference, alternate);
                found.counts.push([r, a, e, d, c.depth]);
            }
        }
        if self.pseudo_every != 0 {
            self.pseudo_findings(contig, &span, range, found)?;
        }
        Ok(())
    }

    /// Reports the covered pseudo-SNP positions of `range`, and the next covered
    /// positions of sites past it that are pseudo-SNP positions.
    fn pseudo_findings(
        &mut self,
        contig: ContigReplay,
        span: &Range<i64>,
        range: &Range<i64>,
        found: &mut ReplayFindings,
    ) -> Result<(), S::Error> {
        let every = self.pseudo_every;
        let files = self.source.files();
        let from = range.start.max(span.start);
        for (i, &p) in self.needed.iter().enumerate() {
            if p < from || p >= range.end || (p + 1) % every != 0 || !self.is_covered(p) {
                continue;
            }
            found.pseudo.push(p);
            for engine in &self.engines {
                let c = &engine.counts()[i];
                found.pseudo_counts.push([c.counted(), c.depth]);
            }
        }
        let mut beyond: Vec<i64> = found
            .nexts
            .iter()
            .flat_map(|&(a, b)| [a, b])
            .filter_map(|n| match n {
                Next::At(p) if p >= range.end && (p + 1) % every == 0 => Some(p),
                _ => None,
            })
            .collect();
        beyond.sort_unstable();
        beyond.dedup();
        for p in beyond {
            if found.pseudo.last().is_some_and(|&last| last >= p) {
                continue;
            }
            let counts = match self.needed.binary_search(&p) {
                Ok(i) => self
                    .engines
                    .iter()
                    .map(|e| {
                        let c = &e.counts()[i];
                        [c.counted(), c.depth]
                    })
                    .collect(),
                Err(_) => contig.counts_at(&mut self.source, p, &mut self.engines[0])?,
            };
            debug_assert_eq!(counts.len(), files);
            found.pseudo.push(p);
            found.pseudo_counts.extend(counts);
        }
        Ok(())
    }

    /// The union of the files' covered intervals.
    fn merge_coverage(&mut self) {
        self.coverage.clear();
        for engine in &self.engines {
            self.coverage.extend_from_slice(engine.coverage());
        }
        self.coverage.sort_unstable();
        let mut merged: Vec<(i64, i64)> = Vec::with_capacity(self.coverage.len());
        for &(s, e) in &self.coverage {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        self.coverage = merged;
    }

    fn is_covered(&self, pos: i64) -> bool {
        let i = self.coverage.partition_point(|&(_, e)| e <= pos);
        self.coverage.get(i).is_some_and(|&(s, _)| s <= pos)
    }

    /// The first covered position at or after `pos` if it is known: before `end` (the
    /// replay pushed every read starting before it), or past the contig when the replay
    /// read the whole contig (`end >= unbounded`).
    fn next_covered(&self, pos: i64, end: i64, unbounded: i64) -> Option<Next> {
        let i = self.coverage.partition_point(|&(_, e)| e <= pos);
        match self.coverage.get(i) {
            Some(&(s, _)) if s.max(pos) < end => Some(Next::At(s.max(pos))),
            _ if end >= unbounded => Some(Next::PastContig),
            _ => None,
        }
    }
}
