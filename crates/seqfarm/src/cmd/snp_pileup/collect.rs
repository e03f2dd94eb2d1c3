//! The collector: snp-pileup's walk over the sites, in VCF order, writing the rows.

use std::io::Write;
use std::path::PathBuf;

use indicatif::ProgressBar;
use seqfarm_farm::Collector;
use seqfarm_io::bgzf_writer::ParallelBgzfWriter;
use seqfarm_io::output::Output;
use seqfarm_plot::SiteTable;
use seqfarm_regions::pileup::replay::{ContigProbe, ReadSource};
use seqfarm_regions::pileup::rows::PileupTable;
use seqfarm_regions::pileup::visit::{SiteWalker, WalkerState};
use seqfarm_regions::pileup::PileupParams;

use super::replay::BamReads;
use super::sites::{ContigAt, LineFailure};
use super::skipped::{SkipTally, SkippedSites};
use super::{rows, Task};

/// libdeflate level of `-g` output (htslib's default is zlib's 6).
pub const GZIP_LEVEL: i32 = 6;

/// Where rows go: the output file, plain or BGZF; write errors name the file.
pub struct Sink {
    path: PathBuf,
    writer: SinkWriter,
}

/// The output, plain or compressed.
enum SinkWriter {
    /// Plain CSV.
    Plain(Output),
    /// BGZF-compressed CSV, compressed off the collector's thread (boxed: the writer
    /// is much larger than an output).
    Bgzf(Box<ParallelBgzfWriter<Output>>),
}

impl Sink {
    /// A sink on `out`, compressing when `gzip` on `threads` threads of its own.
    pub fn new(out: Output, gzip: bool, threads: usize) -> seqfarm_io::Result<Self> {
        let path = out.path().to_path_buf();
        let writer = if gzip {
            SinkWriter::Bgzf(Box::new(
                ParallelBgzfWriter::new(out, GZIP_LEVEL, threads)
                    .map_err(|e| seqfarm_io::Error::io(&path, e))?,
            ))
        } else {
            SinkWriter::Plain(out)
        };
        Ok(Self { path, writer })
    }

    fn write(&mut self, bytes: &[u8]) -> seqfarm_io::Result<()> {
        match &mut self.writer {
            SinkWriter::Plain(out) => out.write_all(bytes),
            SinkWriter::Bgzf(w) => w.write_all(bytes),
        }
        .map_err(|e| seqfarm_io::Error::io(&self.path, e))
    }

    fn finish(self) -> seqfarm_io::Result<()> {
        let out = match self.writer {
            SinkWriter::Plain(out) => out,
            SinkWriter::Bgzf(w) => (*w)
                .finish()
                .map_err(|e| seqfarm_io::Error::io(&self.path, e))?,
        };
        out.commit()
    }
}

/// What the walk carries from one task to the next: taken from a collector at the end of
/// some tasks ([`RowCollector::carry`]), it lets another collector walk the tasks after
/// them ([`RowCollector::resume`]), on another machine, as the one collector would.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkCarry {
    /// Where the walk stands.
    pub walker: WalkerState,
    /// VCF lines before the next task.
    pub lines: u64,
    /// The furthest BAM contig of the sites so far, as the VCF first named it.
    pub furthest: Option<(i32, Vec<u8>)>,
    /// The sites skipped so far, for warnings.
    pub skipped: SkipTally,
}

/// Receives the tasks in order, walks their sites and writes the rows.
pub struct RowCollector<'a> {
    walker: SiteWalker,
    /// The VCF, for errors in its lines.
    vcf: PathBuf,
    /// VCF lines before the next task (tasks of VCF lines).
    lines: u64,
    /// The furthest BAM contig of the sites so far, as the VCF first named it.
    furthest: Option<(i32, Vec<u8>)>,
    sink: Option<Sink>,
    /// Finds covered positions past the contigs the workers looked at: a replay from a
    /// contig start, on this thread.
    probe: ContigProbe<BamReads<'a>>,
    names: Vec<String>,
    rows: Vec<u8>,
    files: usize,
    progress: ProgressBar,
    /// The rows kept for `--plot`.
    sites: Option<SiteTable>,
    /// The rows kept as values.
    table: Option<PileupTable>,
    /// The sites skipped so far, for warnings.
    skipped: SkipTally,
    /// The rows kept as bytes ([`Self::keep_rows`]).
    kept_rows: Option<Vec<u8>>,
}

impl<'a> RowCollector<'a> {
    /// A collector writing to `sink` (none: the rows are only kept, [`Self::keep_table`]);
    /// the header is written at once.
    pub fn new(
        walker: SiteWalker,
        vcf: PathBuf,
        mut sink: Option<Sink>,
        reads: BamReads<'a>,
        params: PileupParams,
        names: Vec<String>,
        progress: bool,
    ) -> anyhow::Result<Self> {
        if let Some(sink) = sink.as_mut() {
            sink.write(&walker.header())?;
        }
        let bar = if progress {
            crate::progress::items("sites")
        } else {
            ProgressBar::hidden()
        };
        Ok(Self {
            walker,
            vcf,
            lines: 0,
            furthest: None,
            sink,
            files: reads.files(),
            probe: ContigProbe::new(reads, params),
            names,
            rows: Vec::with_capacity(1 << 20),
            progress: bar,
            sites: None,
            table: None,
            skipped: SkipTally::default(),
            kept_rows: None,
        })
    }

    /// Keeps the rows for a picture ([`Self::take_sites`]).
    pub fn keep_sites(&mut self) {
        self.sites = Some(SiteTable::new(self.files));
    }

