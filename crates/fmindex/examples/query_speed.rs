//! Times loading an index and running queries on it:
//! `cargo run --release -p seqfarm-fmindex --example query_speed -- INDEX.sfi [N] [LEN] [mmap|copy] [READS.fq]`.
//!
//! Prints one `name<TAB>seconds<TAB>detail` line per measurement: load (memory-mapped,
//! with and without checksum verification, and copied), N counts of random LEN-mers,
//! N counts of LEN-mers drawn from the genome, and locating the occurrences of 100,000
//! genome LEN-mers, the SMEMs of 100,000 reads simulated from the genome and (given
//! READS.fq) of the first 100,000 reads of a file, one read at a time and batched, and
//! the search of their 20-base seeds (to the end, and stopped at one row), the
//! machine's memory latency over the index's own bytes (one chain of dependent reads,
//! and 16 chains in lock step), and (Linux) how much of the mapped index the kernel
//! backed with 2 MiB pages. Patterns come from a fixed-seed generator: every run asks
//! the same.

use std::time::Instant;

use seqfarm_core::nucleotide::{encode, AMBIGUOUS};
use seqfarm_fmindex::{FmIndex, LoadMode, LoadOptions, SmemBatchScratch, SmemScratch};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .ok_or("usage: query_speed INDEX.sfi [N] [LEN] [mmap|copy] [READS.fq]")?;
    let n: usize = args.get(2).map_or(Ok(1_000_000), |s| s.parse())?;
    let len: usize = args.get(3).map_or(Ok(20), |s| s.parse())?;
    let mode = match args.get(4).map(String::as_str) {
        None | Some("mmap") => LoadMode::Mmap,
        Some("copy") => LoadMode::Copy,
        Some(other) => return Err(format!("unknown load mode {other:?}").into()),
    };
    let reads_file = args.get(5);

    for (name, mode, verify) in [
        ("load_mmap_verified", LoadMode::Mmap, true),
        ("load_mmap", LoadMode::Mmap, false),
        ("load_copy", LoadMode::Copy, false),
    ] {
        let t = Instant::now();
        let index = FmIndex::open(
            path,
            LoadOptions {
                mode,
                verify_checksums: verify,
                ..LoadOptions::default()
            },
        )?;
        println!(
            "{name}\t{:.4}\t{} bytes",
            t.elapsed().as_secs_f64(),
            index.file_len()
        );
    }
    let index = FmIndex::open(
        path,
        LoadOptions {
            mode,
            verify_checksums: true,
            ..LoadOptions::default()
        },
    )?;
    println!("queries_on\t0\t{mode:?}-loaded index");

    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let random: Vec<Vec<u8>> = (0..n)
        .map(|_| (0..len).map(|_| (next() >> 62) as u8).collect())
        .collect();
    let reference = index.reference();
    let mut from_genome = Vec::with_capacity(n);
    let mut window = Vec::new();
    while from_genome.len() < n {
        let start = next() % (index.genome_len() - len as u64);
        reference.fetch_codes(start, start + len as u64, &mut window);
        if !window.contains(&AMBIGUOUS) {
            from_genome.push(window.clone());
        }
    }

    for (name, patterns) in [("count_random", &random), ("count_genome", &from_genome)] {
        let t = Instant::now();
        let total: u64 = patterns.iter().map(|p| index.count(p)).sum();
        println!(
            "{name}\t{:.4}\t{n} {len}-mers, {total} occurrences",
            t.elapsed().as_secs_f64()
        );
    }

    let mut counts = Vec::new();
    for (name, patterns) in [
        ("count_many_random", &random),
        ("count_many_genome", &from_genome),
    ] {
        let t = Instant::now();
        index.count_many(patterns, &mut counts);
        let total: u64 = counts.iter().sum();
        println!(
            "{name}\t{:.4}\t{n} {len}-mers, {total} occurrences",
            t.elapsed().as_secs_f64()
        );
    }

    let mut hits = Vec::new();
    let t = Instant::now();
    for p in from_genome.iter().take(100_000) {
        index.locate(index.interval(p), len as u64, 100, &mut hits);
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "locate\t{secs:.4}\t{} occurrences of 100000 genome {len}-mers, {:.0} ns each (sampling rate {})",
        hits.len(),
        secs * 1e9 / hits.len().max(1) as f64,
        index.sa_rate()
    );

    // SMEMs of 100,000 150-bp reads: genome pieces with a substitution every ~50 bases.
    let mut reads = Vec::with_capacity(100_000);
    while reads.len() < 100_000 {
        let start = next() % (index.genome_len() - 150);
        reference.fetch_codes(start, start + 150, &mut window);
        if window.contains(&AMBIGUOUS) {
            continue;
        }
        for base in window.iter_mut() {
            if next() % 50 == 0 {
                *base = (*base + 1 + (next() % 3) as u8) % 4;
            }
        }
        reads.push(window.clone());
    }
    time_smems(&index, "", "150-bp reads (2% substitutions)", &reads);
    time_seeds(&index, "", "150-bp reads (2% substitutions)", &reads);
    if let Some(fastq) = reads_file {
        let reads = fastq_codes(fastq, 100_000)?;
        time_smems(&index, "_fastq", &format!("reads of {fastq}"), &reads);
        time_seeds(&index, "_fastq", &format!("reads of {fastq}"), &reads);
    }
    time_memory(index.bytes(), n);
    // How much of the file mappings the kernel backed with 2 MiB pages: random queries
    // over a large index cost far less when it did (fewer TLB misses). It does so where
    // the page cache holds the file in large folios (ext4/XFS on recent kernels, for a
    // file read fresh; not for one just written).
    if let Ok(rollup) = std::fs::read_to_string("/proc/self/smaps_rollup") {
        if let Some(line) = rollup.lines().find(|l| l.starts_with("FilePmdMapped:")) {
            let kb = line.split_whitespace().nth(1).unwrap_or("0");
            println!("huge_pages\t0\t{kb} kB of mapped files in 2 MiB pages");
        }
    }
    Ok(())
}

