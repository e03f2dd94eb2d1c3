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

use super::wire::{packed, Unpacker};
use crate::cmd::snp_pileup::{findings, PileupTable, SnpPileupJob, SnpPileupOptions, Task};
use crate::common::worker_threads;

/// `options` checked for a run in parts (which draws no picture and writes no farm
/// statistics).
pub(super) fn part_options(options: &SnpPileupOptions) -> anyhow::Result<&SnpPileupOptions> {
    super::refuse_plot_and_stats(options.plot.as_ref(), &options.farm)?;
    Ok(options)
}

/// `(task size in BAM bytes, tasks)` of the `snp-pileup` run `options` ask for, spread over
/// `parts` parts (reads the whole VCF, none of the BAMs).
pub fn snp_pileup_plan(options: &SnpPileupOptions, parts: usize) -> anyhow::Result<(u64, usize)> {
    let options = part_options(options)?;
    let job = SnpPileupJob::planning(options)?;
    let task_bytes = job.task_bytes(parts.max(1));
    let nothing = usize::MAX..usize::MAX;
    let figures = job.run(
        &FarmConfig::new(1),
        task_bytes,
        nothing,
        &mut |_: &mut Task| Ok(()),
    )?;
    Ok((task_bytes, figures.planned))
}

/// The findings of tasks `tasks` of the plan with tasks of `task_bytes`, on `threads`
/// threads (`None`: one per core), as [`SnpPileupMerge::add`] takes them: BGZF blocks.
pub fn snp_pileup_tasks(
    options: &SnpPileupOptions,
    task_bytes: u64,
    tasks: std::ops::Range<usize>,
    threads: Option<usize>,
) -> anyhow::Result<Vec<u8>> {
    let options = part_options(options)?;
    let job = SnpPileupJob::new(options)?.without_worker_rows();
    let files = job.files();
    let config = FarmConfig::new(worker_threads(threads));
    let mut out = Vec::new();
    job.run(&config, task_bytes, tasks, &mut |task: &mut Task| {
        findings::encode(task, files, &mut out);
        Ok(())
    })?;
    // About a third of their size: they travel to the one machine that walks them all.
    Ok(packed(&out))
}

/// The collector of a `snp-pileup` run in parts on one machine: takes the parts' findings
/// in VCF order and keeps the command's rows as values, on a thread of its own (it walks
/// one part while the next is computed). A run into a file walks on the workers instead
/// ([`super::snp_pileup_walk`]).
pub struct SnpPileupMerge {
    parts: Option<SyncSender<Option<Vec<u8>>>>,
    walk: Option<JoinHandle<anyhow::Result<Option<PileupTable>>>>,
    table: Option<PileupTable>,
}

impl SnpPileupMerge {
    /// Starts the walk of the `snp-pileup` run `options` ask for, its rows kept as values
    /// (see [`SnpPileupMerge::finish`]).
    pub fn start(options: &SnpPileupOptions) -> anyhow::Result<Self> {
        let options = part_options(options)?;
        let job = SnpPileupJob::for_collector(options)?;
        let files = job.files();
        let (sender, parts) = sync_channel::<Option<Vec<u8>>>(2);
        let walk = std::thread::Builder::new().name("seqfarm-snp-walk".into());
        let walk = walk.spawn(move || -> anyhow::Result<Option<PileupTable>> {
            let mut collector = job.collector(None, 1)?;
            collector.keep_table();
            let mut task = Task::default();
            let mut unpacker = Unpacker::default();
            // Parts, then `None` once the last was given.
            while let Some(compressed) = parts.recv()? {
                let part = unpacker.unpack(&compressed, "snp-pileup: a part's findings")?;
                let mut at = 0;
                while at < part.len() {
                    findings::decode(part, &mut at, files, &mut task)?;
                    collector.collect(&mut task)?;
                }
            }
            let table = collector.take_table();
            collector.finish()?;
            Ok(table)
        });
        let walk = walk.context("snp-pileup: cannot start the walk's thread")?;
        Ok(Self {
            parts: Some(sender),
            walk: Some(walk),
            table: None,
        })
    }

    /// Walks the next part's findings ([`snp_pileup_tasks`]' bytes; parts in VCF order);
    /// an error of the walk so far ends the run.
    pub fn add(&mut self, part: Vec<u8>) -> anyhow::Result<()> {
        self.send(Some(part))
    }

    /// Waits for the walk; returns the rows.
    pub fn finish(mut self) -> anyhow::Result<PileupTable> {
        self.send(None)?;
        self.end()?;
        Ok(self.table.take().unwrap_or_default())
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
            self.table = walk
                .join()
                .map_err(|_| anyhow::anyhow!("snp-pileup: the walk stopped unexpectedly"))??;
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
        let (task_bytes, tasks) = snp_pileup_plan(&options, 4).unwrap();
        assert!(tasks >= 4, "{tasks}");
        let mut merge = SnpPileupMerge::start(&options).unwrap();
        let mut decoded = 0;
        for k in 0..4 {
            let part = tasks * k / 4..tasks * (k + 1) / 4;
            merge
                .add(snp_pileup_tasks(&options, task_bytes, part.clone(), Some(1)).unwrap())
                .unwrap();
            let job = SnpPileupJob::new(&options).unwrap();
            let figures = job
                .run(
                    &FarmConfig::new(1),
                    task_bytes,
                    part,
                    &mut |_: &mut Task| Ok(()),
                )
                .unwrap();
            decoded += figures.containers;
        }
        // The rows of the command, every task in one run.
        let table = merge.finish().unwrap();
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
        let (task_bytes, tasks) = snp_pileup_plan(&options, 1).unwrap();
        let mut part = snp_pileup_tasks(&options, task_bytes, 0..tasks, Some(1)).unwrap();
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
    fn parts_of_a_cram_decode_what_their_replays_reach() {
        parts_of_a_cram(0);
    }

    #[test]
    fn parts_of_a_cram_with_pseudo_snps_decode_what_their_replays_reach() {
        parts_of_a_cram(100);
    }
}
