//! `seqfarm search` in parts: chunks of the database scanned anywhere, each part's best
//! hits per query merged in the command's order (score, then database position), and
//! the hits aligned again and written as the command writes them.

use seqfarm_farm::FarmConfig;

use super::wire::{WireReader, WireWriter};
pub use crate::cmd::search::hits::Hit;
use crate::cmd::search::hits::{StrandHit, TopHits};
pub use crate::cmd::search::DatabaseSize;
#[cfg(test)]
use crate::cmd::search::GpuChoice;
use crate::cmd::search::{open_output, ScoreTable, SearchJob, SearchOptions, SearchResults};
use crate::common::worker_threads;

/// What a part of the database holds for the search.
#[derive(Debug, Clone, Default)]
pub struct SearchPart {
    /// The size of the part's chunks.
    pub size: DatabaseSize,
    /// Per query, the part's best hits, best first.
    pub hits: Vec<Vec<Hit>>,
    /// `--scores-only`'s scores of the part, as values.
    pub scores: ScoreTable,
}

impl SearchPart {
    /// The part as bytes, to send between processes ([`SearchPart::from_bytes`] reads
    /// them back).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = WireWriter::default();
        out.number(self.size.sequences).number(self.size.residues);
        let scores = &self.scores;
        out.number(scores.query_names.len() as u64);
        for name in &scores.query_names {
            out.bytes(name.as_bytes());
        }
        out.number(scores.len() as u64);
        for ((&query, subject), &score) in
            scores.query.iter().zip(&scores.subject).zip(&scores.score)
        {
            out.number(u64::from(query))
                .bytes(subject.as_bytes())
                .number(score as u64);
        }
        out.number(self.hits.len() as u64);
        for hits in &self.hits {
            out.number(hits.len() as u64);
            for hit in hits {
                out.number(hit.ordinal)
                    .bytes(hit.name.as_bytes())
                    .number(hit.length);
                for strand in &hit.strands {
                    out.number(strand.score as u64)
                        .number(strand.offset)
                        .bytes(&strand.codes);
                }
            }
        }
        out.0
    }

    /// Reads what [`SearchPart::to_bytes`] wrote.
    pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<Self> {
        let mut input = WireReader::new(bytes);
        let mut part = SearchPart::default();
        part.size.sequences = input.number()?;
        part.size.residues = input.number()?;
        let text = |input: &mut WireReader<'_>| -> anyhow::Result<String> {
            Ok(String::from_utf8(input.bytes()?.to_vec())?)
        };
        for _ in 0..input.number()? {
            part.scores.query_names.push(text(&mut input)?);
        }
        for _ in 0..input.number()? {
            let query = u32::try_from(input.number()?)?;
            anyhow::ensure!(
                (query as usize) < part.scores.query_names.len(),
                "a search part names query {query} of {}",
                part.scores.query_names.len()
            );
            part.scores.query.push(query);
            part.scores.subject.push(text(&mut input)?);
            part.scores.score.push(input.number()? as i64);
        }
        for _ in 0..input.number()? {
            let mut hits = Vec::new();
            for _ in 0..input.number()? {
                let ordinal = input.number()?;
                let name = text(&mut input)?;
                let length = input.number()?;
                let mut strands: [StrandHit; 2] = Default::default();
                for strand in &mut strands {
                    strand.score = input.number()? as i32;
                    strand.offset = input.number()?;
                    strand.codes = input.bytes()?.to_vec();
                }
                hits.push(Hit {
                    ordinal,
                    name,
                    length,
                    strands,
                });
            }
            part.hits.push(hits);
        }
        anyhow::ensure!(input.is_empty(), "a search part has bytes left over");
        Ok(part)
    }
}

