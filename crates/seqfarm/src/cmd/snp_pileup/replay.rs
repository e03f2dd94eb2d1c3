//! The worker: replays each BAM's pileup over a task's sites
//! ([`seqfarm_regions::pileup::replay`]) and reports what the collector's walk needs.
//! Without pseudo-SNPs it first parses the task's VCF lines (`super::sites`) and last
//! writes the rows it can (`super::rows`). The replay reads the BAMs through their
//! indexes ([`BamReads`]).

use std::ops::{ControlFlow, Range};

use anyhow::anyhow;
use seqfarm_farm::Worker;
use seqfarm_io::bam::{BamIndex, BamSet, RangeReader, Record};
use seqfarm_io::cram::{CramRangeReader, CramRanges};
use seqfarm_regions::pileup::engine::EngineError;
use seqfarm_regions::pileup::replay::{ReadSource, ReplayStats, Replayer, SourceRead};
use seqfarm_regions::pileup::visit::SiteWalker;
use seqfarm_regions::pileup::{AlignedRead, PileupParams};

use super::chunk::ContigLookup;
use super::{rows, sites, Task};

/// A BAM record as the replay sees it.
fn source_read<'r>(record: &Record<'r>) -> SourceRead<'r> {
    SourceRead {
        ref_id: record.ref_id(),
        mapq: record.mapq(),
        read: AlignedRead {
            pos: i64::from(record.pos()),
            flag: record.flag(),
            name: record.read_name(),
            cigar: record.cigar(),
            seq: record.seq().packed(),
            seq_len: record.l_seq(),
            qual: record.qual(),
            mate_ref_id: record.next_ref_id(),
            mate_pos: i64::from(record.next_pos()),
            template_len: i64::from(record.tlen()),
        },
    }
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

/// The BAMs as the replay's read source: records through each BAM's index, inflated by
/// one reader, and those of a CRAM decoded on demand through a reader of its containers
/// (each worker and the collector have their own).
pub struct BamReads<'a> {
    bams: &'a BamSet,
    reader: RangeReader,
    /// Per file of `bams`, the reader of a CRAM decoded on demand (none: `bams` holds
    /// its records).
    crams: Vec<Option<CramRangeReader<'a>>>,
}

impl<'a> BamReads<'a> {
    /// A source reading `bams`, and the CRAMs among them from `crams` where it has one
    /// (a file it has none for, or all when it is empty, read from `bams`).
    pub fn new(bams: &'a BamSet, crams: &'a [Option<CramRanges>]) -> anyhow::Result<Self> {
        let crams = crams
            .iter()
            .map(|cram| cram.as_ref().map(CramRanges::reader).transpose())
            .collect::<Result<_, _>>()?;
        Ok(Self {
            bams,
            reader: RangeReader::new(),
            crams,
        })
    }

    /// BGZF blocks inflated so far.
    pub fn blocks_inflated(&self) -> u64 {
        self.reader.blocks_inflated()
    }

    /// CRAM containers decoded on demand so far.
    pub fn containers_decoded(&self) -> u64 {
        self.crams
            .iter()
            .flatten()
            .map(CramRangeReader::containers_decoded)
            .sum()
    }
}

impl ReadSource for BamReads<'_> {
    type Error = anyhow::Error;

    fn files(&self) -> usize {
        self.bams.len()
    }

    fn contigs(&self) -> usize {
        self.bams.header().map_or(0, |h| h.references.len())
    }

    fn contig_len(&self, ref_id: i32) -> i64 {
        self.bams
            .header()
            .map_or(0, |h| i64::from(h.references[ref_id as usize].length))
    }

    fn for_each_read<F>(
        &mut self,
        file: usize,
        ref_id: i32,
        first: i64,
        last: i64,
        mut visit: F,
    ) -> anyhow::Result<()>
    where
        F: FnMut(SourceRead<'_>) -> ControlFlow<()>,
    {
        if let Some(Some(cram)) = self.crams.get_mut(file) {
            let start = first.max(1) as u64 - 1;
            cram.for_each_record(ref_id, start, last.max(0) as u64, |record| {
                visit(source_read(&record))
            })?;
            return Ok(());
        }
        let (bam, index) = &self.bams.files()[file];
        // No further than the index can address (2^29 - 1 for BAI).
        let limit = index.kind().max_position();
        let first = first.clamp(1, limit);
        let last = last.clamp(first, limit);
        for chunk in index.query(ref_id as usize, first as u64, last as u64)? {
            let mut stopped = false;
            self.reader.for_each(bam, chunk, |record| {
                let flow = visit(source_read(&record));
                stopped = flow.is_break();
                flow
            })?;
            if stopped {
                break;
            }
        }
        Ok(())
    }

    fn refused(&self, file: usize, error: EngineError) -> anyhow::Error {
        anyhow!("{}: {error}", self.bams.files()[file].0.path().display())
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
}

/// A worker: its replayer and, without pseudo-SNPs, what parsing the task's lines and
/// walking its sites need.
pub struct SiteWorker<'a> {
    replayer: Replayer<BamReads<'a>>,
    contigs: &'a ContigLookup,
    /// The BAMs' contig names, for the rows.
    names: &'a [String],
    /// The walk over a task's sites (without pseudo-SNPs; `None`: the collector walks
    /// every site).
    walker: Option<SiteWalker>,
    /// Whether tasks tile the contigs with pseudo-SNPs (`-P`).
    pseudo: bool,
}

impl<'a> SiteWorker<'a> {
    /// A worker replaying `reads`; `contigs` and `names` map VCF contigs to the BAMs' and
    /// back, `walker` is snp-pileup's walk with the run's rules (`None`: no rows are
    /// written here).
    pub fn new(
        reads: BamReads<'a>,
        contigs: &'a ContigLookup,
        names: &'a [String],
        walker: Option<SiteWalker>,
        params: PileupParams,
        pseudo_every: i64,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            replayer: Replayer::new(reads, params, pseudo_every),
            contigs,
            names,
            walker,
            pseudo: pseudo_every != 0,
        })
    }

    /// CRAM containers this worker decoded on demand.
    pub fn containers_decoded(&self) -> u64 {
        self.replayer.source().containers_decoded()
    }

    /// BGZF blocks this worker inflated.
    pub fn blocks_inflated(&self) -> u64 {
        self.replayer.source().blocks_inflated()
    }

    /// What this worker replayed, for `--verbose`.
    pub fn stats(&self) -> ReplayStats {
        self.replayer.stats
    }
}

impl Worker<Task, anyhow::Error> for SiteWorker<'_> {
    fn process(&mut self, task: &mut Task) -> anyhow::Result<()> {
        if self.pseudo {
            let range = task.range.clone();
            return self
                .replayer
                .replay_range(task.ref_id, range, &task.sites, &mut task.found);
        }
        task.summary = sites::parse(
            &task.text,
            task.last_line_cut,
            self.contigs,
            &mut task.sites,
        );
        self.replayer.replay_sites(&task.sites, &mut task.found)?;
        if let Some(walker) = &mut self.walker {
            rows::walk(task, walker, self.replayer.source().files(), self.names);
        }
        Ok(())
    }
}