/// Times `n` random reads of one 8-byte word over the whole index, each at an address
/// that follows from the word read before it (as each step of a backward search depends
/// on the step before): rows `memory_chain` (one chain) and `memory_chains_16` (16
/// chains in lock step, as the batched queries run). Their cost per read is what the
/// memory hierarchy charges for a random access in a working set of the index's size
/// (caches and TLB together, as the queries see them), to set beside the ratio of two
/// indexes' latency-bound queries (which read parts of the file, not all of it, so can
/// come under it). Every page is touched first, so page faults are not timed.
fn time_memory(bytes: &[u8], n: usize) {
    let words = bytes.len() / 8;
    if words == 0 {
        return;
    }
    let touched: u64 = bytes.iter().step_by(4096).map(|&b| u64::from(b)).sum();
    std::hint::black_box(touched);
    let word = |i: usize| u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap());
    // The next word's index: a hash of the word just read and the step number, so each
    // address waits for the read before it, and the counter keeps the chain out of
    // short cycles.
    let next = |value: u64, step: u64| {
        let mut z = (value ^ step).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % words as u64) as usize
    };
    for chains in [1usize, 16] {
        let reads = n / chains * chains;
        let mut at: Vec<usize> = (0..chains).map(|c| next(c as u64, u64::MAX)).collect();
        let t = Instant::now();
        for step in 0..(reads / chains) as u64 {
            for slot in at.iter_mut() {
                *slot = next(word(*slot), step);
            }
        }
        std::hint::black_box(&at);
        let secs = t.elapsed().as_secs_f64();
        let name = if chains == 1 {
            "memory_chain".to_string()
        } else {
            format!("memory_chains_{chains}")
        };
        println!(
            "{name}\t{secs:.4}\t{} dependent random reads over {} bytes, {:.1} ns each",
            reads,
            bytes.len(),
            secs * 1e9 / reads.max(1) as f64
        );
    }
}

/// Times the search of the 20-base seeds tiling each of `reads` (end to end, no
/// overlap), all at once as the aligner's fast path searches them: to the end
/// (`seeds_whole{suffix}`) and stopped at one suffix-array row
/// (`seeds_until_unique{suffix}`, with how many seeds stopped early and how many of
/// their bases were left unsearched).
fn time_seeds(index: &FmIndex, suffix: &str, what: &str, reads: &[Vec<u8>]) {
    const K: usize = 20;
    let seeds: Vec<&[u8]> = reads.iter().flat_map(|r| r.chunks_exact(K)).collect();
    let mut intervals = Vec::new();
    // One pass untimed first, so neither timed pass is the first to fault pages in.
    index.intervals_many(&seeds, &mut intervals);
    let t = Instant::now();
    index.intervals_many(&seeds, &mut intervals);
    println!(
        "seeds_whole{suffix}\t{:.4}\t{} seeds of {K} bases from {} {what}",
        t.elapsed().as_secs_f64(),
        seeds.len(),
        reads.len()
    );
    let mut searched = Vec::new();
    let t = Instant::now();
    index.intervals_until_unique_many(&seeds, &mut intervals, &mut searched);
    let secs = t.elapsed().as_secs_f64();
    let stopped = searched.iter().filter(|&&n| (n as usize) < K).count();
    let unsearched: usize = searched.iter().map(|&n| K - n as usize).sum();
    println!(
        "seeds_until_unique{suffix}\t{secs:.4}\t{:.1} % of the seeds stopped at one row, {:.1} of their {K} bases left unsearched on average",
        100.0 * stopped as f64 / seeds.len().max(1) as f64,
        unsearched as f64 / stopped.max(1) as f64
    );
}

/// Times the SMEMs (19 bases or more) of `reads`, one read at a time and batched,
/// printing rows `smems{suffix}` and `smems_many{suffix}`: cost per read and per SMEM.
fn time_smems(index: &FmIndex, suffix: &str, what: &str, reads: &[Vec<u8>]) {
    let mut scratch = SmemScratch::default();
    let mut smems = Vec::new();
    let mut total = 0;
    let t = Instant::now();
    for read in reads {
        index.smems(read, 19, &mut scratch, &mut smems);
        total += smems.len();
    }
    print_smems(
        &format!("smems{suffix}"),
        t.elapsed().as_secs_f64(),
        what,
        reads.len(),
        total,
    );
    let mut batch = SmemBatchScratch::default();
    let mut ranges = Vec::new();
    let t = Instant::now();
    index.smems_many(reads, 19, &mut batch, &mut smems, &mut ranges);
    print_smems(
        &format!("smems_many{suffix}"),
        t.elapsed().as_secs_f64(),
        what,
        reads.len(),
        smems.len(),
    );
}

fn print_smems(name: &str, secs: f64, what: &str, reads: usize, smems: usize) {
    println!(
        "{name}\t{secs:.4}\t{reads} {what}, {smems} SMEMs of 19+ bases, {:.1} us per read, {:.2} us per SMEM",
        secs * 1e6 / reads.max(1) as f64,
        secs * 1e6 / smems.max(1) as f64
    );
}

/// The bases of the first `n` records of a FASTQ file, as codes (non-ACGT → ambiguous).
fn fastq_codes(path: &str, n: usize) -> Result<Vec<Vec<u8>>, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .lines()
        .skip(1)
        .step_by(4)
        .take(n)
        .map(|line| {
            line.bytes()
                .map(|b| encode(b).unwrap_or(AMBIGUOUS))
                .collect()
        })
        .collect())
}
