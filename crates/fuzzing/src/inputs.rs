//! The fixed inputs beside the fuzzed one: a small indexed BAM, a reference with its
//! index, reads from it, protein sequences, all deterministic.

use seqfarm_core::nucleotide::reverse_complement_letters;

/// An indexed coordinate-sorted BAM (1,250 SARS-CoV-2 reads on `NC_045512.2`).
pub const BAM: &[u8] = include_bytes!("../../../tests/data/bam/sarscov2.bam");
/// Its index.
pub const BAI: &[u8] = include_bytes!("../../../tests/data/bam/sarscov2.bam.bai");

/// A protein query and a two-sequence protein database for `search`.
pub const QUERY_FASTA: &str =
    ">q1\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQ\n";
/// See [`QUERY_FASTA`].
pub const DB_FASTA: &str =
    ">d1 first\nMKTAYIAKQRQISFVKSHFSRQ\n>d2\nLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQ\n";

/// Bases of the reference the fixed index is built from.
const REFERENCE_LEN: usize = 3000;

/// A reproducible pseudo-random reference of two contigs, as FASTA.
pub fn reference_fasta() -> String {
    let bases = reference_bases();
    let (a, b) = bases.split_at(REFERENCE_LEN / 2);
    format!(">chrA\n{a}\n>chrB\n{b}\n")
}

/// Ten 100-base reads from the reference (one reverse-complemented), as FASTQ.
pub fn reads_fastq() -> String {
    let bases = reference_bases();
    let mut out = String::new();
    for i in 0..10 {
        let start = i * 250;
        let mut read: String = bases[start..start + 100].to_string();
        if i % 3 == 1 {
            let mut letters = read.into_bytes();
            reverse_complement_letters(&mut letters);
            read = String::from_utf8(letters).expect("complements of ASCII are ASCII");
        }
        out.push_str(&format!("@read{i}\n{read}\n+\n{}\n", "I".repeat(100)));
    }
    out
}

fn reference_bases() -> String {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..REFERENCE_LEN)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ['A', 'C', 'G', 'T'][(state >> 62) as usize]
        })
        .collect()
}
