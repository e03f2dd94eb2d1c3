//! The output side of `seqfarm depth`: the collector's totals, the per-base runs and the
//! BGZF BED files with their CSI indexes.

use std::path::{Path, PathBuf};

use seqfarm_io::bed_index::{BedIndexer, BedWriteError, IndexedBedWriter};
use seqfarm_io::output::{Output, Overwrite};
use seqfarm_regions::depth::{summary_line, DepthDistribution, DepthStat};
use seqfarm_regions::pileup::rows::push_number;

use super::stretch::StretchFigures;

/// The collector's totals for the contig in progress and the whole file.
pub(crate) struct Totals {
    found: bool,
    stat: DepthStat,
    region_stat: DepthStat,
    dist: DepthDistribution,
    region_dist: DepthDistribution,
    /// mosdepth's first contig region statistics and its totals start from a zero
    /// minimum rather than an empty one.
    first_found: bool,
    all: DepthStat,
    all_regions: DepthStat,
    all_dist: DepthDistribution,
    all_region_dist: DepthDistribution,
    pub(crate) summary: String,
    pub(crate) dist_text: String,
    pub(crate) region_dist_text: String,
    pub(super) run: Option<(i64, i64, i32)>,
}

impl Totals {
    pub(crate) fn new() -> Self {
        let zero_min = DepthStat {
            min: 0,
            ..DepthStat::default()
        };
        Self {
            found: false,
            stat: DepthStat::default(),
            region_stat: DepthStat::default(),
            dist: DepthDistribution::default(),
            region_dist: DepthDistribution::default(),
            first_found: true,
            all: zero_min,
            all_regions: zero_min,
            all_dist: DepthDistribution::default(),
            all_region_dist: DepthDistribution::default(),
            summary: "chrom\tlength\tbases\tmean\tmin\tmax\n".to_string(),
            dist_text: String::new(),
            region_dist_text: String::new(),
            run: None,
        }
    }

    /// Adds a stretch's figures (`last`: the last of its contig, `name`); at a contig's
    /// end writes its summary and distributions.
    pub(crate) fn add(&mut self, figures: &StretchFigures, last: bool, name: &str) {
        self.found |= figures.found;
        self.stat += figures.stat;
        self.region_stat += figures.region_stat;
        self.dist += &figures.dist;
        self.region_dist += &figures.region_dist;
        if !last {
            return;
        }
        if self.found {
            if self.first_found {
                self.region_stat.min = 0;
                self.first_found = false;
            }
            summary_line(name, &self.stat, &mut self.summary);
            summary_line(
                &format!("{name}_region"),
                &self.region_stat,
                &mut self.summary,
            );
            self.all += self.stat;
            self.all_regions += self.region_stat;
            self.dist.write(name, &mut self.dist_text);
            self.region_dist.write(name, &mut self.region_dist_text);
            self.all_dist += &self.dist;
            self.all_region_dist += &self.region_dist;
        }
        self.found = false;
        self.stat = DepthStat::default();
        self.region_stat = DepthStat::default();
        self.dist = DepthDistribution::default();
        self.region_dist = DepthDistribution::default();
    }

    /// The `total` lines.
    pub(crate) fn finish(&mut self) {
        summary_line("total", &self.all, &mut self.summary);
        summary_line("total_region", &self.all_regions, &mut self.summary);
        self.all_dist.write("total", &mut self.dist_text);
        self.all_region_dist
            .write("total", &mut self.region_dist_text);
    }
}

/// Extends per-base run `pending` (`start, end, depth`) with `next` when `next` goes on
/// from it at the same depth (on the same contig); whether it did. The one rule by which
/// the command's collector, a part and the client of a run in parts join runs.
pub(crate) fn extend_run(pending: &mut (i64, i64, i32), next: (i64, i64, i32)) -> bool {
    let joins = pending.1 == next.0 && pending.2 == next.2;
    if joins {
        pending.1 = next.1;
    }
    joins
}

/// Appends per-base run lines to `out`, joining a run that goes on into the next task.
pub(super) fn write_runs(
    out: &mut Vec<u8>,
    pending: &mut Option<(i64, i64, i32)>,
    runs: &[(i64, i64, i32)],
    name: &[u8],
    last: bool,
) {
    let put = |out: &mut Vec<u8>, run| push_run_line(out, name, run);
    for &run in runs {
        if !pending.as_mut().is_some_and(|p| extend_run(p, run)) {
            if let Some(p) = pending.replace(run) {
                put(out, p);
            }
        }
    }
    if last {
        if let Some(p) = pending.take() {
            put(out, p);
        }
    }
}

/// Appends the per-base line of `run` (`start, end, depth`) on contig `name` to `out`.
pub(crate) fn push_run_line(out: &mut Vec<u8>, name: &[u8], (start, end, depth): (i64, i64, i32)) {
    out.extend_from_slice(name);
    for n in [start, end] {
        out.push(b'\t');
        push_number(out, n as u64);
    }
    out.push(b'\t');
    push_number(out, depth.max(0) as u64);
    out.push(b'\n');
}

/// A BGZF BED output that appears when complete, with its CSI index beside it (as
/// mosdepth writes them), compressed on `compressor_threads` threads so that the collector
/// stays light; its errors name its file.
pub(super) struct BgzfOutput {
    path: PathBuf,
    writer: IndexedBedWriter<Output>,
    index_out: Output,
}

impl BgzfOutput {
    pub(super) fn create(
        path: PathBuf,
        overwrite: Overwrite,
        level: i32,
        compressor_threads: usize,
        index: BedIndexer,
    ) -> anyhow::Result<Self> {
        let out = Output::create(&path, overwrite)?;
        let index_out = Output::create(with_suffix(&path, ".csi"), overwrite)?;
        let writer = IndexedBedWriter::new(out, level, compressor_threads, index)
            .map_err(|e| seqfarm_io::Error::io(&path, e))?;
        Ok(Self {
            path,
            writer,
            index_out,
        })
    }

    /// Compresses and writes all of `bytes`, which are not indexed (a header).
    pub(super) fn put(&mut self, bytes: &[u8]) -> seqfarm_io::Result<()> {
        self.writer
            .write_unindexed(bytes)
            .map_err(|e| seqfarm_io::Error::io(&self.path, e))
    }

    /// Compresses, writes and indexes `lines`, BED lines of contig number `ref_id`.
    pub(super) fn put_lines(&mut self, ref_id: usize, lines: &[u8]) -> seqfarm_io::Result<()> {
        self.writer
            .write_lines(ref_id, lines)
            .map_err(|e| Self::error(&self.path, e))
    }

    /// `e` as an error naming the output, `path`.
    fn error(path: &Path, e: BedWriteError) -> seqfarm_io::Error {
        match e {
            BedWriteError::Io(e) => seqfarm_io::Error::io(path, e),
            BedWriteError::Line { offset, message } => {
                seqfarm_io::Error::format(path, offset, message)
            }
        }
    }

    /// Writes the last block and the EOF marker, then the index for `reference_count`
    /// contigs: the two outputs to commit, the file and its index.
    pub(super) fn finish(mut self, reference_count: usize) -> seqfarm_io::Result<[Output; 2]> {
        let (out, index) = self
            .writer
            .finish()
            .map_err(|e| Self::error(&self.path, e))?;
        let index_path = with_suffix(&self.path, ".csi");
        index
            .write(reference_count, &mut self.index_out)
            .map_err(|e| seqfarm_io::Error::io(&index_path, e))?;
        Ok([out, self.index_out])
    }
}

pub(crate) fn with_suffix(prefix: &Path, suffix: &str) -> PathBuf {
    let mut s = prefix.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}
