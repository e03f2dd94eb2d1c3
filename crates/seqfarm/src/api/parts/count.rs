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
    let job = CountJob::new(part_options(options)?)?;
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
    let job = CountJob::new(part_options(options)?)?;
    job.table(&FarmConfig::new(worker_threads(threads)), task_bytes, tasks)
}
