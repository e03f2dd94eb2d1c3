//! `seqfarm count` in parts: the command's tasks (consecutive regions, in region
//! order) counted anywhere; the rows of all tasks in order are the command's output.

use seqfarm_farm::FarmConfig;
use seqfarm_io::output::Output;

use crate::cmd::count::{open_output, CountJob, CountOptions, CountTable};
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

/// `(task size in BAM bytes, tasks)` of the `count` run `options` ask for, spread over
/// `parts` parts.
pub fn count_plan(options: &CountOptions, parts: usize) -> anyhow::Result<(u64, usize)> {
    let options = part_options(options)?;
    let job = CountJob::planning(options)?;
    let task_bytes = job.task_bytes(options, parts.max(1));
    let nothing = usize::MAX..usize::MAX;
    let (_, _, tasks) = job.run(&FarmConfig::new(1), task_bytes, nothing, |_| Ok(()))?;
    Ok((task_bytes, tasks))
}

/// The rows of tasks `tasks` of the plan with tasks of `task_bytes`, on `threads`
/// threads (`None`: one per core).
pub fn count_tasks(
    options: &CountOptions,
    task_bytes: u64,
    tasks: std::ops::Range<usize>,
    threads: Option<usize>,
) -> anyhow::Result<Vec<u8>> {
    let job = CountJob::for_tasks(part_options(options)?, task_bytes, tasks.clone())?;
    let config = FarmConfig::new(worker_threads(threads));
    let mut out = Vec::new();
    job.run(&config, task_bytes, tasks, |task| {
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
    threads: Option<usize>,
) -> anyhow::Result<CountTable> {
    let job = CountJob::for_tasks(part_options(options)?, task_bytes, tasks.clone())?;
    job.table(&FarmConfig::new(worker_threads(threads)), task_bytes, tasks)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

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
        let (task_bytes, tasks) = count_plan(&options, 4).unwrap();
        assert!(tasks >= 4, "{tasks}");
        let whole = count_tasks(&options, task_bytes, 0..tasks, Some(1)).unwrap();
        let mut joined = Vec::new();
        let mut decoded = 0;
        for k in 0..4 {
            let part = tasks * k / 4..tasks * (k + 1) / 4;
            joined.extend(count_tasks(&options, task_bytes, part.clone(), Some(1)).unwrap());
            decoded += CountJob::for_tasks(&options, task_bytes, part)
                .unwrap()
                .bam_bytes();
        }
        assert_eq!(joined, whole);
        // The parts decode about the file once between them, not once each.
        let once = CountJob::new(&options).unwrap().bam_bytes();
        assert!(decoded * 4 < once * 5, "{decoded} against {once}");
    }
}
