//! `seqfarm index`: build the FM-index of a reference FASTA, or verify one (`--check`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use seqfarm_fmindex::{
    build, default_kmer_len, index_path, BuildOptions, BuildProgress, BuildStage, FmIndex,
    LoadOptions, ReferenceBuilder, MAX_KMER_LEN,
};
use seqfarm_io::fasta::{FastaReader, FastaRecord};
use seqfarm_io::output::{refuse_input_as_output, ExistingOutput, Output};

use crate::farm_stats::StatsFile;
use crate::progress;

/// An existing `PREFIX.sfi` or `--stats` file is replaced, as `bwa index` and
/// `bowtie2-build` replace their index files when run again.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;

/// What an index build takes besides its reference and prefix; the defaults are those of
/// `seqfarm index`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexOptions {
    /// Threads of every pass (`None`: one per core, at most 4 per core).
    pub threads: Option<usize>,
    /// Memory budget of the build in bytes (`None`: from the genome size and the memory
    /// available).
    pub memory: Option<u64>,
    /// Every this many suffix-array rows are kept: a power of two in 1..=256.
    pub sa_rate: u32,
    /// Length of the k-mer table's strings (`None`: from the genome size).
    pub kmer: Option<u32>,
    /// A file for the run's statistics (JSON).
    pub stats: Option<PathBuf>,
    /// `--force`: accepted; an existing index is replaced either way.
    pub force: bool,
}

impl Default for IndexOptions {
    fn default() -> Self {
        Self {
            threads: None,
            memory: None,
            sa_rate: BuildOptions::default().sa_rate,
            kmer: None,
            stats: None,
            force: false,
        }
    }
}

impl IndexOptions {
    /// Refuses values the command line's parser would refuse, with its messages.
    pub fn check(&self) -> anyhow::Result<()> {
        if !is_sa_rate(self.sa_rate) {
            option_error!(
                "sa_rate: \"{}\" is not a power of two in 1..=256",
                self.sa_rate
            );
        }
        if let Some(k) = self.kmer.filter(|k| !(1..=MAX_KMER_LEN).contains(k)) {
            option_error!("kmer: {k} is not in 1..={MAX_KMER_LEN}");
        }
        if self.memory == Some(0) {
            option_error!("memory: the size must be positive");
        }
        Ok(())
    }
}

/// Builds the index of `reference` (FASTA, plain or gzip; `-`: standard input) into
/// `PREFIX.sfi` (`None`: the reference's name without its FASTA extensions) as
/// `seqfarm index` does, and returns its path. An existing index is replaced once the
/// build has succeeded; the reference itself never is.
pub fn build_index(
    reference: &Path,
    prefix: Option<&Path>,
    options: &IndexOptions,
) -> anyhow::Result<PathBuf> {
    options.check()?;
    let prefix = match prefix {
        Some(p) => p.to_path_buf(),
        None if reference == Path::new("-") => {
            option_error!("reading the reference from standard input needs -o PREFIX")
        }
        None => default_prefix(reference),
    };
    let path = index_path(&prefix);
    // Refuse an index that would replace the reference before any work is done.
    refuse_input_as_output(&path, [reference])?;
    crate::common::refuse_shared_outputs([("-o", path.as_path())], None, options.stats.as_ref())?;
    let overwrite = EXISTING_OUTPUT.overwrite(options.force);
    let mut output = Output::create(&path, overwrite)?;
    let threads = crate::common::worker_threads(options.threads);
    let mut stats = StatsFile::create(
        options.stats.as_ref(),
        "index",
        threads,
        overwrite,
        [reference],
    )?;
    let started = Instant::now();
    let spinner = progress::spinner("index");
    let mut timings = StageTimes::new("reading");
    let builder = read_reference(reference, &spinner)?;
    let spill_dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let contigs = builder.contigs().len();
    let bases = builder.genome_len();
    let kmer = options.kmer;
    let options = BuildOptions {
        sa_rate: options.sa_rate,
        kmer_len: kmer,
        threads,
        memory: options.memory.or_else(|| default_memory(bases)),
        spill_dir: Some(spill_dir),
        ..BuildOptions::default()
    };
    if let Some(warning) = kmer.and_then(|k| kmer_table_warning(k, bases)) {
        spinner.suspend(|| stderr_line!("seqfarm: warning: {warning}"));
    }
    let mut shown = None;
    let image = build(builder, &options, &mut |report: BuildProgress| {
        if shown != Some(report.stage) {
            shown = Some(report.stage);
            timings.next(report.stage.describe());
            spinner.set_message(report.stage.describe());
        }
        if report.stage == BuildStage::SuffixArray && report.total > 0 {
            progress::to_bar(&spinner, report.done, report.total);
        }
    })
    .map_err(|e| match e {
        seqfarm_fmindex::BuildError::Option(_) | seqfarm_fmindex::BuildError::Budget { .. } => {
            anyhow::Error::new(e)
        }
        e => anyhow::Error::new(e).context(format!("{}", reference.display())),
    })?;
    timings.next("writing");
    spinner.set_message("writing the index");
    image.write_to(&mut output).map_err(|e| output.error(e))?;
    output.commit()?;
    timings.next("");
    spinner.finish_and_clear();
    stderr_line!(
        "seqfarm index: {} contigs, {} bases -> {} ({} bytes) in {:.1} s, {} threads, {} sort bucket{}, peak memory {} ({})",
        contigs,
        bases,
        path.display(),
        image.file_len(),
        started.elapsed().as_secs_f64(),
        threads,
        image.buckets(),
        if image.buckets() == 1 { "" } else { "s" },
        peak_memory().map_or_else(|| "unknown".to_string(), human_bytes),
        timings.summary()
    );
    stats.add_wall_time(started.elapsed());
    stats.finish()?;
    Ok(path)
}

