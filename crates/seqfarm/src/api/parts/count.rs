//! `seqfarm count` in parts: the command's tasks (consecutive regions, in region
//! order) counted anywhere; the rows of all tasks in order are the command's output.

use seqfarm_farm::FarmConfig;
use seqfarm_io::output::Output;

use super::wire::{WireReader, WireWriter};
use super::RegionPlan;
use crate::cmd::count::{open_output, CountJob, CountOptions, CountTable, RegionStart};
use crate::common::worker_threads;

/// `options` checked for a run in parts (which draws no picture and writes no farm
/// statistics).
fn part_options(options: &CountOptions) -> anyhow::Result<&CountOptions> {
    super::refuse_plot_and_stats(options.plot.as_ref(), &options.farm)?;
    Ok(options)
}

/// Opens the output file of the `count` run `options` ask for (its `-o` file), as the
/// command opens it before any work: never one of its inputs (the BAMs, their indexes,
/// the BED), an existing file replaced once the output is committed (as a re-run of
/// bedtools multicov's redirection replaces it), written through a temporary file beside
/// it. The caller writes the tasks' rows in order, then commits it.
pub fn count_output(options: &CountOptions) -> anyhow::Result<Output> {
    open_output(part_options(options)?)
}

/// The `count` run `options` ask for, cut into at most `parts` parts of about equal BAM
/// bytes (reads the whole BED, none of the BAMs).
pub fn count_plan(options: &CountOptions, parts: usize) -> anyhow::Result<RegionPlan> {
    let options = part_options(options)?;
    super::plan_beside_text_index("count", options.bed.as_deref(), parts, || {
        let job = CountJob::planning(options)?;
        let task_bytes = job.task_bytes(options, parts.max(1));
        let starts = job.task_starts(task_bytes)?;
        let plan = RegionPlan::new(task_bytes, &starts, parts, |start, _| start_to_bytes(start));
        let located =
            |s: &RegionStart| matches!(s, RegionStart::Bed { text, .. } if text.block.is_some());
        Ok((plan, starts.iter().any(located)))
    })
}

/// The rows of tasks `tasks` of the plan with tasks of `task_bytes`, on `threads`
/// threads (`None`: one per core). `start` is the part's ([`super::RegionPart::start`]):
/// the regions are read from there.
pub fn count_tasks(
    options: &CountOptions,
    task_bytes: u64,
    tasks: std::ops::Range<usize>,
    start: &[u8],
    threads: Option<usize>,
) -> anyhow::Result<Vec<u8>> {
    let (job, start) = part_job(options, task_bytes, &tasks, start)?;
    let config = FarmConfig::new(worker_threads(threads));
    let mut out = Vec::new();
    job.run(&config, task_bytes, tasks, Some(&start), |task| {
        out.extend_from_slice(task.rows());
        Ok(())
    })?;
    Ok(out)
}

/// The rows of tasks `tasks` as [`count_tasks`] gives them, as columns.
pub fn count_task_table(
    options: &CountOptions,
    task_bytes: u64,
    tasks: std::ops::Range<usize>,
    start: &[u8],
    threads: Option<usize>,
) -> anyhow::Result<CountTable> {
    let (job, start) = part_job(options, task_bytes, &tasks, start)?;
    let config = FarmConfig::new(worker_threads(threads));
    job.table(&config, task_bytes, tasks, Some(&start))
}

/// The job of a part of tasks `tasks` starting at `start` (its bytes), and the start.
fn part_job(
    options: &CountOptions,
    task_bytes: u64,
    tasks: &std::ops::Range<usize>,
    start: &[u8],
) -> anyhow::Result<(CountJob, RegionStart)> {
    let start = start_from_bytes(start)?;
    let options = part_options(options)?;
    let job = CountJob::for_tasks(options, task_bytes, tasks.clone(), Some(&start))?;
    Ok((job, start))
}

/// A part's start as bytes.
fn start_to_bytes(start: &RegionStart) -> Vec<u8> {
    let mut w = WireWriter::<Vec<u8>>::default();
    match start {
        RegionStart::Bed { text, fields } => w
            .number(0)
            .text_point(text)
            .optional(fields.map(|f| f as u64)),
        RegionStart::Window { ref_id, start } => {
            w.number(1).number(*ref_id as u64).number(*start as u64)
        }
    };
    w.0
}

