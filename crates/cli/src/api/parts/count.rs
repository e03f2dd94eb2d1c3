//! `seqfarm count` in parts: the command's tasks (consecutive regions, in region
//! order) counted anywhere; the rows of all tasks in order are the command's output.

use seqfarm_farm::FarmConfig;
use seqfarm_io::output::Output;

use crate::cmd::count::{open_output, CountJob, CountOptions, CountTable};
use crate::common::worker_threads;

/// The count options of a `count` command line (without the program name).
fn count_args(argv: &[String]) -> anyhow::Result<CountOptions> {
    super::refuse_plot(argv)?;
    match crate::api::parse_command(argv)? {
        crate::Command::Count(args) => Ok(args.into_options()),
        _ => anyhow::bail!("not a count command line"),
    }
}

/// Opens the output file of the `count` command line `argv` (its `-o` file), as the
/// command opens it before any work: never one of its inputs (the BAMs, their indexes,
/// the BED), an existing file replaced once the output is committed (as a re-run of
/// bedtools multicov's redirection replaces it), written through a temporary file beside
/// it. The caller writes the tasks' rows in order, then commits it.
pub fn count_output(argv: &[String]) -> anyhow::Result<Output> {
    open_output(&count_args(argv)?)
}

/// `(task size in BAM bytes, tasks)` of the `count` command line `argv` spread over
/// `parts` parts.
pub fn count_plan(argv: &[String], parts: usize) -> anyhow::Result<(u64, usize)> {
    let args = count_args(argv)?;
    let job = CountJob::new(&args)?;
    let task_bytes = job.task_bytes(&args, parts.max(1));
    let nothing = usize::MAX..usize::MAX;
    let (_, _, tasks) = job.run(&FarmConfig::new(1), task_bytes, nothing, |_| Ok(()))?;
    Ok((task_bytes, tasks))
}

/// The rows of tasks `tasks` of the plan with tasks of `task_bytes`, on `threads`
/// threads (`None`: one per core).
pub fn count_tasks(
    argv: &[String],
    task_bytes: u64,
    tasks: std::ops::Range<usize>,
    threads: Option<usize>,
) -> anyhow::Result<Vec<u8>> {
    let args = count_args(argv)?;
    let job = CountJob::new(&args)?;
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
    argv: &[String],
    task_bytes: u64,
    tasks: std::ops::Range<usize>,
    threads: Option<usize>,
) -> anyhow::Result<CountTable> {
    let job = CountJob::new(&count_args(argv)?)?;
    job.table(&FarmConfig::new(worker_threads(threads)), task_bytes, tasks)
}
