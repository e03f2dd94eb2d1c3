//! Kernel throughput: one query against a block of random protein sequences, per SIMD
//! path available on this CPU (GCUPS = query length x residues / time), and the striped
//! kernel against the inter-sequence one across query lengths (group `striped_vs_inter`).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use seqfarm_sw::striped::StripedProfile;
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

/// The striped kernel (one subject at a time; 8-bit lanes, then 16-bit lanes where
/// those saturate, and the 16-bit lanes alone; pairs that overflow 16 bits rescored with
/// the scalar reference) against the AVX2 inter-sequence kernel (8-bit lanes first, as
/// `Searcher` runs it), for short to very long queries against the same block.
fn striped_vs_inter(c: &mut Criterion) {
    if !Isa::Avx2.is_supported() {
        eprintln!("note: this CPU lacks AVX2; striped_vs_inter is skipped");
        return;
    }
    let scoring = Scoring::default();
    let matrix = scoring.matrix();
    let mut state = 7u64;
    let block = random_block(matrix, &mut state, 1000, 651);
    for query_len in [144usize, 375, 1000, 2005, 5478] {
        let query = matrix.encode(&random_protein(&mut state, query_len));
        let mut group = c.benchmark_group(format!("striped_vs_inter/query{query_len}"));
        group.throughput(Throughput::Elements((query_len * block.residues()) as u64));
        group.sample_size(10);
        group.warm_up_time(std::time::Duration::from_secs(1));
        group.measurement_time(std::time::Duration::from_secs(4));
        let Ok(mut searcher) = Searcher::new(&scoring, Isa::Avx2) else {
            return;
        };
        searcher.load(&block);
        let mut scores = Vec::new();
        group.bench_function("inter_avx2", |b| {
            b.iter(|| searcher.score(&block, &query, &mut scores))
        });
        let Ok(mut profile) = StripedProfile::new(&scoring, &query) else {
            return;
        };
        let scan = |profile: &mut StripedProfile,
                    score: fn(&mut StripedProfile, &[u8]) -> Option<i32>| {
            let mut total = 0i64;
            for i in 0..block.len() {
                let subject = block.get(i);
                let score = score(profile, subject)
                    .unwrap_or_else(|| seqfarm_sw::scalar::score(&scoring, &query, subject));
                total += i64::from(score);
            }
            total
        };
        group.bench_function("striped_avx2", |b| {
            b.iter(|| scan(&mut profile, StripedProfile::score))
        });
        group.bench_function("striped16_avx2", |b| {
            b.iter(|| scan(&mut profile, StripedProfile::score_16))
        });
        group.finish();
    }
}

criterion_group!(benches, kernels, striped_vs_inter);
criterion_main!(benches);
