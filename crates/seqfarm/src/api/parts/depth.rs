//! `seqfarm depth` in parts: the command's tasks (stretches of contigs) computed anywhere,
//! and its BGZF outputs and their CSI indexes written by the machines that computed them,
//! byte for byte the command's files. The client learns each part's figures (its
//! contigs' statistics and distributions, a few numbers per contig), the runs at its
//! edges and its outputs' sizes, never a row.
//!
//! The steps, for each part in contig order:
//! 1. [`depth_tasks`]: the part's rows and figures ([`depth_part_summary`]: what the
//!    client learns of them).
//! 2. [`DepthCollector`], on the client, walks the summaries in order: the summary and
//!    distributions (the command's collector's totals), the per-base runs joined across
//!    parts (a run that goes on into the next part is one line, written by the part where
//!    it starts), and where each part's bytes lie in each output's stream ([`PartPlan`]).
//! 3. [`depth_compress`]: the part compresses the BGZF blocks lying wholly inside it
//!    and groups its lines for the index; the blocks it shares with its neighbours
//!    ([`depth_pieces`]) are compressed by one seam task each ([`depth_seam`]).
//! 4. The client places the parts and seams ([`DepthCollector::place`]); each part
//!    writes its blocks and gives its line groups their virtual offsets
//!    ([`depth_write`]); one task per output builds its CSI from the parts' line groups
//!    ([`depth_index`]).

mod blocks;
mod collect;
mod wire;

use std::borrow::Cow;
use std::ops::Range;
use std::path::Path;

use seqfarm_farm::FarmConfig;
use seqfarm_io::output::Output;

pub use self::blocks::{
    depth_compress, depth_index, depth_inner_sizes, depth_pieces, depth_seam, depth_write, PartPlan,
};
pub use self::collect::{DepthCollector, DepthLayout};
use self::wire::Run;
use super::wire::{PartBytes, ToWire, WireOut, WireReader, WireWriter};
use crate::cmd::depth::{
    extend_run, push_run_line, DepthJob, DepthOptions, StretchFigures, Task, OTHER_LEVEL,
    REGIONS_LEVEL,
};
use crate::common::worker_threads;

/// The BGZF outputs a depth run writes in parts, in the command's order.
pub const STREAMS: [&str; 3] = [".regions.bed.gz", ".thresholds.bed.gz", ".per-base.bed.gz"];
const REGIONS: usize = 0;
const THRESHOLDS: usize = 1;
const PER_BASE: usize = 2;

/// The libdeflate level of output `stream` (of [`STREAMS`]).
fn level(stream: usize) -> i32 {
    match stream {
        REGIONS => REGIONS_LEVEL,
        _ => OTHER_LEVEL,
    }
}

/// The job `options` ask for on `bam`, opened to plan it or name its contigs
/// ([`DepthJob::planning`]), checked for a run in parts (which draws no picture and
/// writes no farm statistics).
fn planned_job(bam: &Path, options: &DepthOptions) -> anyhow::Result<DepthJob> {
    super::refuse_plot_and_stats(options.plot.as_ref(), &options.farm)?;
    DepthJob::planning(bam, options)
}

/// `(task size in BAM bytes, tasks)` of the depth run `options` ask for on `bam`, spread
/// over `parts` parts.
pub fn depth_plan(
    bam: &Path,
    options: &DepthOptions,
    parts: usize,
) -> anyhow::Result<(u64, usize)> {
    plan_of(&planned_job(bam, options)?, parts)
}

/// [`depth_plan`] of an open job.
fn plan_of(job: &DepthJob, parts: usize) -> anyhow::Result<(u64, usize)> {
    let task_bytes = job.task_bytes(parts.max(1));
    let nothing = usize::MAX..usize::MAX;
    let (_, tasks) = job.run(&FarmConfig::new(1), task_bytes, nothing, |_| Ok(()))?;
    Ok((task_bytes, tasks))
}

/// Which outputs of [`STREAMS`] `job` writes: the regions' always, the thresholds' and
/// the per-base runs' when asked for.
fn written_streams(job: &DepthJob) -> [bool; 3] {
    [true, job.has_thresholds(), job.has_per_base()]
}

/// Opens the outputs of the depth run `options` ask for on `bam` with prefix `prefix`,
/// as the command opens them before any work (never an input; existing files replaced
/// once the run succeeds, as mosdepth replaces them): `(suffix, output)` in the order
/// the command commits them, the BGZF outputs each followed by its index, then the text
/// outputs. Commit them together ([`Output::commit_together`]) once written.
pub fn depth_outputs(
    bam: &Path,
    prefix: &Path,
    options: &DepthOptions,
) -> anyhow::Result<Vec<(String, Output)>> {
    let job = planned_job(bam, options)?;
    let paths = job.output_paths(prefix)?;
    let overwrite = crate::cmd::depth::EXISTING_OUTPUT.overwrite(options.force);
    let mut suffixes: Vec<String> = Vec::new();
    for (suffix, written) in STREAMS.iter().zip(written_streams(&job)) {
        if written {
            suffixes.extend([suffix.to_string(), format!("{suffix}.csi")]);
        }
    }
    suffixes.extend(TEXTS.iter().map(|s| s.to_string()));
    suffixes
        .into_iter()
        .map(|suffix| {
            let path = crate::cmd::depth::with_suffix(prefix, &suffix);
            debug_assert!(paths.contains(&path));
            Ok((suffix, Output::create(&path, overwrite)?))
        })
        .collect()
}

