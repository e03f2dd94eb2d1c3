//! `seqfarm search` in parts: chunks of the database scanned anywhere, each part's best
//! hits per query merged in the command's order (score, then database position), and
//! the hits aligned again and written as the command writes them.

use seqfarm_farm::FarmConfig;
use seqfarm_io::output::{refuse_input_as_output, Output};

pub use crate::cmd::search::tabular::Hit;
use crate::cmd::search::tabular::TopHits;
pub use crate::cmd::search::DatabaseSize;
use crate::cmd::search::{SearchArgs, SearchJob};
use crate::common::worker_threads;

/// What a part of the database holds for the search.
#[derive(Debug, Clone, Default)]
pub struct SearchPart {
    /// The size of the part's chunks.
    pub size: DatabaseSize,
    /// Per query, the part's best hits, best first.
    pub hits: Vec<Vec<Hit>>,
    /// `--scores-only` lines of the part.
    pub lines: Vec<u8>,
}

/// The `search` arguments of a command line (without the program name).
fn search_args(argv: &[String]) -> anyhow::Result<SearchArgs> {
    match crate::api::parse_command(argv)? {
        crate::Command::Search(args) => Ok(args),
        _ => anyhow::bail!("not a search command line"),
    }
}

/// The number of database chunks of the `search` command line `argv`.
pub fn search_plan(argv: &[String]) -> anyhow::Result<usize> {
    let args = search_args(argv)?;
    let job = SearchJob::new(&args)?;
    let mut chunks = 0;
    job.scan(
        &FarmConfig::new(1),
        |_| {
            chunks += 1;
            false
        },
        |_| Ok(()),
    )?;
    Ok(chunks)
}

/// Scans chunks `chunks` of the database on `threads` threads (`None`: one per core).
pub fn search_chunks(
    argv: &[String],
    chunks: std::ops::Range<usize>,
    threads: Option<usize>,
) -> anyhow::Result<SearchPart> {
    let args = search_args(argv)?;
    let job = SearchJob::new(&args)?;
    let mut lines = Vec::new();
    let config = FarmConfig::new(worker_threads(threads));
    let scan = job.scan(
        &config,
        |chunk| chunks.contains(&chunk),
        |text| {
            lines.extend_from_slice(text);
            Ok(())
        },
    )?;
    Ok(SearchPart {
        size: scan.size,
        hits: scan.hits.into_iter().map(TopHits::into_hits).collect(),
        lines,
    })
}

/// Writes the output of the `search` command line `argv` (its `-o` file) from its
/// parts in database order, on `threads` threads.
pub fn search_finish(
    argv: &[String],
    parts: Vec<SearchPart>,
    threads: Option<usize>,
) -> anyhow::Result<()> {
    let args = search_args(argv)?;
    let job = SearchJob::new(&args)?;
    refuse_input_as_output(&args.output, [&args.query, &args.database])?;
    let mut output = Output::create(&args.output, args.force.overwrite())?;
    let mut size = DatabaseSize::default();
    let mut top: Vec<TopHits> = Vec::new();
    for part in parts {
        size.sequences += part.size.sequences;
        size.residues += part.size.residues;
        if args.scores_only {
            output.put(&part.lines)?;
            continue;
        }
        top.resize_with(part.hits.len(), || TopHits::new(args.top));
        for (best, hits) in top.iter_mut().zip(part.hits) {
            for hit in hits {
                best.offer(hit.score, hit.ordinal, move || hit);
            }
        }
    }
    if !args.scores_only {
        let config = FarmConfig::new(worker_threads(threads));
        job.write_hits(&config, top, &size, &mut output)?;
    }
    output.commit()?;
    Ok(())
}
