//! Running a search as the command does: its output opened under the command's rules,
//! the scan, the traceback of the reported hits, the statistics file and the speed
//! report; or the same with the results kept in memory as values.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use seqfarm_io::blast::BlastTable;
use seqfarm_io::output::{refuse_input_as_output, Output};

use super::setup::report_speed;
use super::{ScoreTable, SearchJob, SearchOptions, EXISTING_OUTPUT};
use crate::common::refuse_shared_outputs;
use crate::farm_stats::StatsFile;

/// The files a search of `options` reads: the queries, the database and a matrix file.
fn input_files(options: &SearchOptions) -> Vec<PathBuf> {
    let matrix_file = options
        .custom_matrix()
        .then(|| PathBuf::from(&options.matrix));
    [options.query.clone(), options.database.clone()]
        .into_iter()
        .chain(matrix_file)
        .collect()
}

/// Opens the output of `options` under the command's rule, before any work: it must not
/// be an input, nor the same file as `--stats`.
pub(crate) fn open_output(options: &SearchOptions) -> Result<Output> {
    refuse_input_as_output(&options.output, input_files(options))?;
    let output = [("-o", options.output.as_path())];
    refuse_shared_outputs(output, None, options.farm.stats.as_ref())?;
    Ok(Output::create(
        &options.output,
        EXISTING_OUTPUT.overwrite(options.force),
    )?)
}

/// What a search kept in memory gives: its alignments' columns, or with
/// `--scores-only` its scores' columns.
pub enum SearchResults {
    /// The reported alignments, column by column.
    Hits(BlastTable),
    /// The `--scores-only` scores, column by column.
    Scores(ScoreTable),
}

/// Runs `seqfarm search`: the report is written to `options.output`.
pub fn run(options: &SearchOptions) -> Result<()> {
    search_into(options, |options| Ok(Some(open_output(options)?)))?;
    Ok(())
}

/// Runs `seqfarm search` with its results kept in memory (the output file is not
/// written; the statistics file is).
pub fn results(options: &SearchOptions) -> Result<SearchResults> {
    let results = search_into(options, |_| Ok(None))?;
    Ok(results.unwrap_or(SearchResults::Scores(ScoreTable::default())))
}

/// Runs the search of `options`, its results written to the output `output` opens
/// (called once the inputs are read), or, where it opens none, kept and returned.
fn search_into(
    options: &SearchOptions,
    output: impl FnOnce(&SearchOptions) -> Result<Option<Output>>,
) -> Result<Option<SearchResults>> {
    let job = SearchJob::new(options)?;
    let mut output = output(options)?;
    let job = match output {
        Some(_) => job,
        None => job.with_score_values(),
    };
    let config = options.farm.config();
    let mut stats_file = StatsFile::create(
        options.farm.stats.as_ref(),
        "search",
        config.workers,
        EXISTING_OUTPUT.overwrite(options.force),
        input_files(options),
    )?;
    let started = Instant::now();
    let scan = job.scan(
        &config,
        |_| true,
        |lines| match output.as_mut() {
            Some(output) => Ok(output.put(lines)?),
            None => Ok(()),
        },
    )?;
    let seconds = started.elapsed().as_secs_f64();
    stats_file.add(&scan.stats);
    stats_file.total("residues", scan.size.residues, scan.stats.tasks);
    stats_file.total("sequences", scan.size.sequences, scan.stats.tasks);
    let mut results = scan.scores.map(SearchResults::Scores);
    if !options.scores_only {
        let (traceback, table) = job.write_hits(&config, scan.hits, &scan.size, output.as_mut())?;
        stats_file.add(&traceback);
        results = table.map(SearchResults::Hits);
    }
    let results = match output {
        Some(output) => {
            output.commit()?;
            None
        }
        None => results,
    };
    let kernel = match &job.gpu {
        Some((_, name)) => format!("GPU {name}"),
        None => format!("{} kernel", job.isa),
    };
    report_speed(
        &job.queries,
        &scan.size,
        seconds,
        &kernel,
        config.workers,
        &scan.counts,
    );
    stats_file.finish()?;
    Ok(results)
}