/// The text outputs, in the order of [`DepthLayout::texts`].
pub const TEXTS: [&str; 3] = [
    ".mosdepth.summary.txt",
    ".mosdepth.global.dist.txt",
    ".mosdepth.region.dist.txt",
];

/// Lines of one output and the contig of each: `contigs` holds where each contig's lines
/// start in `text`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Rows<'a> {
    text: Cow<'a, [u8]>,
    contigs: Vec<(u64, usize)>,
}

impl<'a> Rows<'a> {
    /// Appends `lines` of contig `ref_id`.
    fn push(&mut self, ref_id: usize, lines: &[u8]) {
        if !lines.is_empty() {
            self.lines_of(ref_id).extend_from_slice(lines);
        }
    }

    /// The text, to append lines of contig `ref_id` to (at least one).
    fn lines_of(&mut self, ref_id: usize) -> &mut Vec<u8> {
        if self.contigs.last().is_none_or(|&(_, r)| r != ref_id) {
            self.contigs.push((self.text.len() as u64, ref_id));
        }
        self.text.to_mut()
    }

    /// The lines of each contig in turn: `(contig, lines)`.
    fn by_contig(&self) -> impl Iterator<Item = (usize, &[u8])> {
        self.contigs.iter().enumerate().map(|(i, &(at, ref_id))| {
            let end = self
                .contigs
                .get(i + 1)
                .map_or(self.text.len(), |&(e, _)| e as usize);
            (ref_id, &self.text[at as usize..end])
        })
    }

    fn write<O: WireOut>(&self, out: &mut WireWriter<O>) {
        out.bytes(&self.text);
        let flat: Vec<u64> = self
            .contigs
            .iter()
            .flat_map(|&(at, r)| [at, r as u64])
            .collect();
        out.numbers(&flat);
    }

    /// The rows [`Rows::write`] wrote, their text borrowed from `input`.
    fn read(input: &mut WireReader<'a>) -> anyhow::Result<Self> {
        let text = Cow::Borrowed(input.bytes()?);
        let flat = input.numbers()?;
        let contigs = flat
            .chunks(2)
            .map(|c| (c[0], c.get(1).copied().unwrap_or(0) as usize));
        Ok(Self {
            text,
            contigs: contigs.collect(),
        })
    }
}

/// A contig's figures from one part (the part's stretches of it added up).
#[derive(Debug, Clone, PartialEq, Eq)]
struct ContigFigures {
    ref_id: usize,
    /// Whether the part holds the contig's last stretch.
    last: bool,
    figures: StretchFigures,
}

/// The per-base runs at a part's edges, which may join the runs of the parts beside it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct RunEdges {
    /// The part starts inside a contig, so its first run may go on from the part before.
    starts_inside: bool,
    /// Its first run, when it may join the part before and is not also its last.
    head: Option<(usize, Run)>,
    /// Its last run, when the part ends inside a contig (it may go on into the next).
    tail: Option<(usize, Run)>,
}

/// Rows of the part's tasks, their runs joined as the command's collector joins them;
/// the runs at the part's edges kept apart ([`RunEdges`]).
#[derive(Default)]
struct RunJoiner {
    edges: RunEdges,
    /// The head is still to be taken: the part started inside a contig and no run has
    /// ended yet.
    head_open: bool,
    pending: Option<(usize, Run)>,
    started: bool,
}

impl RunJoiner {
    /// Adds task `task`'s runs (the middle runs' lines go to `middle`).
    fn add(&mut self, task: &Task, names: &[String], middle: &mut Rows) {
        if !self.started {
            self.started = true;
            self.edges.starts_inside = task.start > 0;
            self.head_open = self.edges.starts_inside;
        }
        for &run in &task.runs {
            let joined = match &mut self.pending {
                Some((r, p)) => *r == task.ref_id && extend_run(p, run),
                None => false,
            };
            if !joined {
                if let Some(done) = self.pending.replace((task.ref_id, run)) {
                    self.done(done, names, middle);
                }
            }
        }
        if task.last_of_contig {
            if let Some(done) = self.pending.take() {
                self.done(done, names, middle);
            }
            self.head_open = false;
        }
    }

    /// A run that ends here: the head, or a middle line.
    fn done(&mut self, (ref_id, run): (usize, Run), names: &[String], middle: &mut Rows) {
        if std::mem::take(&mut self.head_open) {
            self.edges.head = Some((ref_id, run));
            return;
        }
        push_run_line(middle.lines_of(ref_id), names[ref_id].as_bytes(), run);
    }

