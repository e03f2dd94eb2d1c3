//! The emitter with pseudo-SNPs: VCF sites to tasks.
//!
//! Sites are kept as snp-pileup uses them (biallelic SNVs), their contig found in the BAMs
//! with snp-pileup's `chr` prefix rule. Sites that fall behind an earlier site of the same
//! contig are dropped here: snp-pileup's loop always skips them. Tasks hold consecutive
//! sites of one contig and tile each contig from its start, so that every position
//! before the last site belongs to exactly one task; a tile ends when its BAM bytes
//! (estimated from the indexes) reach the task size.

use seqfarm_farm::Fill;
use seqfarm_io::bam::BamSet;
use seqfarm_io::vcf::VcfSites;
use seqfarm_regions::pileup::visit::Site;

use super::chunk::ContigLookup;
use super::skipped::SkippedSites;
use super::Task;

/// Sites per task, at most (bounds a task's memory whatever the site density).
const MAX_SITES: usize = 1 << 17;
/// Pseudo-SNP positions per task, at most.
const MAX_PSEUDO: i64 = 1 << 17;

/// What the planner with pseudo-SNPs carries from one task to the next besides where it
/// reads the VCF: a part's planner starts from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlannerState {
    /// The furthest site so far: (reference index, position).
    pub furthest: Option<(i32, i64)>,
    /// The VCF contig name of `furthest`.
    pub furthest_name: Vec<u8>,
    /// A site read and not yet in a task.
    pub lookahead: Option<Site>,
    /// Where the next task of the current contig starts.
    pub tile_from: Option<(i32, i64)>,
}

/// Reads the VCF and fills tasks (see the module docs).
pub struct SitePlanner<'a> {
    vcf: VcfSites,
    bams: &'a BamSet,
    /// BAM reference names with the `chr` prefix rule applied, to reference index.
    lookup: &'a ContigLookup,
    pseudo_every: i64,
    task_bytes: u64,
    /// Bases per task, at most.
    task_span: i64,
    /// The furthest site so far: (reference index, position).
    furthest: Option<(i32, i64)>,
    /// The VCF contig name of `furthest`.
    furthest_name: Vec<u8>,
    lookahead: Option<Site>,
    /// Where the next task of the current contig starts (pseudo-SNP tiling).
    tile_from: Option<(i32, i64)>,
    ended: bool,
    /// The sites skipped or read as snp-pileup reads them, for warnings.
    pub skipped: SkippedSites,
}

impl<'a> SitePlanner<'a> {
    /// A planner over `vcf` for `bams`: tasks of about `task_bytes` compressed bytes and
    /// at most `task_span` bases.
    pub fn new(
        vcf: VcfSites,
        bams: &'a BamSet,
        lookup: &'a ContigLookup,
        pseudo_every: i64,
        task_bytes: u64,
        task_span: i64,
    ) -> Self {
        Self {
            vcf,
            bams,
            lookup,
            pseudo_every,
            task_bytes,
            task_span: task_span.max(1),
            furthest: None,
            furthest_name: Vec::new(),
            lookahead: None,
            tile_from: None,
            ended: false,
            skipped: SkippedSites::default(),
        }
    }

    /// Where the planner stands before its next task: its state, and where the VCF's
    /// next line starts (bytes of text and lines before it).
    pub fn state(&mut self) -> anyhow::Result<(PlannerState, (u64, u64))> {
        let at = self.vcf.next_line_start()?;
        let state = PlannerState {
            furthest: self.furthest,
            furthest_name: self.furthest_name.clone(),
            lookahead: self.lookahead,
            tile_from: self.tile_from,
        };
        Ok((state, at))
    }

    /// The planner `new` made, continuing from `state` (its VCF read from where the
    /// state was taken).
    pub fn resume(self, state: PlannerState) -> Self {
        Self {
            furthest: state.furthest,
            furthest_name: state.furthest_name,
            lookahead: state.lookahead,
            tile_from: state.tile_from,
            ..self
        }
    }

