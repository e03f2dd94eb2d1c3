//! `seqfarm snp-pileup` in parts: the command's tasks (consecutive VCF sites) replayed
//! anywhere, their findings (per site: the counts and the next covered positions) sent
//! back as bytes (`findings`), and the command's collector walking them all in VCF
//! order on one machine: the walk carries its state (the last covered position, the
//! pseudo-SNPs, the contig order, the line numbers) from task to task, so its rows are
//! the command's, byte for byte, however the tasks were spread. A CRAM is decoded where
//! the parts' replays and the walk's contig probe read it, never whole. The walk can
//! also run part after part on the machines that hold the findings
//! ([`super::snp_pileup_walk`]).

use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;

use anyhow::Context;
use seqfarm_farm::{Collector, FarmConfig};

use seqfarm_regions::pileup::visit::Site;

use super::wire::{packed, Unpacker, WireReader, WireWriter};
use super::RegionPlan;
use crate::cmd::snp_pileup::collect::RowCollector;
use crate::cmd::snp_pileup::{
    findings, EmitterStart, PileupTable, PlannerState, SnpPileupJob, SnpPileupOptions, Task,
};
use crate::common::worker_threads;

/// `options` checked for a run in parts (which draws no picture and writes no farm
/// statistics).
pub(super) fn part_options(options: &SnpPileupOptions) -> anyhow::Result<&SnpPileupOptions> {
    super::refuse_plot_and_stats(options.plot.as_ref(), &options.farm)?;
    Ok(options)
}

/// The `snp-pileup` run `options` ask for, cut into at most `parts` parts of about equal
/// BAM bytes (reads the whole VCF, none of the BAMs).
pub fn snp_pileup_plan(options: &SnpPileupOptions, parts: usize) -> anyhow::Result<RegionPlan> {
    let options = part_options(options)?;
    super::plan_beside_text_index("snp-pileup", Some(&options.vcf), parts, || {
        let job = SnpPileupJob::planning(options)?;
        let task_bytes = job.task_bytes(parts.max(1));
        let starts = job.task_starts(task_bytes)?;
        let plan = RegionPlan::new(task_bytes, &starts, parts, |first, next| {
            let mut start = first.clone();
            if start.planner.is_none() {
                start.end = next.map(|next| next.text.offset);
            }
            start_to_bytes(&start)
        });
        Ok((plan, starts.iter().any(|s| s.text.block.is_some())))
    })
}

/// The findings of tasks `tasks` of the plan with tasks of `task_bytes`, on `threads`
/// threads (`None`: one per core), as [`SnpPileupMerge::add`] takes them: BGZF blocks.
/// `start` is the part's ([`super::RegionPart::start`]): the VCF is read from there.
pub fn snp_pileup_tasks(
    options: &SnpPileupOptions,
    task_bytes: u64,
    tasks: std::ops::Range<usize>,
    start: &[u8],
    threads: Option<usize>,
) -> anyhow::Result<Vec<u8>> {
    let options = part_options(options)?;
    let start = start_from_bytes(start)?;
    let job = SnpPileupJob::for_part(options)?.without_worker_rows();
    let files = job.files();
    let config = FarmConfig::new(worker_threads(threads));
    let mut found = Vec::new();
    let figures = job.run(
        &config,
        task_bytes,
        tasks,
        Some(&start),
        &mut |task: &mut Task| {
            findings::encode(task, files, &mut found);
            Ok(())
        },
    )?;
    // The sites the part's planner skipped (with pseudo-SNPs), then the tasks.
    let mut out = Vec::with_capacity(found.len() + 64);
    findings::encode_skipped(&figures.skipped, &mut out);
    out.extend_from_slice(&found);
    // About a third of their size: they travel to the one machine that walks them all.
    Ok(packed(&out))
}

