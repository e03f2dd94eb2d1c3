//! The worker: replays each BAM's pileup over a task's sites and reports what the
//! collector's walk needs. Without pseudo-SNPs it first parses the task's VCF lines
//! ([`super::sites`]) and last writes the rows it can ([`super::rows`]).
//!
//! A task's sites are grouped into clusters (sites less than [`CLUSTER_GAP`] apart; with
//! pseudo-SNPs, the task's whole range). Each cluster is replayed from `LOOKBACK` bases
//! before it to `MARGIN` bases after it. If a read whose fate the replay cannot know
//! reaches into the cluster, or two reads of a name whose overlap rewrite is unknown
//! meet at a counted position, the replay starts again from further back (a contig start
//! leaves nothing unknown). If the covered position after a site lies beyond the replay,
//! the replay reads further forward (a contig end settles it).

use std::ops::{ControlFlow, Range};

use anyhow::anyhow;
use seqfarm_farm::Worker;
use seqfarm_io::bam::{BamIndex, BamSet, RangeReader, Record};
use seqfarm_regions::pileup::cigar::Cigar;
use seqfarm_regions::pileup::engine::FileEngine;
use seqfarm_regions::pileup::visit::{Next, SiteWalker};
use seqfarm_regions::pileup::{base_code, AlignedRead, PileupParams};

use super::chunk::ContigLookup;
use super::{rows, sites, Task};

/// Sites further apart than this are replayed separately: reading the stretch
/// between them would cost more than starting a replay again.
pub const CLUSTER_GAP: i64 = 20_000;

/// Bases replayed before a cluster at first.
const LOOKBACK: i64 = 2_000;
/// Bases replayed after a cluster's last site at first.
const MARGIN: i64 = 512;
/// How far reads may reach past the end of their contig.
pub const OVERHANG: i64 = 1 << 20;

/// A BAM record as the pileup kernel sees it.
pub fn aligned<'r>(record: &Record<'r>) -> AlignedRead<'r> {
    AlignedRead {
        pos: i64::from(record.pos()),
        flag: record.flag(),
        name: record.read_name(),
        cigar: Cigar(record.cigar().as_bytes()),
        seq: record.seq().packed(),
        seq_len: record.l_seq(),
        qual: record.qual(),
        mate_ref_id: record.next_ref_id(),
        mate_pos: i64::from(record.next_pos()),
        template_len: i64::from(record.tlen()),
    }
}

/// Which reads of a contig a replay step pushes: those starting in `resume..end`, and
/// before `start` only those that reach `start - 1` (older reads cannot matter). With
/// `until_covered: Some(q)` the step stops after the reads at the first position from
/// which the BAM covers `q` or beyond.
#[derive(Debug, Clone, Copy)]
pub struct ReadWindow {
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
fn first_covered(coverage: &[(i64, i64)], q: i64) -> Option<i64> {
    let i = coverage.partition_point(|&(_, e)| e <= q);
    coverage.get(i).map(|&(s, _)| s.max(q))
}

/// The compressed offsets, per `index`, of the first records that can overlap 0-based
/// positions `from` and `to` of `ref_id` (0 where the index cannot tell).
fn compressed_between(index: &BamIndex, ref_id: i32, from: i64, to: i64) -> Range<u64> {
    let offset = |pos: i64| {
        index
            .min_offset(ref_id as usize, pos.clamp(0, 1 << 40) as u64 + 1)
            .map_or(0, |v| v.compressed())
    };
    offset(from)..offset(to)
}

/// The BAMs, the pileup settings and one contig: what every replay step needs.
#[derive(Clone, Copy)]
pub struct Contig<'a> {
    /// The BAMs.
    pub bams: &'a BamSet,
    /// snp-pileup's filters and htslib's pileup settings.
    pub params: PileupParams,
    /// Reference index.
    pub ref_id: i32,
}

