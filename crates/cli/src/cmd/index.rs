//! `seqfarm index`: build the FM-index of a reference FASTA, or verify one (`--check`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use seqfarm_fmindex::{build, index_path, BuildOptions, FmIndex, LoadOptions, ReferenceBuilder};
use seqfarm_io::fasta::{FastaReader, FastaRecord};
use seqfarm_io::output::{refuse_input_as_output, Output};

use crate::common::ForceArg;
use crate::progress;

/// Build an FM-index (FMD-index of both strands) of a reference genome
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The index is written to PREFIX.sfi (default PREFIX: REF without .gz and its \
                  FASTA extension). Contig names and lengths, N runs and IUPAC letters are kept; \
                  ambiguous letters are never matched."
)]
pub struct IndexArgs {
    /// Reference FASTA (plain or gzip; `-` for standard input)
    #[arg(value_name = "REF.fa[.gz]", required_unless_present = "check")]
    reference: Option<PathBuf>,
    /// Output prefix: the index is written to PREFIX.sfi
    #[arg(short = 'o', long = "output", value_name = "PREFIX")]
    prefix: Option<PathBuf>,
    /// Threads for the passes after the suffix sort (the sort itself runs on one)
    /// [default: all cores]
    #[arg(short = 't', long = "threads", value_name = "N")]
    threads: Option<usize>,
    /// Keep every R-th suffix-array row (a power of two): smaller is faster to locate,
    /// larger is smaller on disk
    #[arg(long, value_name = "R", default_value_t = BuildOptions::default().sa_rate)]
    sa_rate: u32,
    /// Length of the k-mer lookup table's strings [default: from the genome size, 8-12]
    #[arg(long, value_name = "K")]
    kmer: Option<u32>,
    /// Verify an existing index (checksums and every invariant) instead of building
    #[arg(long, value_name = "PREFIX", conflicts_with_all = ["reference", "prefix"])]
    check: Option<PathBuf>,
    #[command(flatten)]
    force: ForceArg,
}

impl IndexArgs {
    /// Runs the command.
    pub fn run(self) -> anyhow::Result<()> {
        if let Some(prefix) = &self.check {
            return check(prefix);
        }
        let reference = self
            .reference
            .clone()
            .context("a reference FASTA is required")?;
        let prefix = match &self.prefix {
            Some(p) => p.clone(),
            None if reference == Path::new("-") => {
                anyhow::bail!("reading the reference from standard input needs -o PREFIX")
            }
            None => default_prefix(&reference),
        };
        let path = index_path(&prefix);
        // Refuse an existing index before any work is done.
        refuse_input_as_output(&path, [&reference])?;
        let mut output = Output::create(&path, self.force.overwrite())?;
        let started = Instant::now();
        let spinner = progress::spinner("index");
        let mut timings = StageTimes::new("reading");
        let builder = read_reference(&reference, &spinner)?;
        let options = BuildOptions {
            sa_rate: self.sa_rate,
            kmer_len: self.kmer,
            threads: self
                .threads
                .filter(|&n| n > 0)
                .unwrap_or_else(seqfarm_farm::available_cores),
        };
        let contigs = builder.contigs().len();
        let bases = builder.genome_len();
        let image = build(builder, &options, &mut |stage| {
            timings.next(stage.describe());
            spinner.set_message(stage.describe())
        })
        .with_context(|| format!("{}", reference.display()))?;
        timings.next("writing");
        spinner.set_message("writing the index");
        image.write_to(&mut output).map_err(|e| output.error(e))?;
        output.commit()?;
        timings.next("");
        spinner.finish_and_clear();
        eprintln!(
            "seqfarm index: {} contigs, {} bases -> {} ({} bytes) in {:.1} s ({})",
            contigs,
            bases,
            path.display(),
            image.file_len(),
            started.elapsed().as_secs_f64(),
            timings.summary()
        );
        Ok(())
    }
}

/// Wall time of each build stage, for the summary line.
struct StageTimes {
    current: &'static str,
    since: Instant,
    done: Vec<(&'static str, f64)>,
}

impl StageTimes {
    fn new(first: &'static str) -> Self {
        Self {
            current: first,
            since: Instant::now(),
            done: Vec::new(),
        }
    }

    fn next(&mut self, stage: &'static str) {
        self.done
            .push((self.current, self.since.elapsed().as_secs_f64()));
        self.current = stage;
        self.since = Instant::now();
    }

    fn summary(&self) -> String {
        let parts: Vec<String> = self
            .done
            .iter()
            .map(|(name, s)| format!("{name} {s:.1} s"))
            .collect();
        parts.join(", ")
    }
}

/// `genome.fa.gz` → `genome`: the path without `.gz` and a FASTA extension.
fn default_prefix(reference: &Path) -> PathBuf {
    let mut p = reference.to_path_buf();
    if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz")) {
        p.set_extension("");
    }
    let fasta = ["fa", "fasta", "fna", "fas", "ffn"];
    if p.extension()
        .is_some_and(|e| fasta.iter().any(|f| e.eq_ignore_ascii_case(f)))
    {
        p.set_extension("");
    }
    p
}

/// Reads every FASTA record into the reference builder.
fn read_reference(
    path: &Path,
    spinner: &indicatif::ProgressBar,
) -> anyhow::Result<ReferenceBuilder> {
    let mut reader = FastaReader::open(path)?;
    let mut record = FastaRecord::default();
    let mut builder = ReferenceBuilder::new();
    while reader.read_record(&mut record)? {
        builder
            .add_contig(&record.name, &record.sequence)
            .with_context(|| format!("{}", path.display()))?;
        spinner.set_message(format!(
            "reading: {} contigs, {} bases",
            builder.contigs().len(),
            builder.genome_len()
        ));
    }
    Ok(builder)
}

/// `--check PREFIX`: load with checksums, then verify every invariant.
fn check(prefix: &Path) -> anyhow::Result<()> {
    let path = index_path(prefix);
    let index = FmIndex::open(&path, LoadOptions::default())?;
    let report = index.check()?;
    println!(
        "{}: OK: {} contigs, {} bases, text {} characters, suffix-array rate {}, k-mer length {}, {} bytes, {} BWT rows checked against the reference",
        path.display(),
        report.contigs,
        report.genome_len,
        report.text_len,
        report.sa_rate,
        report.kmer_len,
        report.file_len,
        report.rows_checked
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_prefix_drops_fasta_extensions() {
        assert_eq!(default_prefix(Path::new("a/g.fa.gz")), PathBuf::from("a/g"));
        assert_eq!(default_prefix(Path::new("g.FASTA")), PathBuf::from("g"));
        assert_eq!(default_prefix(Path::new("g.txt")), PathBuf::from("g.txt"));
        assert_eq!(default_prefix(Path::new("g.fna.gz")), PathBuf::from("g"));
    }
}