/// Walks one part's findings ([`snp_pileup_tasks`]' bytes, unpacked) with `collector`:
/// the sites its planner skipped, then its tasks.
pub(super) fn walk_part(
    collector: &mut RowCollector<'_>,
    part: &[u8],
    files: usize,
    task: &mut Task,
) -> anyhow::Result<()> {
    let mut at = 0;
    collector.add_skipped(&findings::decode_skipped(part, &mut at)?);
    while at < part.len() {
        findings::decode(part, &mut at, files, task)?;
        collector.collect(task)?;
    }
    Ok(())
}

/// A part's start as bytes.
fn start_to_bytes(start: &EmitterStart) -> Vec<u8> {
    let mut w = WireWriter::<Vec<u8>>::default();
    let place = |w: &mut WireWriter, at: Option<(i32, i64)>| {
        w.optional(at.map(|(ref_id, _)| ref_id as u64))
            .optional(at.map(|(_, pos)| pos as u64));
    };
    w.text_point(&start.text).optional(start.end);
    match &start.planner {
        None => w.number(0),
        Some(state) => {
            w.number(1);
            place(&mut w, state.furthest);
            w.bytes(&state.furthest_name);
            match state.lookahead {
                Some(site) => w
                    .number(1)
                    .number(site.ref_id as u64)
                    .number(site.pos as u64)
                    .number(u64::from(site.reference))
                    .number(u64::from(site.alternate)),
                None => w.number(0),
            };
            place(&mut w, state.tile_from);
            &mut w
        }
    };
    w.0
}

/// A part's start from [`start_to_bytes`]' bytes.
fn start_from_bytes(bytes: &[u8]) -> anyhow::Result<EmitterStart> {
    let damaged = || anyhow::anyhow!("snp-pileup: a damaged part start");
    let mut r = WireReader::new(bytes);
    let contig = |n: u64| i32::try_from(n as i64).map_err(|_| damaged());
    let base = |n: u64| u8::try_from(n).map_err(|_| damaged());
    let place = |r: &mut WireReader| -> anyhow::Result<Option<(i32, i64)>> {
        Ok(match (r.optional()?, r.optional()?) {
            (Some(ref_id), Some(pos)) => Some((contig(ref_id)?, pos as i64)),
            _ => None,
        })
    };
    let (text, end) = (r.text_point()?, r.optional()?);
    let planner = match r.number()? {
        0 => None,
        _ => Some(PlannerState {
            furthest: place(&mut r)?,
            furthest_name: r.bytes()?.to_vec(),
            lookahead: match r.number()? {
                0 => None,
                _ => Some(Site {
                    ref_id: contig(r.number()?)?,
                    pos: r.number()? as i64,
                    reference: base(r.number()?)?,
                    alternate: base(r.number()?)?,
                }),
            },
            tile_from: place(&mut r)?,
        }),
    };
    anyhow::ensure!(r.is_empty(), damaged());
    Ok(EmitterStart { text, planner, end })
}

/// The collector of a `snp-pileup` run in parts on one machine: takes the parts' findings
/// in VCF order and keeps the command's rows as values, on a thread of its own (it walks
/// one part while the next is computed). A run into a file walks on the workers instead
/// ([`super::snp_pileup_walk`]).
pub struct SnpPileupMerge {
    parts: Option<SyncSender<Option<Vec<u8>>>>,
    walk: Option<JoinHandle<anyhow::Result<Walked>>>,
    walked: Option<Walked>,
}

/// What the walk of a run in parts on one machine gives: the rows kept as values (none
/// without sites) and the warnings about the VCF sites skipped, as the command prints
/// them.
type Walked = (Option<PileupTable>, Vec<String>);

