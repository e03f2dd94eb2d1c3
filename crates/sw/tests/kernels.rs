//! Every SIMD path against the scalar reference: random sequences (proptest), every
//! built-in matrix and DNA, gap costs that start at 16 bits, and the edge cases (empty
//! sequences, length 1, all-X, 8- and 16-bit saturation, titin).
//!
//! A path the CPU lacks is skipped with a message on stderr (AVX-512 on most desktop
//! and AMD machines); `SEQFARM_SIMD` does not matter here, every supported path runs.

use proptest::prelude::*;
use seqfarm_sw::{scalar, Isa, ScoreMatrix, Scoring, Searcher, SequenceBlock};

/// The SIMD paths this CPU runs, announcing the ones it skips.
fn simd_paths() -> Vec<Isa> {
    let mut paths = Vec::new();
    for isa in [Isa::Avx2, Isa::Avx512] {
        if isa.is_supported() {
            paths.push(isa);
        } else {
            eprintln!("note: this CPU lacks {isa}; its kernel is not tested here");
        }
    }
    paths
}

/// Scores `query` against `subjects` on every path (scalar included) and checks they all
/// equal the reference.
fn check(scoring: &Scoring, query: &[u8], subjects: &[Vec<u8>]) {
    let matrix = scoring.matrix();
    let q = matrix.encode(query);
    let mut block = SequenceBlock::new();
    for s in subjects {
        block.push(matrix, s);
    }
    let expected: Vec<i32> = (0..block.len())
        .map(|i| scalar::score(scoring, &q, block.get(i)))
        .collect();
    let mut scores = Vec::new();
    for isa in std::iter::once(Isa::Scalar).chain(simd_paths()) {
        let mut searcher = Searcher::new(scoring, isa).expect("supported path");
        searcher.load(&block);
        searcher.score(&block, &q, &mut scores);
        assert_eq!(scores, expected, "{isa}, {}", matrix.name());
        // A second query on the same loaded block reuses the packing.
        searcher.score(&block, &q, &mut scores);
        assert_eq!(scores, expected, "{isa} again");
    }
}

/// A searcher handed a new block without `load` packs it anew, even when the block has
/// as many sequences and residues as the one before (a database of equal-length
/// sequences), and even when it is the same block refilled in place (a recycled task).
#[test]
fn a_changed_block_is_packed_again() {
    let scoring = Scoring::new(ScoreMatrix::builtin("BLOSUM62").unwrap(), 11, 1).unwrap();
    let matrix = scoring.matrix();
    let q = matrix.encode(b"MKTAYIAKQRQISFVKSHFSRQ");
    let fill = |block: &mut SequenceBlock, subjects: &[&[u8]]| {
        block.clear();
        for s in subjects {
            block.push(matrix, s);
        }
    };
    let first: [&[u8]; 2] = [b"MKTAYIAKQR", b"WWWWWWWWWW"];
    let second: [&[u8]; 2] = [b"WWWWWWWWWW", b"QISFVKSHFS"];
    for isa in std::iter::once(Isa::Scalar).chain(simd_paths()) {
        let mut searcher = Searcher::new(&scoring, isa).unwrap();
        let mut scores = Vec::new();
        let mut block = SequenceBlock::new();
        for subjects in [first, second] {
            fill(&mut block, &subjects);
            let expected: Vec<i32> = subjects
                .iter()
                .map(|s| scalar::score(&scoring, &q, &matrix.encode(s)))
                .collect();
            searcher.score(&block, &q, &mut scores);
            assert_eq!(scores, expected, "{isa}, refilled block");
            searcher.score(&block.clone(), &q, &mut scores);
            assert_eq!(scores, expected, "{isa}, copy");
        }
    }
}

fn protein(letters: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(letters), 0..120)
}

const AMINO: &[u8] = b"ACDEFGHIKLMNPQRSTVWYBZXUacdefgwy*-";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_proteins_every_matrix(
        query in protein(AMINO),
        subjects in prop::collection::vec(protein(AMINO), 0..80),
        matrix in prop::sample::select(ScoreMatrix::builtin_names().collect::<Vec<_>>()),
        open in 0i32..16,
        extend in 0i32..4,
    ) {
        let scoring = Scoring::new(ScoreMatrix::builtin(matrix).unwrap(), open, extend).unwrap();
        check(&scoring, &query, &subjects);
    }

    #[test]
    fn random_dna(
        query in prop::collection::vec(prop::sample::select(&b"ACGTNacgt"[..]), 0..200),
        subjects in prop::collection::vec(
            prop::collection::vec(prop::sample::select(&b"ACGTNRY"[..]), 0..300), 0..40),
        match_score in 1i32..6,
        mismatch in -6i32..0,
    ) {
        let scoring = Scoring::new(ScoreMatrix::dna(match_score, mismatch).unwrap(), 5, 2).unwrap();
        check(&scoring, &query, &subjects);
    }
}