    /// The edges, once every task is added.
    fn finish(mut self) -> RunEdges {
        self.edges.tail = self.pending.take();
        self.edges
    }
}

/// What a part computed: its figures and edges (the summary the client reads) and its
/// rows (regions, thresholds, per-base runs between its edges).
struct DepthPart {
    contigs: Vec<ContigFigures>,
    edges: RunEdges,
    rows: [Rows<'static>; 3],
}

impl DepthPart {
    fn summary(&self) -> Vec<u8> {
        let mut out = WireWriter::default();
        out.number(self.contigs.len() as u64);
        for c in &self.contigs {
            let f = &c.figures;
            out.number(c.ref_id as u64)
                .number(u64::from(c.last))
                .number(u64::from(f.found));
            out.stat(&f.stat).stat(&f.region_stat);
            out.numbers(&f.dist.0).numbers(&f.region_dist.0);
        }
        out.number(u64::from(self.edges.starts_inside));
        out.optional_run(self.edges.head)
            .optional_run(self.edges.tail);
        let lengths: Vec<u64> = self.rows.iter().map(|r| r.text.len() as u64).collect();
        out.numbers(&lengths);
        out.0
    }
}

/// A part as it travels: its summary (made once; sizing the bytes and writing them both
/// read it), then its rows.
struct SummarizedPart {
    summary: Vec<u8>,
    rows: [Rows<'static>; 3],
}

/// The part's bytes: its summary (as one byte string, which [`depth_part_summary`]
/// takes out), then its rows.
impl ToWire for SummarizedPart {
    fn to_wire(&self, out: &mut WireWriter<&mut dyn WireOut>) {
        out.bytes(&self.summary);
        for rows in &self.rows {
            rows.write(out);
        }
    }
}

/// A part's summary as [`DepthPart::summary`] wrote it.
struct PartSummary {
    contigs: Vec<ContigFigures>,
    edges: RunEdges,
    lengths: Vec<u64>,
}

impl PartSummary {
    fn read(bytes: &[u8]) -> anyhow::Result<Self> {
        let mut input = WireReader::new(bytes);
        let n = input.number()?;
        let mut contigs = Vec::new();
        for _ in 0..n {
            let ref_id = usize::try_from(input.number()?)?;
            let last = input.number()? != 0;
            let found = input.number()? != 0;
            let (stat, region_stat) = (input.stat()?, input.stat()?);
            let (dist, region_dist) = (input.distribution()?, input.distribution()?);
            let figures = StretchFigures {
                found,
                stat,
                region_stat,
                dist,
                region_dist,
            };
            contigs.push(ContigFigures {
                ref_id,
                last,
                figures,
            });
        }
        let starts_inside = input.number()? != 0;
        let (head, tail) = (input.optional_run()?, input.optional_run()?);
        let edges = RunEdges {
            starts_inside,
            head,
            tail,
        };
        let lengths = input.numbers()?;
        Ok(Self {
            contigs,
            edges,
            lengths,
        })
    }
}

/// Computes tasks `tasks` of the plan with tasks of `task_bytes` on `threads` threads
/// (`None`: one per core): the part's rows and figures, the bytes for [`depth_compress`]
/// and [`depth_part_summary`].
pub fn depth_tasks(
    bam: &Path,
    options: &DepthOptions,
    task_bytes: u64,
    tasks: Range<usize>,
    threads: Option<usize>,
) -> anyhow::Result<PartBytes> {
    super::refuse_plot_and_stats(options.plot.as_ref(), &options.farm)?;
    let job = DepthJob::for_tasks(bam, options, task_bytes, tasks.clone())?;
    let config = FarmConfig::new(worker_threads(threads));
    let names = job.names();
    let mut contigs: Vec<ContigFigures> = Vec::new();
    let mut rows: [Rows<'static>; 3] = Default::default();
    let mut joiner = RunJoiner::default();
    job.run(&config, task_bytes, tasks, |task| {
        rows[REGIONS].push(task.ref_id, &task.rows);
        rows[THRESHOLDS].push(task.ref_id, &task.threshold_rows);
        joiner.add(task, names, &mut rows[PER_BASE]);
        match contigs.last_mut() {
            Some(c) if c.ref_id == task.ref_id => {
                c.figures += &task.figures;
                c.last = task.last_of_contig;
            }
            _ => contigs.push(ContigFigures {
                ref_id: task.ref_id,
                last: task.last_of_contig,
                figures: task.figures.clone(),
            }),
        }
        Ok(())
    })?;
    let part = DepthPart {
        contigs,
        edges: joiner.finish(),
        rows,
    };
    Ok(PartBytes::new(SummarizedPart {
        summary: part.summary(),
        rows: part.rows,
    }))
}

/// What the client learns of a part ([`depth_tasks`]' bytes): its figures, the runs at
/// its edges and its rows' sizes.
pub fn depth_part_summary(part: &[u8]) -> anyhow::Result<Vec<u8>> {
    Ok(WireReader::new(part).bytes()?.to_vec())
}

#[cfg(test)]
mod tests;