    /// The next site snp-pileup would not skip for sure, or `None` at the end.
    fn next_site(&mut self) -> anyhow::Result<Option<Site>> {
        if let Some(site) = self.lookahead.take() {
            return Ok(Some(site));
        }
        loop {
            let Some(record) = self.vcf.next_site()? else {
                return Ok(None);
            };
            let Some((reference, alternate)) = record.snv_bases() else {
                continue;
            };
            self.skipped.note_snv(reference);
            // The furthest site's contig, named as this one, needs no lookup (nearly
            // every site: a VCF holds one contig after the other).
            let ref_id = match self.furthest {
                Some((id, _)) if record.chrom == self.furthest_name.as_slice() => id,
                _ => self.lookup.ref_id(record.chrom),
            };
            let site = Site {
                ref_id,
                pos: record.pos - 1,
                reference,
                alternate,
            };
            if ref_id < 0 {
                self.skipped.note_absent(record.chrom);
                return Ok(Some(site));
            }
            match self.furthest {
                Some((id, _)) if ref_id < id => {
                    let chrom = record.chrom.to_vec();
                    return Err(super::sites::contig_order_error(
                        self.vcf.path(),
                        self.vcf.line_number(),
                        &chrom,
                        &self.furthest_name,
                    ));
                }
                Some((id, pos)) if ref_id == id && site.pos < pos => {
                    self.skipped.behind += 1;
                    continue;
                }
                _ => {}
            }
            if self.furthest.map(|f| f.0) != Some(ref_id) {
                self.furthest_name = record.chrom.to_vec();
            }
            self.furthest = Some((ref_id, site.pos));
            return Ok(Some(site));
        }
    }

    /// Fills `task` with the next sites (see the module docs).
    pub fn fill(&mut self, task: &mut Task) -> anyhow::Result<Fill> {
        task.clear();
        if self.ended {
            return Ok(Fill::End);
        }
        let mut last: Option<i64> = None;
        loop {
            let Some(site) = self.next_site()? else {
                self.ended = true;
                if let Some(l) = last {
                    task.range.end = l + 1;
                }
                return Ok(if task.sites.is_empty() {
                    Fill::End
                } else {
                    Fill::Task
                });
            };
            if site.ref_id < 0 {
                task.sites.push(site);
                continue;
            }
            let Some(previous) = last else {
                // The first site on a contig of this task.
                task.ref_id = site.ref_id;
                task.range.start = match self.tile_from {
                    Some((id, from)) if id == site.ref_id => from.min(site.pos),
                    _ => 0,
                };
                if let Some(cut) = self.cut(site.ref_id, task.range.start, site.pos) {
                    // A stretch without sites: a task of pseudo-SNP positions only.
                    task.range.end = cut;
                    self.tile_from = Some((site.ref_id, cut));
                    self.lookahead = Some(site);
                    return Ok(Fill::Task);
                }
                task.sites.push(site);
                last = Some(site.pos);
                continue;
            };
            if site.ref_id != task.ref_id {
                self.lookahead = Some(site);
                self.tile_from = None;
                task.range.end = previous + 1;
                return Ok(Fill::Task);
            }
            if site.pos > previous {
                let end = match self.cut(site.ref_id, task.range.start, site.pos) {
                    Some(c) => Some(c.max(previous + 1)),
                    None => (task.sites.len() >= MAX_SITES).then_some(site.pos),
                };
                if let Some(end) = end {
                    task.range.end = end;
                    self.tile_from = Some((site.ref_id, end));
                    self.lookahead = Some(site);
                    return Ok(Fill::Task);
                }
            }
            task.sites.push(site);
            last = Some(site.pos);
        }
    }

    /// Where to end a task that starts at `from` when the next site is at
    /// `to`, or `None` if `[from, to]` fits in one task.
    fn cut(&self, ref_id: i32, from: i64, to: i64) -> Option<i64> {
        let ref_id = ref_id as usize;
        let longest = MAX_PSEUDO
            .saturating_mul(self.pseudo_every.abs().max(1))
            .min(self.task_span);
        let fits = |end: i64| {
            end - from <= longest && self.bams.bytes_between(ref_id, from, end) < self.task_bytes
        };
        if to <= from || fits(to) {
            return None;
        }
        // The furthest end that still fits (at least one position).
        let (mut lo, mut hi) = (from + 1, to);
        while lo < hi {
            let mid = lo + (hi - lo + 1) / 2;
            if fits(mid) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Some(lo)
    }
}
