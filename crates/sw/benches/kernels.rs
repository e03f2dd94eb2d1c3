//! Kernel throughput: one query of 144 to 5,478 aa against a block of random protein
//! sequences, per SIMD path available on this CPU (GCUPS = query length x residues / time).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use seqfarm_sw::{Isa, ScoreMatrix, Scoring, Searcher, SequenceBlock};

fn random_protein(state: &mut u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| {
            *state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            b"ACDEFGHIKLMNPQRSTVWY"[(*state >> 33) as usize % 20]
        })
        .collect()
}

/// `count` random proteins of 50 to `50 + spread - 1` residues.
fn random_block(
    matrix: &ScoreMatrix,
    state: &mut u64,
    count: usize,
    spread: usize,
) -> SequenceBlock {
    let mut block = SequenceBlock::new();
    for i in 0..count {
        let len = 50 + (i * 37) % spread;
        block.push(matrix, &random_protein(state, len));
    }
    block
}

fn kernels(c: &mut Criterion) {
    let scoring = Scoring::default();
    let matrix = scoring.matrix();
    let mut state = 1u64;
    let block = random_block(matrix, &mut state, 2000, 700);
    for query_len in [144usize, 375, 1000, 2005, 5478] {
        let query = matrix.encode(&random_protein(&mut state, query_len));
        let mut group = c.benchmark_group(format!("query{query_len}"));
        group.throughput(Throughput::Elements((query_len * block.residues()) as u64));
        group.sample_size(10);
        for isa in [Isa::Avx2, Isa::Avx512] {
            if !isa.is_supported() {
                continue;
            }
            let Ok(mut searcher) = Searcher::new(&scoring, isa) else {
                continue;
            };
            searcher.load(&block);
            let mut scores = Vec::new();
            group.bench_function(isa.name(), |b| {
                b.iter(|| searcher.score(&block, &query, &mut scores))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, kernels);
criterion_main!(benches);
