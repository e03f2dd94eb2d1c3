//! A search's set-up: the scoring and its statistics, the queries read and checked
//! against the scoring's letters, the GPU opened, and the speed reported at the end.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Result};
use seqfarm_core::nucleotide::reverse_complement_letters;
use seqfarm_io::fasta::{FastaReader, FastaRecord};
use seqfarm_sw::gpu::{GpuDevice, GpuKernels};
use seqfarm_sw::stats::{self, KarlinParams};
use seqfarm_sw::{PassCounts, ScoreMatrix, Scoring};

use super::hits::Strand;
use super::{alphabet, DatabaseSize, Frame, GpuChoice, Query, SearchOptions};

/// How the sequences' letters are checked against the scoring (see [`alphabet`]).
pub(super) struct LetterCheck<'a> {
    /// Letters a custom matrix lacks, by byte; `None` for built-in scoring.
    pub(super) missing: Option<[bool; 256]>,
    /// The matrix as named on the command line.
    pub(super) matrix: &'a str,
    /// `--dna`.
    pub(super) dna: bool,
}

impl LetterCheck<'_> {
    /// Fails on a letter the custom matrix lacks, if there is one.
    pub(super) fn letters(&self, sequence: &[u8], name: &str, path: &Path) -> Result<()> {
        match &self.missing {
            Some(missing) => alphabet::check_letters(missing, sequence, name, path, self.matrix),
            None => Ok(()),
        }
    }

    /// Fails when a sample of built-in-scored sequences has the other alphabet.
    pub(super) fn sample(
        &self,
        sample: &alphabet::LetterSample,
        path: &Path,
        what: &str,
    ) -> Result<()> {
        if self.missing.is_some() {
            return Ok(());
        }
        sample.check(path, what, self.dna, self.matrix)
    }
}

/// The GPU kernels for `queries` (every frame, in order) when `choice` asks for a GPU
/// and one can be used (`SEQFARM_GPU=N` picks the N-th, from 0), with the GPU's
/// description; with `auto`, none when the GPU cannot be used, saying why.
pub(super) fn open_gpu(
    choice: GpuChoice,
    scoring: &Scoring,
    queries: &[Query],
) -> Result<Option<(Arc<GpuKernels>, String)>> {
    if choice == GpuChoice::Off {
        return Ok(None);
    }
    let ordinal = match std::env::var("SEQFARM_GPU") {
        Ok(text) if !text.is_empty() => text
            .parse()
            .map_err(|_| anyhow::anyhow!("SEQFARM_GPU={text}: not a GPU number (0, 1, ...)"))?,
        _ => 0,
    };
    let device = match GpuDevice::open(ordinal) {
        Ok(device) => device,
        Err(e) if choice == GpuChoice::Auto => {
            stderr_line!("search: no GPU used ({e}); searching on the CPU");
            return Ok(None);
        }
        Err(e) => bail!("--gpu: {e}"),
    };
    let frames: Vec<&[u8]> = queries
        .iter()
        .flat_map(|q| &q.frames)
        .map(|f| f.codes.as_slice())
        .collect();
    let kernels =
        GpuKernels::new(&device, scoring, &frames).map_err(|e| anyhow::anyhow!("--gpu: {e}"))?;
    Ok(Some((kernels, device.describe())))
}

/// The scoring scheme `options` asks for.
pub(super) fn scoring(options: &SearchOptions) -> Result<Scoring> {
    let (matrix, default_open, default_extend) = if options.dna {
        (
            ScoreMatrix::dna(options.match_score, options.mismatch)?,
            5,
            2,
        )
    } else {
        let matrix = match ScoreMatrix::builtin(&options.matrix) {
            Some(builtin) => builtin,
            None if Path::new(&options.matrix).exists() => {
                ScoreMatrix::from_file(Path::new(&options.matrix))?
            }
            None => option_error!(
                "--matrix {}: neither a built-in matrix ({}) nor a file",
                options.matrix,
                ScoreMatrix::builtin_names().collect::<Vec<_>>().join(", ")
            ),
        };
        let (open, extend) = stats::default_gap_costs(&options.matrix)
            .unwrap_or((Scoring::DEFAULT_GAP_OPEN, Scoring::DEFAULT_GAP_EXTEND));
        (matrix, open, extend)
    };
    let open = options.gap_open.unwrap_or(default_open);
    let extend = options.gap_extend.unwrap_or(default_extend);
    Ok(Scoring::new(matrix, open, extend)?)
}

