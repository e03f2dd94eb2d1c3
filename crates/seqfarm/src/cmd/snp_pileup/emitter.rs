//! The emitter of either kind ([`super::chunk`] without pseudo-SNPs, [`super::plan`]
//! with them), and where it stands between two tasks. A run in parts starts each part's emitter where the
//! plan found it before the part's first task ([`EmitterStart`]), so that a part reads
//! the VCF from its own first line, not from the file's.

use seqfarm_farm::Fill;
use seqfarm_io::input::{locate_blocks, Input, LineReader, TextPoint};
use seqfarm_io::vcf::VcfSites;

use super::plan::{PlannerState, SitePlanner};
use super::{chunk, SnpPileupJob, Task};

/// Where an emitter stands before a task: the VCF line its reading resumes at, and with
/// pseudo-SNPs the planner's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmitterStart {
    /// The VCF line the reading resumes at.
    pub text: TextPoint,
    /// The planner's state (with pseudo-SNPs).
    pub planner: Option<PlannerState>,
    /// Without pseudo-SNPs, where a part that starts here stops reading: the next part's
    /// first line (`None`: the VCF's end). Its tasks are those it cuts up to there,
    /// however many: the cuts of tasks of whole lines depend on how the text was read
    /// in blocks, which differs between the plan and a part. A planner's tasks do not
    /// (it reads line by line), so a part with pseudo-SNPs runs the plan's tasks.
    pub end: Option<u64>,
}

/// Cuts the VCF into tasks.
pub(super) enum Emitter<'a> {
    /// Tasks of whole lines, parsed by the workers (without pseudo-SNPs).
    Lines(chunk::VcfChunker<'a>),
    /// Tasks of parsed sites tiling the contigs (with pseudo-SNPs).
    Sites(SitePlanner<'a>),
}

impl<'a> Emitter<'a> {
    /// The emitter of `job`'s tasks of `task_bytes` BAM bytes over `vcf`, read from its
    /// start, or, with `start`, from where that start was taken (`vcf` opened there).
    pub(super) fn new(
        job: &'a SnpPileupJob,
        vcf: Input,
        task_bytes: u64,
        start: Option<&EmitterStart>,
    ) -> Self {
        let end = start.and_then(|s| s.end);
        // The start before the first task is the file's: its header is read.
        let start = start.filter(|s| s.text.offset > 0);
        let mut lines = LineReader::new(vcf);
        if let Some(start) = start {
            lines.number = start.text.lines;
        }
        if job.pseudo_snps == 0 {
            let chunker =
                chunk::VcfChunker::new(lines, &job.bams, &job.contigs, task_bytes, job.task_span);
            return Self::Lines(match start {
                Some(_) => chunker.resume().until(end),
                None => chunker.until(end),
            });
        }
        let sites = match start {
            Some(_) => VcfSites::from_body(lines),
            None => VcfSites::from_lines(lines),
        };
        let planner = SitePlanner::new(
            sites,
            &job.bams,
            &job.contigs,
            job.pseudo_snps,
            task_bytes.max(1),
            job.task_span,
        );
        Self::Sites(match start.and_then(|s| s.planner.clone()) {
            Some(state) => planner.resume(state),
            None => planner,
        })
    }

    /// Whether the emitter's tasks are cut as they come, up to where its start says
    /// it stops, rather than counted as the plan's.
    pub(super) fn runs_to_end(&self) -> bool {
        matches!(self, Self::Lines(_))
    }

    /// Fills `task` with the next task; [`Fill::End`] once the VCF is read.
    pub(super) fn fill(&mut self, task: &mut Task) -> anyhow::Result<Fill> {
        match self {
            Self::Lines(chunker) => chunker.fill(task),
            Self::Sites(planner) => planner.fill(task),
        }
    }

    /// Where the emitter stands before its next task.
    fn start(&mut self) -> anyhow::Result<EmitterStart> {
        let ((offset, lines), planner) = match self {
            Self::Lines(chunker) => (chunker.next_line_start(), None),
            Self::Sites(planner) => {
                let (state, at) = planner.state()?;
                (at, Some(state))
            }
        };
        Ok(EmitterStart {
            text: TextPoint {
                offset,
                lines,
                block: None,
            },
            planner,
            end: None,
        })
    }

    /// The planner's skipped sites (with pseudo-SNPs), for warnings.
    pub(super) fn into_skipped(self) -> super::skipped::SkippedSites {
        match self {
            Self::Lines(_) => Default::default(),
            Self::Sites(planner) => planner.skipped,
        }
    }
}

impl SnpPileupJob {
    /// Plans the whole VCF into tasks of `task_bytes` BAM bytes: where the emitter stands
    /// before each task, in order (the VCF's BGZF blocks located, when it has them; the
    /// first task's start is the file's).
    pub fn task_starts(&self, task_bytes: u64) -> anyhow::Result<Vec<EmitterStart>> {
        let vcf = self.take_vcf()?;
        let mut emitter = Emitter::new(self, vcf, task_bytes, None);
        let mut task = Task::default();
        let mut starts = Vec::new();
        loop {
            let start = emitter.start()?;
            if let Fill::End = emitter.fill(&mut task)? {
                break;
            }
            starts.push(start);
        }
        locate_blocks(&self.vcf, starts.iter_mut().map(|s| &mut s.text));
        Ok(starts)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::cmd::snp_pileup::SnpPileupOptions;

    /// Tasks of whole lines that all fit end once their text reaches its most (8 MiB), at
    /// the end of the block read then; a part read from its own first line reads other
    /// blocks than the plan did, so it reads up to the next part's first line: the
    /// parts' tasks hold the VCF's body, each line once.
    #[test]
    fn parts_of_whole_lines_hold_each_line_once() {
        let dir = tempfile::tempdir().unwrap();
        let vcf = dir.path().join("dense.vcf");
        let mut body = Vec::new();
        for pos in 1_000_001..2_200_000 {
            writeln!(body, "20\t{pos}\t.\tA\tG\t.\t.\t.").unwrap();
        }
        let bam = |name: &str| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/data/snp-pileup")
                .join(name)
        };
        // Headers of other lengths: where the blocks end among the lines.
        for padding in [0, 7, 13, 19] {
            let mut text = format!("##padding={}\n", "x".repeat(padding)).into_bytes();
            text.extend_from_slice(b"#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n");
            text.extend_from_slice(&body);
            std::fs::write(&vcf, text).unwrap();
            let options = SnpPileupOptions {
                vcf: vcf.clone(),
                bams: vec![bam("normal_slice.bam")],
                ..SnpPileupOptions::default()
            };
            let job = SnpPileupJob::planning(&options).unwrap();
            let starts = job.task_starts(1 << 40).unwrap();
            assert!(starts.len() >= 4, "{}", starts.len());
            let mut joined = Vec::new();
            for (k, start) in starts.iter().enumerate() {
                let start = EmitterStart {
                    end: starts.get(k + 1).map(|next| next.text.offset),
                    ..start.clone()
                };
                let vcf = Input::open_at(&vcf, &start.text).unwrap();
                let mut emitter = Emitter::new(&job, vcf, 1 << 40, Some(&start));
                let mut task = Task::default();
                while let Fill::Task = emitter.fill(&mut task).unwrap() {
                    joined.extend_from_slice(&task.text);
                }
            }
            assert!(joined == body, "header padded by {padding}");
        }
    }
}