/// The number of database chunks of the `search` run `options` ask for (the pieces of a
/// record cut into pieces count as one).
pub fn search_plan(options: &SearchOptions) -> anyhow::Result<usize> {
    let job = SearchJob::for_planning(options)?;
    // The output is checked as the command checks it before any work (an input, another
    // output, a directory, a file that may not be written, or an existing file where
    // `--force` is needed), then let go: `search_finish` opens it again.
    drop(open_output(options)?);
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
    options: &SearchOptions,
    chunks: std::ops::Range<usize>,
    threads: Option<usize>,
) -> anyhow::Result<SearchPart> {
    // `--scores-only` scores are kept as values; nothing else is written as lines.
    let job = SearchJob::new(options)?.with_score_values();
    let config = FarmConfig::new(worker_threads(threads));
    let scan = job.scan(&config, |chunk| chunks.contains(&chunk), |_| Ok(()))?;
    Ok(SearchPart {
        size: scan.size,
        hits: scan.hits.into_iter().map(TopHits::into_hits).collect(),
        scores: scan.scores.unwrap_or_default(),
    })
}

/// Writes the output of the `search` run `options` ask for (its `-o` file) from its
/// parts in database order, on `threads` threads; with `keep`, no file is written and
/// the results are returned.
pub fn search_finish(
    options: &SearchOptions,
    parts: Vec<SearchPart>,
    threads: Option<usize>,
    keep: bool,
) -> anyhow::Result<Option<SearchResults>> {
    let job = SearchJob::new(options)?;
    let mut output = if keep {
        None
    } else {
        Some(open_output(options)?)
    };
    let mut scores = ScoreTable::default();
    let mut size = DatabaseSize::default();
    let mut top: Vec<TopHits> = Vec::new();
    for part in parts {
        size.sequences += part.size.sequences;
        size.residues += part.size.residues;
        if options.scores_only {
            match output.as_mut() {
                Some(output) => output.put(&part.scores.lines())?,
                None => scores.append(part.scores),
            }
            continue;
        }
        top.resize_with(part.hits.len(), || job.top_hits());
        for (best, hits) in top.iter_mut().zip(part.hits) {
            for hit in hits {
                best.offer(hit.score(), hit.ordinal, move || hit);
            }
        }
    }
    let mut table = None;
    if !options.scores_only {
        let config = FarmConfig::new(worker_threads(threads));
        table = job.write_hits(&config, top, &size, output.as_mut())?.1;
    }
    match output {
        Some(output) => {
            output.commit()?;
            Ok(None)
        }
        None => Ok(Some(match table {
            Some(table) => SearchResults::Hits(table),
            None => SearchResults::Scores(scores),
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_reads_back_from_its_bytes() {
        let mut part = SearchPart::default();
        part.scores.query_names = vec!["q1".into(), "q2".into()];
        part.scores.query = vec![1, 0];
        part.scores.subject = vec!["s".into(), "t".into()];
        part.scores.score = vec![5, -1];
        part.size.sequences = 3;
        part.size.residues = 700;
        let mut hit = Hit {
            ordinal: 2,
            name: "chr1".into(),
            length: 600,
            ..Hit::default()
        };
        hit.strands[1] = StrandHit {
            score: 40,
            offset: 128,
            codes: vec![0, 3, 2, 1],
        };
        part.hits = vec![vec![], vec![hit.clone(), Hit::default()]];
        let bytes = part.to_bytes();
        let back = SearchPart::from_bytes(&bytes).unwrap();
        assert_eq!(back.hits, part.hits);
        assert_eq!((back.size, back.scores), (part.size, part.scores));
        assert!(SearchPart::from_bytes(&bytes[..30]).is_err());
    }

    #[test]
    fn a_gpu_search_is_planned_without_opening_a_gpu() {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/");
        let options = |gpu: GpuChoice| SearchOptions {
            query: format!("{data}sw_q10.fa").into(),
            database: format!("{data}sw_db1500.fa.gz").into(),
            chunk_size: Some(100_000),
            gpu,
            ..SearchOptions::default()
        };
        let cpu = search_plan(&options(GpuChoice::Off)).unwrap();
        assert!(cpu > 1, "{cpu} chunks");
        // Planning opens no GPU, so `--gpu` plans even where there is none.
        assert_eq!(search_plan(&options(GpuChoice::On)).unwrap(), cpu);
        assert_eq!(search_plan(&options(GpuChoice::Auto)).unwrap(), cpu);
    }
}