impl SnpPileupMerge {
    /// Starts the walk of the `snp-pileup` run `options` ask for, its rows kept as values
    /// (see [`SnpPileupMerge::finish`]).
    pub fn start(options: &SnpPileupOptions) -> anyhow::Result<Self> {
        let options = part_options(options)?;
        let job = SnpPileupJob::for_collector(options)?;
        let files = job.files();
        let (sender, parts) = sync_channel::<Option<Vec<u8>>>(2);
        let walk = std::thread::Builder::new().name("seqfarm-snp-walk".into());
        let walk = walk.spawn(move || -> anyhow::Result<Walked> {
            let mut collector = job.collector(None, 1)?;
            collector.keep_table();
            let mut task = Task::default();
            let mut unpacker = Unpacker::default();
            // Parts, then `None` once the last was given.
            while let Some(compressed) = parts.recv()? {
                let part = unpacker.unpack(&compressed, "snp-pileup: a part's findings")?;
                walk_part(&mut collector, part, files, &mut task)?;
            }
            let table = collector.take_table();
            let warnings = collector.skipped_warnings(&Default::default());
            collector.finish()?;
            Ok((table, warnings))
        });
        let walk = walk.context("snp-pileup: cannot start the walk's thread")?;
        Ok(Self {
            parts: Some(sender),
            walk: Some(walk),
            walked: None,
        })
    }

    /// Walks the next part's findings ([`snp_pileup_tasks`]' bytes; parts in VCF order);
    /// an error of the walk so far ends the run.
    pub fn add(&mut self, part: Vec<u8>) -> anyhow::Result<()> {
        self.send(Some(part))
    }

    /// Waits for the walk; returns the rows and the warnings about the VCF sites skipped
    /// (those the command prints on standard error).
    pub fn finish(mut self) -> anyhow::Result<(PileupTable, Vec<String>)> {
        self.send(None)?;
        self.end()?;
        let (table, warnings) = self.walked.take().unwrap_or_default();
        Ok((table.unwrap_or_default(), warnings))
    }

    /// Sends `part` to the walk (`None`: the last was given).
    fn send(&mut self, part: Option<Vec<u8>>) -> anyhow::Result<()> {
        let sent = self.parts.as_ref().map(|p| p.send(part));
        if !matches!(sent, Some(Ok(()))) {
            self.end()?;
            anyhow::bail!("snp-pileup: the walk has already ended");
        }
        Ok(())
    }

