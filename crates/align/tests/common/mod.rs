//! Fixtures shared by the aligner's integration tests: a deterministic random source and
//! an in-memory index of a few contigs.

use seqfarm_fmindex::{build, BuildOptions, FmIndex, ReferenceBuilder};

/// A xorshift generator: the same genome and reads on every run.
pub struct Rng(pub u64);

impl Rng {
    /// A number below `n`.
    pub fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    /// `n` random bases.
    pub fn bases(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| b"ACGT"[self.next(4) as usize]).collect()
    }
}

/// An index of `contigs`, named `c0`, `c1`, …
pub fn index(contigs: &[Vec<u8>]) -> FmIndex {
    let mut builder = ReferenceBuilder::new();
    for (i, c) in contigs.iter().enumerate() {
        builder.add_contig(&format!("c{i}"), c).unwrap();
    }
    let options = BuildOptions {
        sa_rate: 8,
        kmer_len: Some(8),
        threads: 1,
        ..BuildOptions::default()
    };
    FmIndex::from_image(&build(builder, &options, &mut |_| {}).unwrap()).unwrap()
}