/// `--sa-rate`: a power of two in 1..=256.
pub fn sa_rate(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(r) if is_sa_rate(r) => Ok(r),
        _ => Err(format!("{text:?} is not a power of two in 1..=256")),
    }
}

/// Whether `r` is a suffix-array sampling rate the index takes.
fn is_sa_rate(r: u32) -> bool {
    (1..=256).contains(&r) && r.is_power_of_two()
}

/// Bytes of the k-mer table for strings of length `1..=k` (8 per entry).
fn kmer_table_bytes(k: u32) -> u64 {
    8 * ((4u64 << (2 * k)) - 4) / 3
}

/// A warning when `--kmer k` makes a table far larger than the rest of the index of a
/// genome of `bases` bases (both strands: about one byte per base with the samples),
/// and more than 64 MiB: the index then is mostly table, for little speed.
fn kmer_table_warning(k: u32, bases: u64) -> Option<String> {
    let table = kmer_table_bytes(k);
    let rest = 2 * bases.max(1);
    (table > 16 * rest && table > 64 << 20).then(|| {
        format!(
            "--kmer {k} makes a k-mer table of {} MB for a genome of {bases} bases (the rest of \
             the index is about {} MB); the default for this genome is {}",
            megabytes(table),
            megabytes(rest),
            default_kmer_len(2 * bases + 2)
        )
    })
}

/// Bytes in (decimal, rounded) megabytes.
fn megabytes(bytes: u64) -> u64 {
    (bytes + 500_000) / 1_000_000
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

/// Parses a byte count: a number with an optional K, M, G or T suffix (powers of 1024;
/// a trailing `B` or `iB` is allowed), fractions allowed (`1.5G`).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let not_a_size = || format!("{text:?} is not a size such as 2G or 1500M");
    let t = text.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let scale: u64 = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        _ => return Err(not_a_size()),
    };
    let value: f64 = number.trim().parse().map_err(|_| not_a_size())?;
    if !(value.is_finite() && value > 0.0) {
        return Err(format!("{text:?}: the size must be positive"));
    }
    Ok((value * scale as f64) as u64)
}

/// The default budget for a genome of `bases` bases: 256 MiB plus 6 bytes per base
/// (a few buckets: as fast as one, in a third of the memory), at most three quarters of
/// the memory the process can fill: the system's available memory, or less where a
/// cgroup limit (a Slurm job's, a container's) leaves less.
fn default_memory(bases: u64) -> Option<u64> {
    let wanted = (256 << 20) + 6 * bases;
    Some(match seqfarm_farm::numa::available_memory() {
        Some(bytes) => wanted.min(bytes / 4 * 3),
        None => wanted,
    })
}

/// The process's peak resident memory so far, in bytes.
fn peak_memory() -> Option<u64> {
    proc_kib("/proc/self/status", "VmHWM:").map(|kib| kib * 1024)
}

/// The value in KiB of the line starting with `key` in a `/proc` file.
fn proc_kib(file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

/// `1234567890` → `1.15 GiB`.
fn human_bytes(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < units.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.2} {}", units[unit])
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

/// `seqfarm index --check PREFIX`: loads the index with its checksums, then verifies
/// every invariant.
pub fn check(prefix: &Path) -> anyhow::Result<()> {
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
    fn sizes_parse_with_units() {
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("1500m"), Ok(1500 << 20));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("2X").is_err());
        assert!(parse_size("-1G").is_err());
        assert!(parse_size("G").is_err());
        assert_eq!(human_bytes(3 << 29), "1.50 GiB");
    }

    #[test]
    fn an_oversized_kmer_table_is_warned_about() {
        assert_eq!(kmer_table_bytes(11), 8 * ((1 << 24) - 4) / 3);
        let warning = kmer_table_warning(13, 460_000).unwrap();
        assert!(
            warning.contains("--kmer 13") && warning.contains("716 MB"),
            "{warning}"
        );
        assert!(kmer_table_warning(10, 460_000).is_none());
        assert!(kmer_table_warning(13, 3_100_000_000).is_none());
    }

    #[test]
    fn sa_rate_is_a_power_of_two() {
        assert_eq!(sa_rate("16"), Ok(16));
        assert!(sa_rate("0").is_err() && sa_rate("24").is_err() && sa_rate("512").is_err());
    }

    #[test]
    fn default_prefix_drops_fasta_extensions() {
        assert_eq!(default_prefix(Path::new("a/g.fa.gz")), PathBuf::from("a/g"));
        assert_eq!(default_prefix(Path::new("g.FASTA")), PathBuf::from("g"));
        assert_eq!(default_prefix(Path::new("g.txt")), PathBuf::from("g.txt"));
        assert_eq!(default_prefix(Path::new("g.fna.gz")), PathBuf::from("g"));
    }
}
