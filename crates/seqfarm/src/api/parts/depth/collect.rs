//! The client's side of a depth run in parts: the parts' summaries walked in order into
//! the command's totals, its per-base runs joined across parts, and the outputs' layout.

use std::path::Path;

use seqfarm_io::bgzf_writer::placed::{Placement, StreamLayout};

use super::wire::Run;
use super::{
    plan_of, planned_job, written_streams, PartPlan, PartSummary, PER_BASE, STREAMS, THRESHOLDS,
};
use crate::cmd::depth::{extend_run, push_run_line, DepthJob, DepthOptions, Totals};

/// Walks the parts' summaries ([`super::depth_part_summary`]) in order.
pub struct DepthCollector {
    job: DepthJob,
    totals: Totals,
    /// The run that may go on into the next part: the part where it starts, its contig.
    pending: Option<(usize, usize, Run)>,
    /// Per part: its joined head and tail lines and its rows' lengths.
    heads: Vec<Option<(usize, Vec<u8>)>>,
    tails: Vec<Option<(usize, Vec<u8>)>>,
    lengths: Vec<Vec<u64>>,
    layouts: Vec<Option<StreamLayout>>,
}

/// What the walk of every part gives: each part's [`PartPlan`] (as bytes), each output's
/// seams and header, and the three text outputs.
pub struct DepthLayout {
    pub plans: Vec<Vec<u8>>,
    /// Per output of [`STREAMS`] (empty for one not written): the seams' blocks and the
    /// parts with a piece of each.
    pub seams: Vec<Vec<(u64, Vec<usize>)>>,
    /// Per output of [`STREAMS`]: the header the client puts before the parts.
    pub headers: Vec<Vec<u8>>,
    /// Whether each output of [`STREAMS`] is written.
    pub written: Vec<bool>,
    /// `.mosdepth.summary.txt`, `.mosdepth.global.dist.txt`, `.mosdepth.region.dist.txt`.
    pub texts: [String; 3],
}

impl DepthCollector {
    /// The walk of the depth run `options` ask for on `bam`; warns on standard error, as
    /// the command does, about BED regions the BAM cannot cover.
    pub fn new(bam: &Path, options: &DepthOptions) -> anyhow::Result<Self> {
        let job = planned_job(bam, options)?;
        job.warn_about_bed();
        Ok(Self {
            job,
            totals: Totals::new(),
            pending: None,
            heads: Vec::new(),
            tails: Vec::new(),
            lengths: Vec::new(),
            layouts: Vec::new(),
        })
    }

    /// The line of `run` on contig `ref_id`.
    fn line(&self, ref_id: usize, run: Run) -> (usize, Vec<u8>) {
        let mut line = Vec::new();
        push_run_line(&mut line, self.job.names()[ref_id].as_bytes(), run);
        (ref_id, line)
    }

    /// Ends the run waiting, if any: its line goes at the end of the part where it
    /// started.
    fn end_pending(&mut self) {
        if let Some((part, ref_id, run)) = self.pending.take() {
            self.tails[part] = Some(self.line(ref_id, run));
        }
    }

    /// `(task size in BAM bytes, tasks)` of the run spread over `parts` parts
    /// ([`super::depth_plan`], without opening the job again).
    pub fn plan(&self, parts: usize) -> anyhow::Result<(u64, usize)> {
        plan_of(&self.job, parts)
    }

    /// Walks the next part's summary.
    pub fn add(&mut self, summary: &[u8]) -> anyhow::Result<()> {
        let summary = PartSummary::read(summary)?;
        let names = self.job.names();
        for c in &summary.contigs {
            let name = names
                .get(c.ref_id)
                .ok_or_else(|| anyhow::anyhow!("depth part: no contig number {}", c.ref_id))?;
            self.totals.add(&c.figures, c.last, name);
        }
        let part = self.heads.len();
        self.heads.push(None);
        self.tails.push(None);
        self.lengths.push(summary.lengths);
        let edges = summary.edges;
        // A part's only run is its tail; it may also join the part before.
        let single = edges.head.is_none() && edges.starts_inside;
        let first = if single { edges.tail } else { edges.head };
        match first.filter(|_| edges.starts_inside) {
            Some((ref_id, run)) => {
                let joins = match &mut self.pending {
                    Some((_, r, p)) => *r == ref_id && extend_run(p, run),
                    None => false,
                };
                if !joins {
                    self.end_pending();
                }
                match (single, joins) {
                    (false, true) => self.end_pending(),
                    (false, false) => self.heads[part] = Some(self.line(ref_id, run)),
                    (true, false) => self.pending = Some((part, ref_id, run)),
                    (true, true) => {}
                }
            }
            None => self.end_pending(),
        }
        if !single {
            if let Some((ref_id, run)) = edges.tail {
                self.pending = Some((part, ref_id, run));
            }
        }
        Ok(())
    }

    /// Ends the walk: the totals, and where each part's bytes go.
    pub fn finish(&mut self) -> anyhow::Result<DepthLayout> {
        self.end_pending();
        self.totals.finish();
        let written = written_streams(&self.job);
        let headers: Vec<Vec<u8>> = (0..STREAMS.len())
            .map(|s| match s == THRESHOLDS && written[s] {
                true => self.job.thresholds_header().into_bytes(),
                false => Vec::new(),
            })
            .collect();
        let line_length =
            |line: &Option<(usize, Vec<u8>)>| line.as_ref().map_or(0, |l| l.1.len() as u64);
        self.layouts = (0..STREAMS.len())
            .map(|s| {
                if !written[s] {
                    return Ok(None);
                }
                let lengths: Vec<u64> = (0..self.lengths.len())
                    .map(|k| {
                        let rows = self.lengths[k].get(s).copied().unwrap_or(0);
                        match s == PER_BASE {
                            true => {
                                rows + line_length(&self.heads[k]) + line_length(&self.tails[k])
                            }
                            false => rows,
                        }
                    })
                    .collect();
                StreamLayout::new(headers[s].len() as u64, &lengths)
                    .map(Some)
                    .map_err(anyhow::Error::msg)
            })
            .collect::<anyhow::Result<_>>()?;
        let plans = (0..self.lengths.len())
            .map(|k| {
                let spans = std::array::from_fn(|s| self.layouts[s].as_ref().map(|l| l.spans()[k]));
                PartPlan {
                    head_line: self.heads[k].clone(),
                    tail_line: self.tails[k].clone(),
                    spans,
                    max_length: self.job.max_length(),
                }
                .to_bytes()
            })
            .collect();
        let seams = self
            .layouts
            .iter()
            .map(|l| l.as_ref().map_or_else(Vec::new, StreamLayout::seams))
            .collect();
        let texts = [
            std::mem::take(&mut self.totals.summary),
            std::mem::take(&mut self.totals.dist_text),
            std::mem::take(&mut self.totals.region_dist_text),
        ];
        Ok(DepthLayout {
            plans,
            seams,
            headers,
            written: written.to_vec(),
            texts,
        })
    }

    /// Where output `stream`'s parts and seams go, from the compressed sizes of each
    /// part's inner blocks and of each seam (after [`DepthCollector::finish`]).
    pub fn place(&self, stream: usize, inner: &[u64], seams: &[u64]) -> anyhow::Result<Placement> {
        match self.layouts.get(stream) {
            Some(Some(layout)) => layout.place(inner, seams).map_err(anyhow::Error::msg),
            _ => anyhow::bail!("depth: output {stream} is not written or not laid out yet"),
        }
    }
}