/// A part's start from [`start_to_bytes`]' bytes.
fn start_from_bytes(bytes: &[u8]) -> anyhow::Result<RegionStart> {
    let mut r = WireReader::new(bytes);
    let start = match r.number()? {
        0 => RegionStart::Bed {
            text: r.text_point()?,
            fields: r.optional()?.map(usize::try_from).transpose()?,
        },
        _ => RegionStart::Window {
            ref_id: usize::try_from(r.number()?)?,
            start: r.number()? as i64,
        },
    };
    anyhow::ensure!(r.is_empty(), "count: a damaged part start");
    Ok(start)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use seqfarm_io::gzip_index::GzipIndex;

    use super::*;

    /// The rows of the run `options` ask for, in one part and in one part per task.
    fn whole_and_in_parts(options: &CountOptions) -> (Vec<u8>, Vec<u8>) {
        let whole = count_plan(options, 1).unwrap();
        let (all, first) = (whole.parts[0].tasks.clone(), &whole.parts[0].start);
        let rows = count_tasks(options, whole.task_bytes, all, first, Some(1)).unwrap();
        let plan = count_plan(options, usize::MAX).unwrap();
        assert!(plan.parts.len() >= 5, "{}", plan.parts.len());
        let mut joined = Vec::new();
        for part in &plan.parts {
            let tasks = part.tasks.clone();
            joined.extend(
                count_tasks(options, plan.task_bytes, tasks, &part.start, Some(1)).unwrap(),
            );
        }
        (rows, joined)
    }

    #[test]
    fn parts_read_a_bed_in_any_form_from_their_own_first_line() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let mut bed = b"# regions\ntrack name=test\n".to_vec();
        for i in 0..3000 {
            let start = 1_000_000 + i * 50;
            writeln!(bed, "20\t{start}\t{}\tregion{i}\t0\t+", start + 300).unwrap();
        }
        let (blocks, stream) = super::super::compressed_forms(&bed);
        let forms = [
            ("r.bed", bed.clone()),
            ("r_blocks.bed.gz", blocks),
            ("r_stream.bed.gz", stream),
        ];
        let bam = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/snp-pileup/normal_slice.bam"
        ));
        for (name, bytes) in forms {
            std::fs::write(dir.path().join(name), bytes).unwrap();
            let options = CountOptions {
                bams: vec![bam.clone()],
                bed: Some(dir.path().join(name)),
                task_bytes: Some(4000),
                ..CountOptions::default()
            };
            let (whole, joined) = whole_and_in_parts(&options);
            assert!(whole.len() > 3000 * 20, "{name}");
            assert!(joined == whole, "{name}");
        }
        // The plan gave the one gzip stream an index, whose access points the parts
        // entered it at.
        let index = GzipIndex::load(&dir.path().join("r_stream.bed.gz")).unwrap();
        assert!(index.points.len() > 2, "{}", index.points.len());
        let windows = CountOptions {
            bams: vec![bam],
            window: Some(500),
            task_bytes: Some(4000),
            ..CountOptions::default()
        };
        let (whole, joined) = whole_and_in_parts(&windows);
        assert!(joined == whole);
        let start = start_to_bytes(&RegionStart::Window {
            ref_id: 3,
            start: 1000,
        });
        assert!(start_from_bytes(&start[..start.len() - 1]).is_err());
    }

    #[test]
    fn a_cram_part_decodes_the_containers_of_its_tasks_alone() {
        let cram = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/cram/normal_slice_containers.cram"
        ));
        let options = CountOptions {
            bams: vec![cram],
            window: Some(500),
            task_bytes: Some(4000),
            ..CountOptions::default()
        };
        let plan = count_plan(&options, 4).unwrap();
        assert_eq!(plan.parts.len(), 4);
        let first = &plan.parts[0].start;
        let all = 0..plan.tasks();
        let whole = count_tasks(&options, plan.task_bytes, all, first, Some(1)).unwrap();
        let mut joined = Vec::new();
        let mut decoded = 0;
        for part in &plan.parts {
            let (tasks, start) = (part.tasks.clone(), &part.start);
            joined.extend(
                count_tasks(&options, plan.task_bytes, tasks.clone(), start, Some(1)).unwrap(),
            );
            let start = start_from_bytes(start).unwrap();
            decoded += CountJob::for_tasks(&options, plan.task_bytes, tasks, Some(&start))
                .unwrap()
                .bam_bytes();
        }
        assert_eq!(joined, whole);
        // The parts decode about the file once between them, not once each.
        let once = CountJob::new(&options).unwrap().bam_bytes();
        assert!(decoded * 4 < once * 5, "{decoded} against {once}");
    }
}