impl Contig<'_> {
    /// The contig's length.
    pub fn len(&self) -> i64 {
        self.bams
            .header()
            .map_or(0, |h| i64::from(h.references[self.ref_id as usize].length))
    }

    /// Pushes the filtered reads of BAM `file` in `window` into `engine`. Returns where
    /// the step stopped: every read starting before it was pushed, none after.
    pub fn push_reads(
        &self,
        file: usize,
        window: ReadWindow,
        reader: &mut RangeReader,
        engine: &mut FileEngine,
    ) -> anyhow::Result<i64> {
        let (bam, index) = &self.bams.files()[file];
        let ref_id = self.ref_id;
        // A query reaches at most OVERHANG past the contig end, and no further than the
        // index can address (2^29 - 1 for BAI).
        let limit = index.kind().max_position();
        let from = window.start.max(window.resume);
        let first = (from - 1).clamp(0, limit - 1) as u64 + 1;
        let last = window
            .end
            .saturating_sub(1)
            .min(self.len() + OVERHANG)
            .clamp(first as i64, limit) as u64;
        let mut failure = None;
        let mut stopped_at = None;
        // Once coverage from `until_covered` shows up: the last position to push.
        let mut last_group: Option<i64> = None;
        for chunk in index.query(ref_id as usize, first, last)? {
            reader.for_each(bam, chunk, |record| {
                if record.ref_id() != ref_id {
                    if record.ref_id() > ref_id {
                        stopped_at = Some(window.end);
                        return ControlFlow::Break(());
                    }
                    return ControlFlow::Continue(());
                }
                let pos = i64::from(record.pos());
                if pos >= window.end {
                    stopped_at = Some(window.end);
                    return ControlFlow::Break(());
                }
                if last_group.is_some_and(|g| pos > g) {
                    stopped_at = Some(pos);
                    return ControlFlow::Break(());
                }
                if pos < window.resume
                    || !self
                        .params
                        .keeps(record.flag(), record.ref_id(), record.mapq())
                {
                    return ControlFlow::Continue(());
                }
                let read = aligned(&record);
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
            if let Some(e) = failure.take() {
                return Err(anyhow!("{}: {e}", bam.path().display()));
            }
            if stopped_at.is_some() {
                break;
            }
        }
        Ok(stopped_at.unwrap_or(window.end))
    }

    /// Each BAM's `[counted, depth]` at `pos`, replayed from far enough back.
    pub fn counts_at(
        &self,
        pos: i64,
        reader: &mut RangeReader,
        engine: &mut FileEngine,
    ) -> anyhow::Result<Vec<[u32; 2]>> {
        let mut counts = Vec::with_capacity(self.bams.len());
        for file in 0..self.bams.len() {
            let mut lookback = LOOKBACK;
            loop {
                let start = (pos - lookback).max(0);
                engine.reset(self.params, self.ref_id, start, &[pos]);
                self.push_reads(file, ReadWindow::new(start, pos + 1), reader, engine)?;
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
}

/// A worker's state: its reader and one replay engine per BAM.
pub struct Replayer<'a> {
    bams: &'a BamSet,
    contigs: &'a ContigLookup,
    /// The BAMs' contig names, for the rows.
    names: &'a [String],
    /// The walk over a task's sites (without pseudo-SNPs; `None`: the collector walks
    /// every site).
    walker: Option<SiteWalker>,
    params: PileupParams,
    pseudo_every: i64,
    reader: RangeReader,
    engines: Vec<FileEngine>,
    needed: Vec<i64>,
    coverage: Vec<(i64, i64)>,
    /// What this worker did, for `--verbose`.
    pub stats: ReplayStats,
}

/// A worker's work, summed over its tasks.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReplayStats {
    /// Clusters replayed.
    pub clusters: u64,
    /// Replays started again from further back.
    pub widened_back: u64,
    /// Replays continued further forward.
    pub widened_forward: u64,
}

impl std::ops::AddAssign for ReplayStats {
    fn add_assign(&mut self, other: Self) {
        self.clusters += other.clusters;
        self.widened_back += other.widened_back;
        self.widened_forward += other.widened_forward;
    }
}

impl<'a> Replayer<'a> {
    /// A worker for `bams`; `contigs` and `names` map VCF contigs to the BAMs' and
    /// back, `walker` is snp-pileup's walk with the run's rules (`None`: no rows are
    /// written here).
    pub fn new(
        bams: &'a BamSet,
        contigs: &'a ContigLookup,
        names: &'a [String],
        walker: Option<SiteWalker>,
        params: PileupParams,
        pseudo_every: i64,
    ) -> Self {
        Self {
            bams,
            contigs,
            names,
            walker,
            params,
            pseudo_every,
            reader: RangeReader::new(),
            engines: (0..bams.len()).map(|_| FileEngine::new()).collect(),
            needed: Vec::new(),
            coverage: Vec::new(),
            stats: ReplayStats::default(),
        }
    }

    /// BGZF blocks this worker inflated.
    pub fn blocks_inflated(&self) -> u64 {
        self.reader.blocks_inflated()
    }

    /// Replays one cluster of the task: the sites of `task.sites[sites]` on contig `ref_id` (positions non-decreasing) and, with pseudo-SNPs, the positions of `span`.
    fn cluster(
        &mut self,
        task: &mut Task,
        ref_id: i32,
        sites: Range<usize>,
        span: Range<i64>,
    ) -> anyhow::Result<()> {
        let contig = Contig {
            bams: self.bams,
            params: self.params,
            ref_id,
        };
        let on_contig = |s: &&seqfarm_regions::pileup::visit::Site| s.ref_id == contig.ref_id;
        let mut positions: Vec<i64> = task.sites[sites.clone()]
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
        let unbounded = contig.len() + OVERHANG;
        self.stats.clusters += 1;
        let mut lookback = LOOKBACK;
        let mut end = loop {
            let start = (span.start - lookback).max(0);
            let first_end = (span.end + MARGIN).min(unbounded);
            self.prefetch(contig.ref_id, start, first_end);
            let mut pushed = Vec::with_capacity(self.engines.len());
            for (file, engine) in self.engines.iter_mut().enumerate() {
                engine.reset(self.params, contig.ref_id, start, &self.needed);
                let window = ReadWindow::new(start, first_end);
                pushed.push(contig.push_reads(file, window, &mut self.reader, engine)?);
            }
            // Read on until every site's next covered positions are known: each BAM up
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
                    pushed[file] = contig.push_reads(file, window, &mut self.reader, engine)?;
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
        self.release(contig.ref_id, span.start - lookback, end);
        if end >= unbounded {
            end = i64::MAX;
        }
        for site in task.sites[sites].iter().filter(on_contig) {
            let next = self.next_covered(site.pos, end, unbounded);
            let next_after = self.next_covered(site.pos + 1, end, unbounded);
            task.nexts.push((
                next.unwrap_or(Next::PastContig),
                next_after.unwrap_or(Next::PastContig),
            ));
            let at = self.needed.partition_point(|&p| p < site.pos);
            let (reference, alternate) = (base_code(site.reference), base_code(site.alternate));
            for engine in &self.engines {
                let c = engine.counts()[at];
                let [r, a, e, d] = c.alleles(reference, alternate);
                task.counts.push([r, a, e, d, c.depth]);
            }
        }
        if self.pseudo_every != 0 {
            self.pseudo_findings(task, contig, &span)?;
        }
        Ok(())
    }

    /// Reports the covered pseudo-SNP positions of the task's range, and the next covered
    /// positions of sites past it that are pseudo-SNP positions.
    fn pseudo_findings(
        &mut self,
        task: &mut Task,
        contig: Contig<'_>,
        span: &Range<i64>,
    ) -> anyhow::Result<()> {
        let every = self.pseudo_every;
        let files = self.bams.len();
        let from = task.range.start.max(span.start);
        for (i, &p) in self.needed.iter().enumerate() {
            if p < from || p >= task.range.end || (p + 1) % every != 0 || !self.is_covered(p) {
                continue;
            }
            task.pseudo.push(p);
            for engine in &self.engines {
                let c = &engine.counts()[i];
                task.pseudo_counts.push([c.counted(), c.depth]);
            }
        }
        let mut beyond: Vec<i64> = task
            .nexts
            .iter()
            .flat_map(|&(a, b)| [a, b])
            .filter_map(|n| match n {
                Next::At(p) if p >= task.range.end && (p + 1) % every == 0 => Some(p),
                _ => None,
            })
            .collect();
        beyond.sort_unstable();
        beyond.dedup();
        for p in beyond {
            if task.pseudo.last().is_some_and(|&last| last >= p) {
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
                Err(_) => contig.counts_at(p, &mut self.reader, &mut self.engines[0])?,
            };
            debug_assert_eq!(counts.len(), files);
            task.pseudo.push(p);
            task.pseudo_counts.extend(counts);
        }
        Ok(())
    }

    /// Maps in the pages of the BAM bytes a replay between two positions reads, with one
    /// call per BAM.
    fn prefetch(&self, ref_id: i32, from: i64, to: i64) {
        for (bam, index) in self.bams.files() {
            let bytes = compressed_between(index, ref_id, from, to);
            // The block holding the range's last records lies past the last offset.
            bam.prefetch(bytes.start..bytes.end + (1 << 16));
        }
    }

    /// Drops the mapped pages of the BAM bytes between two positions from this process
    /// (they stay in the page cache): a pass over large BAMs keeps a bounded resident set.
    fn release(&self, ref_id: i32, from: i64, to: i64) {
        for (bam, index) in self.bams.files() {
            bam.release(compressed_between(index, ref_id, from, to));
        }
    }

    /// The union of the BAMs' covered intervals.
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

impl Worker<Task, anyhow::Error> for Replayer<'_> {
    fn process(&mut self, task: &mut Task) -> anyhow::Result<()> {
        if self.pseudo_every != 0 {
            return self.process_tiled(task);
        }
        task.summary = sites::parse(
            &task.text,
            task.last_line_cut,
            self.contigs,
            &mut task.sites,
        );
        // Clusters: sites on one BAM contig less than CLUSTER_GAP apart.
        let on_bams: Vec<usize> = (0..task.sites.len())
            .filter(|&i| task.sites[i].ref_id >= 0)
            .collect();
        let mut from = 0;
        while from < on_bams.len() {
            let ref_id = task.sites[on_bams[from]].ref_id;
            let mut to = from + 1;
            while to < on_bams.len() && {
                let (a, b) = (task.sites[on_bams[to - 1]], task.sites[on_bams[to]]);
                b.ref_id == ref_id && b.pos - a.pos <= CLUSTER_GAP
            } {
                to += 1;
            }
            let (a, b) = (on_bams[from], on_bams[to - 1]);
            let span = task.sites[a].pos..task.sites[b].pos + 1;
            self.cluster(task, ref_id, a..b + 1, span)?;
            from = to;
        }
        if let Some(walker) = &mut self.walker {
            rows::walk(task, walker, self.bams.len(), self.names);
        }
        Ok(())
    }
}

impl Replayer<'_> {
    /// With pseudo-SNPs: replays the task's range of one contig as one cluster.
    fn process_tiled(&mut self, task: &mut Task) -> anyhow::Result<()> {
        if task.ref_id < 0 {
            return Ok(());
        }
        let ref_id = task.ref_id;
        let on_contig: Vec<usize> = (0..task.sites.len())
            .filter(|&i| task.sites[i].ref_id == ref_id)
            .collect();
        let whole = match (on_contig.first(), on_contig.last()) {
            (Some(&a), Some(&b)) => a..b + 1,
            _ => 0..0,
        };
        let (mut start, mut end) = (task.range.start, task.range.end);
        if let (Some(&a), Some(&b)) = (on_contig.first(), on_contig.last()) {
            start = start.min(task.sites[a].pos);
            end = end.max(task.sites[b].pos + 1);
        }
        self.cluster(task, ref_id, whole, start..end)
    }
}
