//! `seqfarm locate`: count and list the occurrences of patterns in an index.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use seqfarm_core::nucleotide::{complement_code, encode_into, AMBIGUOUS};
use seqfarm_core::Strand;
use seqfarm_farm::numa::NumaMode;
use seqfarm_fmindex::{index_path, FmIndex, Hit, LoadOptions, LocateScratch};
use seqfarm_io::output::ExistingOutput;

use crate::common::excerpt;
use crate::farm_stats::StatsFile;
use crate::numa::PlacedIndex;

/// An existing `--stats` file, the one file written (the occurrences go to standard
/// output), is replaced, as the index's builders (`bwa index`, `bowtie2-build`) replace
/// theirs.
pub const EXISTING_OUTPUT: ExistingOutput = ExistingOutput::Replace;

/// What a locate run takes besides its index and patterns; the defaults are those of
/// `seqfarm locate`. Every value is valid: there is nothing to check.
#[derive(Debug, Clone, PartialEq)]
pub struct LocateOptions {
    /// How many hits to list per pattern (0: count only, nothing is located).
    pub max_hits: usize,
    /// NUMA placement of the index (`auto`: chosen from the topology; off on one node).
    pub numa: NumaMode,
    /// A file for the run's statistics (JSON: wall time, index loading included).
    pub stats: Option<PathBuf>,
    /// `--force`: accepted; an existing statistics file is replaced either way.
    pub force: bool,
}

impl Default for LocateOptions {
    fn default() -> Self {
        Self {
            max_hits: 100,
            numa: NumaMode::Auto,
            stats: None,
            force: false,
        }
    }
}

/// Runs `seqfarm locate`: prints `PATTERN<TAB>COUNT<TAB>HITS` for each of `patterns`
/// (`["-"]`: read from standard input, one per line) in the index of prefix `index`.
pub fn run(index: &Path, patterns: &[String], options: &LocateOptions) -> anyhow::Result<()> {
    let from_stdin;
    let patterns = if patterns == ["-"] {
        from_stdin = read_patterns()?;
        &from_stdin
    } else {
        patterns
    };
    // Validate every pattern before loading anything.
    let mut encoded = Vec::with_capacity(patterns.len());
    for pattern in patterns {
        encoded.push(encode_pattern(pattern)?);
    }
    let index_file = index_path(index);
    let mut stats = StatsFile::create(
        options.stats.as_ref(),
        "locate",
        1,
        EXISTING_OUTPUT.overwrite(options.force),
        [&index_file],
    )?;
    let started = std::time::Instant::now();
    // One thread reads the index: `auto` leaves it memory-mapped; `interleave` and
    // `replicate` place it for that thread, which runs on the first node's first core.
    let placed = PlacedIndex::load(&index_file, options.numa, 1, LoadOptions::default())?;
    if let Some(placement) = placed.placement() {
        placement.slot(0).pin_current_thread();
    }
    let index = placed.first();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut hits = Vec::new();
    let mut scratch = LocateScratch::default();
    for (pattern, codes) in patterns.iter().zip(&encoded) {
        let count = find(index, codes, options.max_hits, &mut scratch, &mut hits);
        write!(out, "{pattern}\t{count}\t").context("writing to standard output")?;
        for (k, hit) in hits.iter().take(options.max_hits).enumerate() {
            let place = place(index, hit)?;
            let sep = if k == 0 { "" } else { "," };
            write!(
                out,
                "{sep}{}:{}:{}",
                index.contigs()[place.contig].name,
                place.position,
                place.strand
            )
            .context("writing to standard output")?;
        }
        writeln!(out).context("writing to standard output")?;
    }
    out.flush().context("writing to standard output")?;
    // One thread and no farm: the file holds the wall time (index loading included).
    stats.numa(placed.summary());
    stats.add_wall_time(started.elapsed());
    stats.finish()?;
    Ok(())
}

/// Patterns from standard input, one per line (blank lines skipped).
fn read_patterns() -> anyhow::Result<Vec<String>> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
        .context("reading patterns from standard input")?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect())
}

/// The codes of `pattern`; an error for an empty pattern or a byte that is not a
/// nucleotide or IUPAC letter.
/// Where a hit lies: contig number, 1-based leftmost position, strand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// The contig's number in the index (FASTA order).
    pub contig: usize,
    /// 1-based leftmost position on the contig.
    pub position: u64,
    /// The strand the pattern occurs on.
    pub strand: Strand,
}

/// The occurrences of `codes` as `locate --max-hits max_hits` counts them: their number,
/// with every hit in genome order left in `hits` when `max_hits` is not 0 (with 0, only
/// counted).
pub fn find(
    index: &FmIndex,
    codes: &[u8],
    max_hits: usize,
    scratch: &mut LocateScratch,
    hits: &mut Vec<Hit>,
) -> u64 {
    if max_hits == 0 {
        hits.clear();
        count(index, codes)
    } else {
        occurrences(index, codes, scratch, hits);
        hits.len() as u64
    }
}

/// `hit` as a contig and a 1-based position.
pub fn place(index: &FmIndex, hit: &Hit) -> anyhow::Result<Place> {
    let (contig, offset) = index
        .contig_of(hit.pos)
        .context("index returned a position outside every contig")?;
    Ok(Place {
        contig,
        position: offset + 1,
        strand: hit.strand,
    })
}

/// A pattern as 2-bit codes; an empty pattern or a letter that is not a nucleotide is
/// an error naming it.
pub fn encode_pattern(pattern: &str) -> anyhow::Result<Vec<u8>> {
    if pattern.is_empty() {
        anyhow::bail!("empty pattern");
    }
    let mut codes = Vec::new();
    if let Err(i) = encode_into(pattern.as_bytes(), &mut codes) {
        let bad = pattern[i..].chars().next().unwrap_or('?');
        anyhow::bail!(
            "pattern {}: {bad:?} at position {} is not a nucleotide letter",
            excerpt(pattern),
            i + 1
        );
    }
    Ok(codes)
}

/// The number of distinct (position, strand) occurrences, without locating them.
fn count(index: &FmIndex, codes: &[u8]) -> u64 {
    if codes.contains(&AMBIGUOUS) {
        return 0;
    }
    let rows = index.count(codes);
    if is_reverse_palindrome(codes) {
        rows / 2
    } else {
        rows
    }
}

/// Every distinct (position, strand) occurrence of `codes`, in genome order; nothing for
/// a pattern with an ambiguous base. `scratch` is reused from pattern to pattern.
fn occurrences(index: &FmIndex, codes: &[u8], scratch: &mut LocateScratch, hits: &mut Vec<Hit>) {
    hits.clear();
    if codes.contains(&AMBIGUOUS) {
        return;
    }
    let interval = index.interval(codes);
    index.locate_in(interval, codes.len() as u64, usize::MAX, scratch, hits);
    if is_reverse_palindrome(codes) {
        // Each position was found once per strand: keep it once, as +.
        hits.retain(|h| h.strand == Strand::Forward);
    }
    hits.sort_unstable();
}

/// Whether `codes` (no ambiguous code) equal their reverse complement: such a pattern
/// is found once per strand at each position.
fn is_reverse_palindrome(codes: &[u8]) -> bool {
    codes
        .iter()
        .zip(codes.iter().rev())
        .all(|(&c, &mirror)| c == complement_code(mirror))
}