    /// The rows kept since [`Self::keep_sites`].
    pub fn take_sites(&mut self) -> Option<SiteTable> {
        self.sites.take()
    }

    /// Keeps the rows as values ([`Self::take_table`]); the collector then walks every
    /// site itself (the job runs [`super::SnpPileupJob::without_worker_rows`]).
    pub fn keep_table(&mut self) {
        self.table = Some(PileupTable::new(self.names.clone(), self.files));
    }

    /// The rows kept since [`Self::keep_table`].
    pub fn take_table(&mut self) -> Option<PileupTable> {
        self.table.take()
    }

    /// Keeps the rows as the bytes of the output's lines, after `before`
    /// ([`Self::take_rows`]).
    pub fn keep_rows(&mut self, before: Vec<u8>) {
        self.kept_rows = Some(before);
    }

    /// The rows kept since [`Self::keep_rows`].
    pub fn take_rows(&mut self) -> Vec<u8> {
        self.kept_rows.take().unwrap_or_default()
    }

    /// What the walk carries to the tasks after those collected so far.
    pub fn carry(&self) -> WalkCarry {
        WalkCarry {
            walker: self.walker.state(),
            lines: self.lines,
            furthest: self.furthest.clone(),
            skipped: self.skipped.clone(),
        }
    }

    /// Goes on from `carry`, another collector's [`Self::carry`] after the tasks before
    /// the next one given.
    pub fn resume(&mut self, carry: WalkCarry) {
        self.walker.restore(carry.walker);
        self.lines = carry.lines;
        self.furthest = carry.furthest;
        self.skipped = carry.skipped;
    }

    /// Adds sites skipped that no task carried (a part's planner's, with pseudo-SNPs).
    pub fn add_skipped(&mut self, skipped: &SkippedSites) {
        self.skipped.add(skipped);
    }

    /// Checks a task's VCF lines against those before it: the first error of the task's
    /// lines, or a first site whose contig comes before an earlier one in the BAMs.
    fn check_lines(&mut self, task: &Task) -> anyhow::Result<()> {
        self.lines += task.header_lines;
        let summary = &task.summary;
        let base = self.lines;
        let order_error = |at: &ContigAt, furthest: &[u8]| {
            super::sites::contig_order_error(&self.vcf, base + at.line + 1, &at.chrom, furthest)
        };
        if let (Some(first), Some((id, name))) = (&summary.first, &self.furthest) {
            if first.ref_id < *id {
                return Err(order_error(first, name));
            }
        }
        match &summary.failure {
            Some(LineFailure::Format { line, message }) => {
                return Err(seqfarm_io::Error::line(&self.vcf, base + line + 1, message).into());
            }
            Some(LineFailure::Order { at, furthest }) => {
                let name = match &self.furthest {
                    Some((id, name)) if *id == furthest.ref_id => name.as_slice(),
                    _ => furthest.chrom.as_slice(),
                };
                return Err(order_error(at, name));
            }
            None => {}
        }
        if let Some(last) = &summary.last {
            if self.furthest.as_ref().map(|f| f.0) != Some(last.ref_id) {
                self.furthest = Some((last.ref_id, last.chrom.clone()));
            }
        }
        self.lines += summary.lines;
        Ok(())
    }

    /// The warnings of the sites skipped (with `planned`, the planner's counts) or read
    /// unlike a user may expect; the rows are snp-pileup's all the same.
    pub fn skipped_warnings(&mut self, planned: &SkippedSites) -> Vec<String> {
        self.skipped.add(planned);
        self.skipped.warnings(&self.vcf, &self.names)
    }

    /// Writes the last rows and moves the output into place.
    pub fn finish(mut self) -> anyhow::Result<()> {
        self.progress.finish_and_clear();
        match self.sink.take() {
            Some(sink) => Ok(sink.finish()?),
            None => Ok(()),
        }
    }
}

impl Collector<Task, anyhow::Error> for RowCollector<'_> {
    fn collect(&mut self, task: &mut Task) -> anyhow::Result<()> {
        let files = self.files;
        let chunked = self.walker.rules().pseudo_every == 0;
        let mut walked = 0;
        self.skipped.add_task(&task.summary.skipped, &task.sites);
        if chunked {
            self.check_lines(task)?;
            if self.table.is_none() {
                walked = rows::take_rows(task, &mut self.walker, &mut self.rows);
            }
        }
        for (i, &pos) in task.found.pseudo.iter().enumerate() {
            self.walker.offer_pseudo(
                task.ref_id,
                pos,
                &task.found.pseudo_counts[i * files..(i + 1) * files],
            );
        }
        let (walker, probe, names) = (&mut self.walker, &mut self.probe, &self.names);
        for (site, finding) in rows::findings(task, files).skip(walked) {
            match (self.table.as_mut(), self.sites.is_some()) {
                (Some(table), true) => {
                    walker.visit(site, finding, probe, names, &mut (table, &mut self.rows))?
                }
                (Some(table), false) => walker.visit(site, finding, probe, names, table)?,
                (None, _) => walker.visit(site, finding, probe, names, &mut self.rows)?,
            }
        }
        if let Some(sink) = self.sink.as_mut() {
            sink.write(&self.rows)?;
        }
        if let Some(sites) = self.sites.as_mut() {
            sites.add_rows(&self.rows)?;
        }
        if let Some(kept) = self.kept_rows.as_mut() {
            kept.extend_from_slice(&self.rows);
        }
        self.rows.clear();
        self.progress.inc(task.sites.len() as u64);
        Ok(())
    }
}