/// BLAST's statistics for the scoring scheme, with a warning when it has none.
pub(super) fn karlin_params(options: &SearchOptions, scoring: &Scoring) -> Option<KarlinParams> {
    let (open, extend) = (scoring.gap_open(), scoring.gap_extend());
    let (params, what) = if options.dna {
        (
            KarlinParams::lookup_dna(options.match_score, options.mismatch, open, extend),
            format!("DNA scores {}/{}", options.match_score, options.mismatch),
        )
    } else if ScoreMatrix::builtin(&options.matrix).is_some() {
        (
            KarlinParams::lookup(&options.matrix, open, extend),
            options.matrix.to_ascii_uppercase(),
        )
    } else {
        (None, format!("custom matrix {}", options.matrix))
    };
    if params.is_none() && !options.scores_only {
        stderr_line!(
            "seqfarm: warning: BLAST publishes no Karlin-Altschul parameters for {what} with gap \
             open {open}, extend {extend}; evalue and bitscore are written as NA"
        );
    }
    params
}

/// Reads and encodes every query, one frame per strand searched.
pub(super) fn read_queries(
    path: &Path,
    scoring: &Scoring,
    check: &LetterCheck<'_>,
    strands: &[Strand],
) -> Result<Vec<Query>> {
    let mut reader = FastaReader::open(path)?;
    let mut record = FastaRecord::default();
    let mut queries = Vec::new();
    let mut sample = alphabet::LetterSample::default();
    let matrix = scoring.matrix();
    while reader.read_record(&mut record)? {
        check.letters(&record.sequence, &record.name, path)?;
        sample.add(&record.sequence);
        let residues: Vec<u8> = record
            .sequence
            .iter()
            .filter(|b| !matches!(b, b' ' | b'\t'))
            .map(u8::to_ascii_uppercase)
            .collect();
        if residues.len() > scoring.max_query_len() {
            bail!(
                "{}: query {} has {} residues; at most {} are supported with {}",
                path.display(),
                record.name,
                residues.len(),
                scoring.max_query_len(),
                matrix.name()
            );
        }
        let frames = strands
            .iter()
            .map(|&strand| {
                let mut letters = residues.clone();
                if strand == Strand::Minus {
                    reverse_complement_letters(&mut letters);
                }
                Frame {
                    strand,
                    codes: matrix.encode(&letters),
                    letters,
                }
            })
            .collect();
        queries.push(Query {
            name: std::mem::take(&mut record.name),
            description: std::mem::take(&mut record.description),
            residues,
            frames,
        });
    }
    if queries.is_empty() {
        bail!("{}: no query sequences", path.display());
    }
    check.sample(&sample, path, "queries")?;
    Ok(queries)
}

/// The report on standard error: what was searched, how long it took, GCUPS.
pub(super) fn report_speed(
    queries: &[Query],
    size: &DatabaseSize,
    seconds: f64,
    kernel: &str,
    threads: usize,
    counts: &PassCounts,
) {
    let query_residues: u64 = queries.iter().map(|q| q.residues.len() as u64).sum();
    let strands = queries.first().map_or(1, |q| q.frames.len());
    let cells = (query_residues * strands as u64) as f64 * size.residues as f64;
    let on = match strands {
        1 => "",
        _ => ", both strands",
    };
    stderr_line!(
        "search: {} queries ({} residues{on}) against {} sequences ({} residues) in {:.2} s: \
         {:.2} GCUPS ({}, {} threads; rescored {} at 16 bits, {} at 32 bits)",
        queries.len(),
        query_residues,
        size.sequences,
        size.residues,
        seconds,
        cells / seconds.max(1e-9) / 1e9,
        kernel,
        threads,
        counts.sequences_i16,
        counts.sequences_i32
    );
}