fn repeat(pattern: &[u8], len: usize) -> Vec<u8> {
    pattern.iter().copied().cycle().take(len).collect()
}

#[test]
fn edge_cases() {
    let scoring = Scoring::default();
    let subjects = vec![
        Vec::new(),
        b"W".to_vec(),
        b"A".to_vec(),
        repeat(b"X", 300),
        repeat(b"WCAY", 7),
        b"MKV".to_vec(),
    ];
    for query in [&b""[..], b"W", b"XXXXXXXX", b"MKVWCAYWCAY"] {
        check(&scoring, query, &subjects);
    }
    check(&scoring, b"W", &[]);
}

#[test]
fn eight_and_sixteen_bit_saturation() {
    let scoring = Scoring::default();
    // W scores 11: 23 W's reach 253 (exact in 8 bits), 24 reach 264 (16-bit rescoring);
    // 6,000 reach 66,000 (32-bit rescoring); around them, sequences that stay in 8 bits.
    let mut subjects: Vec<Vec<u8>> = (20..30).map(|n| repeat(b"W", n)).collect();
    subjects.push(repeat(b"W", 5_958));
    subjects.push(repeat(b"W", 5_957));
    subjects.push(repeat(b"W", 6_000));
    subjects.extend((0..70).map(|i| repeat(b"ACDEFGHIKLMNPQRSTVWY", 10 + i)));
    check(&scoring, &repeat(b"W", 6_000), &subjects);
    check(&scoring, &repeat(b"W", 25), &subjects);
}

#[test]
fn large_gap_costs_start_at_sixteen_bits() {
    let scoring = Scoring::new(ScoreMatrix::builtin("BLOSUM62").unwrap(), 200, 30).unwrap();
    let subjects: Vec<Vec<u8>> = (0..50)
        .map(|i| repeat(b"MKVLAAGIWWCHEY", 5 + i * 3))
        .collect();
    check(&scoring, &repeat(b"MKVLAWWGIWCHEY", 90), &subjects);
}

#[test]
fn titin_against_itself_and_pieces() {
    let Some(titin) = shared_titin() else {
        eprintln!("note: shared data not found; titin test skipped");
        return;
    };
    let scoring = Scoring::default();
    let subjects = vec![
        titin[..500].to_vec(),
        titin[9_000..9_300].to_vec(),
        titin[17_000..].to_vec(),
        repeat(b"ACDEFGHIKLMNPQRSTVWY", 400),
    ];
    check(&scoring, &titin, &subjects);
    // Titin against itself overflows 16 bits: the 32-bit pass must run.
    let matrix = scoring.matrix();
    let q = matrix.encode(&titin);
    let mut block = SequenceBlock::new();
    block.push_encoded(&q);
    let expected = scalar::score(&scoring, &q, &q);
    assert!(expected > 65_534, "{expected}");
    for isa in simd_paths() {
        let mut searcher = Searcher::new(&scoring, isa).unwrap();
        let mut scores = Vec::new();
        searcher.score(&block, &q, &mut scores);
        assert_eq!(scores, [expected], "{isa}");
        assert_eq!(searcher.counts().sequences_i32, 1);
    }
}

/// Titin (18,141 aa) from the shared data directory, when present (decompressed with
/// the system `gzip`: this crate has no compression dependency).
fn shared_titin() -> Option<Vec<u8>> {
    let dir = std::env::var_os("SEQFARM_SHARED_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
        });
    let path = dir.join("proteins/queries_misc/titin.fas.gz");
    if !path.exists() {
        return None;
    }
    let output = std::process::Command::new("gzip")
        .arg("-dc")
        .arg(&path)
        .output()
        .ok()?;
    let sequence: Vec<u8> = String::from_utf8(output.stdout)
        .ok()?
        .lines()
        .filter(|l| !l.starts_with('>'))
        .flat_map(|l| l.trim().bytes().collect::<Vec<u8>>())
        .collect();
    (sequence.len() > 18_000).then_some(sequence)
}
