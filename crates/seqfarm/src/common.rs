//! Conventions shared by every command: thread counts, outputs, messages, errors.

use std::path::{Path, PathBuf};

/// Threads per core above which a request is capped: more threads only take turns on
/// the same cores, each holding its own buffers and tasks.
const MAX_THREADS_PER_CORE: usize = 4;

/// The worker threads for `-t/-p N` (`None` or 0: one per core this process may use).
/// A request above `MAX_THREADS_PER_CORE` per core is capped there with one warning
/// line, so that `-t 100000` neither creates 100,000 threads nor fails.
pub fn worker_threads(requested: Option<usize>) -> usize {
    let cores = seqfarm_farm::available_cores();
    let (threads, capped) = capped_threads(requested, cores);
    if capped {
        stderr_line!(
            "seqfarm: warning: {} threads asked for, {threads} used: more than \
             {MAX_THREADS_PER_CORE} per core ({cores} cores here) would only take turns",
            requested.unwrap_or_default()
        );
    }
    threads
}

/// The worker threads of [`worker_threads`], without its warning: for what a run sizes
/// by its workers besides the farm (a CRAM decoder), so that the warning is said once.
pub fn capped_workers(requested: Option<usize>) -> usize {
    capped_threads(requested, seqfarm_farm::available_cores()).0
}

/// [`worker_threads`] on `cores` cores: the count, and whether the request was capped.
fn capped_threads(requested: Option<usize>, cores: usize) -> (usize, bool) {
    let cap = cores.max(1) * MAX_THREADS_PER_CORE;
    match requested.filter(|&n| n > 0) {
        None => (cores.max(1), false),
        Some(n) if n > cap => (cap, true),
        Some(n) => (n, false),
    }
}

/// Refuses, before any output is opened, two outputs of a run that are the same file
/// ([`seqfarm_io::output::refuse_shared_outputs`]): `outputs` are the command's own, each
/// with the option that names it, joined by its `--plot` and `--stats` files when given.
pub fn refuse_shared_outputs<'a>(
    outputs: impl IntoIterator<Item = (&'a str, &'a Path)>,
    plot: Option<&'a PathBuf>,
    stats: Option<&'a PathBuf>,
) -> seqfarm_io::Result<()> {
    let side = [("--plot", plot), ("--stats", stats)]
        .into_iter()
        .filter_map(|(option, path)| Some((option, path?.as_path())));
    seqfarm_io::output::refuse_shared_outputs(outputs.into_iter().chain(side))
}

/// `paths` with the index found beside each of them (`X.bam.bai`, `X.bai`, `X.bam.csi`,
/// or a CRAM's `X.cram.crai`, `X.crai`): the inputs a BAM command reads, which its output
/// must not replace.
pub fn with_bam_indexes(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut all = paths.to_vec();
    all.extend(
        paths
            .iter()
            .filter_map(|p| seqfarm_io::alignment_file::index_beside(p)),
    );
    all
}

/// How `count` and `depth` read their inputs: the fields coverage needs, a CRAM decoded
/// against `reference` on `workers` workers where `ranges` say (`None`: everywhere).
pub(crate) fn coverage_reading<'a>(
    reference: Option<&'a Path>,
    workers: usize,
    ranges: Option<&'a seqfarm_io::cram::WantedRanges>,
) -> seqfarm_io::alignment_file::ReadOptions<'a> {
    seqfarm_io::alignment_file::ReadOptions {
        reference,
        fields: seqfarm_io::cram::Fields::Coverage,
        threads: workers,
        ranges,
    }
}

/// Characters of user input quoted in a message before it is cut.
const EXCERPT_CHARS: usize = 40;

/// `text` as quoted in a message: whole when short, else its first 40 characters and
/// its length (a 100 kb pattern must not be echoed back whole).
pub fn excerpt(text: &str) -> String {
    let chars = text.chars().count();
    if chars <= EXCERPT_CHARS {
        format!("{text:?}")
    } else {
        let head: String = text.chars().take(EXCERPT_CHARS).collect();
        format!("{head:?}… ({chars} characters)")
    }
}

/// Whether `error` comes from writing into a closed pipe.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            return io.kind() == std::io::ErrorKind::BrokenPipe;
        }
        cause
            .downcast_ref::<seqfarm_io::Error>()
            .is_some_and(seqfarm_io::Error::is_broken_pipe)
    })
}

/// Turns a farm error into an `anyhow` error: a role's own error as it is (it names the
/// file and record), a panic or spawn failure as its message.
pub fn farm_error<E>(error: seqfarm_farm::FarmError<E>) -> anyhow::Error
where
    E: Into<anyhow::Error> + std::fmt::Display,
{
    match error.into_source() {
        Ok(source) => source.into(),
        Err(other) => anyhow::anyhow!("{other}"),
    }
}

/// The emitter of a run over tasks `tasks` of a plan (a part of a run in parts): `fill`
/// plans the tasks in order, and those before `tasks` are planned, for their place, and
/// skipped; `planned` counts the tasks planned so far (all of them once the plan ends
/// before `tasks.end`).
pub(crate) fn fill_in_range<T>(
    tasks: &std::ops::Range<usize>,
    planned: &mut usize,
    task: &mut T,
    mut fill: impl FnMut(&mut T) -> anyhow::Result<seqfarm_farm::Fill>,
) -> anyhow::Result<seqfarm_farm::Fill> {
    use seqfarm_farm::Fill;
    loop {
        if *planned >= tasks.end || matches!(fill(task)?, Fill::End) {
            return Ok(Fill::End);
        }
        *planned += 1;
        if tasks.contains(&(*planned - 1)) {
            return Ok(Fill::Task);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn thread_requests_are_capped_at_four_per_core() {
        assert_eq!(super::capped_threads(None, 2), (2, false));
        assert_eq!(super::capped_threads(Some(0), 2), (2, false));
        assert_eq!(super::capped_threads(Some(8), 2), (8, false));
        assert_eq!(super::capped_threads(Some(9), 2), (8, true));
        assert_eq!(super::capped_threads(Some(100_000), 16), (64, true));
    }

    use super::*;

    #[test]
    fn plot_and_stats_files_join_the_outputs() {
        let (out, svg) = (PathBuf::from("out.txt"), PathBuf::from("x.svg"));
        let main = [("-o", out.as_path())];
        let err = refuse_shared_outputs(main, None, Some(&out)).unwrap_err();
        assert!(
            err.to_string()
                .contains("out.txt: named by both -o and --stats"),
            "{err}"
        );
        let err = refuse_shared_outputs(main, Some(&svg), Some(&svg)).unwrap_err();
        assert!(
            err.to_string()
                .contains("x.svg: named by both --plot and --stats"),
            "{err}"
        );
        refuse_shared_outputs(main, Some(&svg), None).unwrap();
        let stdout = PathBuf::from("-");
        refuse_shared_outputs([("-o", stdout.as_path())], None, Some(&stdout)).unwrap();
    }

    #[test]
    fn long_input_is_cut_in_messages() {
        assert_eq!(excerpt("ACGT"), "\"ACGT\"");
        let long = "A".repeat(133_000);
        let shown = excerpt(&long);
        assert_eq!(
            shown,
            format!("\"{}\"… (133000 characters)", "A".repeat(40))
        );
        assert_eq!(
            excerpt(&"é".repeat(41)).chars().count(),
            42 + " (41 characters)".len() + 1
        );
    }
}
