//! Brute-force references for the index's answers (shared by the test binaries).
#![allow(dead_code)]

use std::io::Read;

use seqfarm_core::nucleotide::{encode, reverse_complement_codes, AMBIGUOUS};
use seqfarm_core::Strand;
use seqfarm_fmindex::{build, BuildOptions, FmIndex, Hit, ReferenceBuilder};

/// A reference as a list of (name, letters).
pub type Genome = Vec<(String, Vec<u8>)>;

/// Builds and loads the index of `genome` with `options`.
pub fn index_with(genome: &Genome, options: &BuildOptions) -> FmIndex {
    FmIndex::from_image(&build(reference_of(genome), options, &mut |_| {}).unwrap()).unwrap()
}

/// The reference builder holding `genome`.
pub fn reference_of(genome: &Genome) -> ReferenceBuilder {
    let mut reference = ReferenceBuilder::new();
    for (name, seq) in genome {
        reference.add_contig(name, seq).unwrap();
    }
    reference
}

/// Builds and loads the index of `genome`.
pub fn index_of(genome: &Genome, sa_rate: u32, kmer_len: Option<u32>, threads: usize) -> FmIndex {
    let options = BuildOptions {
        sa_rate,
        kmer_len,
        threads,
        ..BuildOptions::default()
    };
    index_with(genome, &options)
}

/// Codes of each contig (ambiguous letters as `AMBIGUOUS`), concatenated in global order.
pub fn genome_codes(genome: &Genome) -> Vec<Vec<u8>> {
    genome
        .iter()
        .map(|(_, s)| s.iter().map(|&b| encode(b).unwrap_or(AMBIGUOUS)).collect())
        .collect()
}

/// Every (global position, strand) where `pattern` (codes 0..=3) or its reverse
/// complement occurs inside one contig without ambiguous bases; sorted.
pub fn naive_hits(contigs: &[Vec<u8>], pattern: &[u8]) -> Vec<Hit> {
    let mut rc = pattern.to_vec();
    reverse_complement_codes(&mut rc);
    let mut hits = Vec::new();
    let mut offset = 0u64;
    for contig in contigs {
        if pattern.len() <= contig.len() {
            for (i, w) in contig.windows(pattern.len()).enumerate() {
                let pos = offset + i as u64;
                if w == pattern {
                    hits.push(Hit {
                        pos,
                        strand: Strand::Forward,
                    });
                }
                if w == rc.as_slice() {
                    hits.push(Hit {
                        pos,
                        strand: Strand::Reverse,
                    });
                }
            }
        }
        offset += contig.len() as u64;
    }
    hits.sort();
    hits
}

/// Whether `pattern` occurs on either strand of some contig.
pub fn occurs(contigs: &[Vec<u8>], pattern: &[u8]) -> bool {
    !naive_hits(contigs, pattern).is_empty()
}

/// SMEMs by definition: `[i, R(i))` where `R(i)` is the end of the longest match
/// starting at `i`, kept when `R(i - 1) < R(i)`.
pub fn naive_smems(contigs: &[Vec<u8>], query: &[u8]) -> Vec<(u32, u32, u64)> {
    let reach: Vec<usize> = (0..query.len())
        .map(|i| {
            let mut j = i;
            while j < query.len() && query[j] < AMBIGUOUS && occurs(contigs, &query[i..=j]) {
                j += 1;
            }
            j
        })
        .collect();
    (0..query.len())
        .filter(|&i| reach[i] > i && (i == 0 || reach[i - 1] < reach[i]))
        .map(|i| {
            let count = naive_hits(contigs, &query[i..reach[i]]).len() as u64;
            (i as u32, reach[i] as u32, count)
        })
        .collect()
}

/// E. coli K-12 1-200,000 and human GRCh37 chr20 1-260,000 (which begins with 60 kbp of N).
pub fn real_genome() -> Genome {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/index_ref.fa.gz"
    );
    let mut text = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut genome: Genome = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix('>') {
            genome.push((
                name.split_whitespace().next().unwrap().to_string(),
                Vec::new(),
            ));
        } else {
            genome
                .last_mut()
                .unwrap()
                .1
                .extend_from_slice(line.trim().as_bytes());
        }
    }
    genome
}