    /// Ends the parts and waits for the walk's outcome.
    fn end(&mut self) -> anyhow::Result<()> {
        self.parts = None;
        if let Some(walk) = self.walk.take() {
            self.walked = Some(
                walk.join()
                    .map_err(|_| anyhow::anyhow!("snp-pileup: the walk stopped unexpectedly"))??,
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn data(path: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data")
            .join(path)
    }

    /// Parts of a run on a CRAM of many containers, with and without pseudo-SNPs.
    fn parts_of_a_cram(pseudo_snps: i64) {
        let cram = data("cram/normal_slice_containers.cram");
        let options = SnpPileupOptions {
            vcf: data("snp-pileup/sites_slice.vcf.gz"),
            bams: vec![cram.clone(), data("snp-pileup/tumor_slice.bam")],
            min_map_quality: 15,
            min_base_quality: 20,
            pseudo_snps,
            task_bytes: Some(20_000),
            ..SnpPileupOptions::default()
        };
        let plan = snp_pileup_plan(&options, 4).unwrap();
        assert_eq!(plan.parts.len(), 4);
        let mut merge = SnpPileupMerge::start(&options).unwrap();
        let mut decoded = 0;
        for part in &plan.parts {
            let (tasks, start) = (part.tasks.clone(), &part.start);
            merge
                .add(
                    snp_pileup_tasks(&options, plan.task_bytes, tasks.clone(), start, Some(1))
                        .unwrap(),
                )
                .unwrap();
            let job = SnpPileupJob::for_part(&options).unwrap();
            let start = start_from_bytes(start).unwrap();
            let figures = job
                .run(
                    &FarmConfig::new(1),
                    plan.task_bytes,
                    tasks,
                    Some(&start),
                    &mut |_: &mut Task| Ok(()),
                )
                .unwrap();
            decoded += figures.containers;
        }
        // The rows of the command, every task in one run.
        let (table, _) = merge.finish().unwrap();
        assert_eq!(table, crate::cmd::snp_pileup::table(&options).unwrap());
        // Between them the parts decode about the CRAM once, not once each.
        let containers = seqfarm_io::cram::CramFile::open(&cram)
            .unwrap()
            .containers()
            .len() as u64;
        assert!(
            decoded > 0 && decoded * 4 < containers * 5,
            "{decoded} of {containers}"
        );
    }

    #[test]
    fn damaged_findings_end_the_walk_with_an_error() {
        let options = SnpPileupOptions {
            vcf: data("snp-pileup/sites_slice.vcf.gz"),
            bams: vec![data("snp-pileup/normal_slice.bam")],
            ..SnpPileupOptions::default()
        };
        let plan = snp_pileup_plan(&options, 1).unwrap();
        let (tasks, start) = (plan.parts[0].tasks.clone(), &plan.parts[0].start);
        let mut part = snp_pileup_tasks(&options, plan.task_bytes, tasks, start, Some(1)).unwrap();
        part.truncate(part.len() / 2);
        let mut merge = SnpPileupMerge::start(&options).unwrap();
        // The walk may end before or after the next part is given.
        let e = merge
            .add(part)
            .and_then(|()| merge.finish().map(|_| ()))
            .unwrap_err();
        assert!(e.to_string().contains("findings"), "{e:#}");
    }

    #[test]
    fn a_part_starts_at_its_own_line_and_block() {
        for pseudo_snps in [0, 100] {
            let options = SnpPileupOptions {
                vcf: data("snp-pileup/sites_slice.vcf.gz"),
                bams: vec![data("snp-pileup/normal_slice.bam")],
                pseudo_snps,
                task_bytes: Some(20_000),
                ..SnpPileupOptions::default()
            };
            let plan = snp_pileup_plan(&options, 3).unwrap();
            let starts: Vec<EmitterStart> = (plan.parts.iter())
                .map(|p| start_from_bytes(&p.start).unwrap())
                .collect();
            for (start, part) in starts.iter().zip(&plan.parts) {
                assert_eq!(start_from_bytes(&start_to_bytes(start)).unwrap(), *start);
                assert_eq!(start.planner.is_some(), pseudo_snps != 0);
                let text = &start.text;
                assert_eq!(text.offset == 0, part.tasks.start == 0, "{text:?}");
                assert!(text.lines > 0 || text.offset == 0, "{text:?}");
                // A BGZF VCF: the block holding the line, at or before it.
                let block = text.block.unwrap();
                assert!(block.text <= text.offset && block.compressed <= block.text);
            }
            let bytes = &plan.parts[1].start;
            assert!(start_from_bytes(&bytes[..bytes.len() - 1]).is_err());
        }
    }

    #[test]
    fn a_vcf_changed_after_planning_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let vcf = dir.path().join("sites.vcf");
        let mut text = Vec::new();
        let original = data("snp-pileup/sites_slice.vcf.gz");
        std::io::Read::read_to_end(
            &mut flate2::read::MultiGzDecoder::new(std::fs::File::open(original).unwrap()),
            &mut text,
        )
        .unwrap();
        std::fs::write(&vcf, &text).unwrap();
        let options = SnpPileupOptions {
            vcf: vcf.clone(),
            bams: vec![data("snp-pileup/normal_slice.bam")],
            task_bytes: Some(20_000),
            ..SnpPileupOptions::default()
        };
        let plan = snp_pileup_plan(&options, 2).unwrap();
        std::fs::write(&vcf, &text[1..]).unwrap();
        let part = &plan.parts[1];
        let e = snp_pileup_tasks(
            &options,
            plan.task_bytes,
            part.tasks.clone(),
            &part.start,
            None,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("the file changed since it was planned"),
            "{e:#}"
        );
        assert!(e.to_string().contains("sites.vcf: line "), "{e:#}");
    }

    #[test]
    fn parts_of_a_cram_decode_what_their_replays_reach() {
        parts_of_a_cram(0);
    }

    #[test]
    fn parts_of_a_cram_with_pseudo_snps_decode_what_their_replays_reach() {
        parts_of_a_cram(100);
    }
}
