//! Kernel throughput: one query against a block of random protein sequences, per SIMD
//! path available on this CPU (GCUPS = query length x residues / time).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use seqfarm_sw::{Isa, Scoring, Searcher, SequenceBlock};

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

fn kernels(c: &mut Criterion) {
    let scoring = Scoring::default();
    let matrix = scoring.matrix();
    let mut state = 1u64;
    let mut block = SequenceBlock::new();
    for i in 0..2000 {
        let len = 50 + (i * 37) % 700;
        block.push(matrix, &random_protein(&mut state, len));
    }
    for query_len in [144usize, 375, 2005] {
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
