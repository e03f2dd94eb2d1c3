//! Count, locate and SMEMs against brute force, on random genomes and a real one.

mod naive;

use naive::{genome_codes, index_of, index_with, naive_hits, naive_smems, real_genome, Genome};
use proptest::prelude::*;
use seqfarm_core::nucleotide::{encode, AMBIGUOUS};
use seqfarm_core::Strand;
use seqfarm_fmindex::{
    BuildOptions, FmIndex, Hit, LocateScratch, SaInterval, SmemBatchScratch, SmemScratch,
};

/// Random contigs: mostly A/C/G/T (lower case too), with N runs and IUPAC letters.
fn genome_strategy() -> impl Strategy<Value = Genome> {
    let letter = prop_oneof![
        40 => prop::sample::select(b"ACGT".to_vec()),
        6 => prop::sample::select(b"acgt".to_vec()),
        1 => Just(b'N'),
        1 => prop::sample::select(b"RYKMSWn".to_vec()),
    ];
    let contig = prop::collection::vec(letter, 1..400);
    // A genome of ambiguous letters alone is refused by the build (no bases to index).
    let has_bases = |contigs: &Vec<Vec<u8>>| {
        contigs
            .iter()
            .any(|s| s.iter().any(|b| b"ACGTacgt".contains(b)))
    };
    prop::collection::vec(contig, 1..5)
        .prop_filter("a genome with a base", has_bases)
        .prop_map(|contigs| {
            contigs
                .into_iter()
                .enumerate()
                .map(|(i, s)| (format!("c{i}"), s))
                .collect()
        })
}

fn all_hits(index: &FmIndex, codes: &[u8]) -> Vec<Hit> {
    let iv = index.interval(codes);
    let mut hits = Vec::new();
    index.locate(iv, codes.len() as u64, usize::MAX, &mut hits);
    hits.sort();
    hits
}

/// Patterns: substrings of the concatenated genome (so some span contig boundaries and
/// ambiguous letters) and random ones.
fn patterns(genome: &Genome, picks: &[(usize, usize)]) -> Vec<Vec<u8>> {
    let all: Vec<u8> = genome
        .iter()
        .flat_map(|(_, s)| s.iter().map(|&b| encode(b).unwrap_or(AMBIGUOUS)))
        .collect();
    picks
        .iter()
        .map(|&(start, len)| {
            let start = start % all.len();
            let end = (start + len).min(all.len());
            all[start..end]
                .iter()
                .map(|&c| if c == AMBIGUOUS { (start % 4) as u8 } else { c })
                .collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn count_and_locate_equal_naive(
        genome in genome_strategy(),
        picks in prop::collection::vec((0usize..2000, 1usize..24), 1..24),
        random in prop::collection::vec(prop::collection::vec(0u8..4, 1..8), 0..8),
        sa_rate in prop::sample::select(vec![1u32, 2, 4, 8, 32]),
        kmer_len in 1u32..7,
        threads in 1usize..3,
    ) {
        let index = index_of(&genome, sa_rate, Some(kmer_len), threads);
        prop_assert!(index.check().is_ok());
        let contigs = genome_codes(&genome);
        for pattern in patterns(&genome, &picks).into_iter().chain(random) {
            let expected = naive_hits(&contigs, &pattern);
            prop_assert_eq!(index.count(&pattern), expected.len() as u64, "count {:?}", pattern);
            prop_assert_eq!(index.interval(&pattern).size, expected.len() as u64);
            prop_assert_eq!(all_hits(&index, &pattern), expected, "locate {:?}", pattern);
        }
    }

    #[test]
    fn smems_equal_brute_force(
        genome in genome_strategy(),
        queries in prop::collection::vec(prop::collection::vec(prop_oneof![20 => 0u8..4, 1 => Just(AMBIGUOUS)], 1..40), 1..6),
        picks in prop::collection::vec((0usize..2000, 10usize..40), 0..6),
        kmer_len in 1u32..6,
    ) {
        let index = index_of(&genome, 4, Some(kmer_len), 1);
        let contigs = genome_codes(&genome);
        let mut scratch = SmemScratch::default();
        let mut found = Vec::new();
        // Genome pieces with a few changes make long, realistic SMEMs.
        let mut from_genome = patterns(&genome, &picks);
        for (k, q) in from_genome.iter_mut().enumerate() {
            if q.len() > 5 {
                let at = (k * 7) % q.len();
                q[at] = (q[at] + 1) % 4;
            }
        }
        let queries: Vec<Vec<u8>> = queries.into_iter().chain(from_genome).collect();
        // At any length cut, shorter or longer than the k-mer table's strings: the
        // search skips windows by their length, so each cut is a search of its own.
        for query in &queries {
            let all = naive_smems(&contigs, query);
            for min_len in [1, 2, 4, 7, 12] {
                index.smems(query, min_len, &mut scratch, &mut found);
                let got: Vec<(u32, u32, u64)> = found.iter().map(|m| (m.start, m.end, m.interval.size)).collect();
                let expected: Vec<(u32, u32, u64)> = all.iter().copied().filter(|&(s, e, _)| e - s >= min_len).collect();
                prop_assert_eq!(got, expected, "query {:?}, length {}", query, min_len);
                // Each interval is the match's own, both sides.
                for m in &found {
                    prop_assert_eq!(m.interval, index.interval(&query[m.start as usize..m.end as usize]));
                }
            }
        }
        // The batched search gives each read the same SMEMs, at any length cut.
        let (mut batch, mut all, mut ranges) = (SmemBatchScratch::default(), Vec::new(), Vec::new());
        for min_len in [1, 4, 9] {
            index.smems_many(&queries, min_len, &mut batch, &mut all, &mut ranges);
            prop_assert_eq!(ranges.len(), queries.len());
            for (query, range) in queries.iter().zip(&ranges) {
                index.smems(query, min_len, &mut scratch, &mut found);
                prop_assert_eq!(&all[range.clone()], &found[..], "query {:?}", query);
            }
        }
        // And the same matches from any start position and size floor.
        let jobs: Vec<(&[u8], usize, u64)> = queries
            .iter()
            .flat_map(|q| (0..q.len()).map(move |x| (&q[..], x, 1 + (x as u64 % 3))))
            .collect();
        index.smems_at_many(&jobs, &mut batch, &mut all, &mut ranges);
        for (&(query, x, min_size), range) in jobs.iter().zip(&ranges) {
            found.clear();
            index.smems_at(query, x, min_size, &mut scratch, &mut found);
            prop_assert_eq!(&all[range.clone()], &found[..], "query {:?} from {}", query, x);
        }
    }

    /// The large-genome code paths on small texts: 64-bit positions and samples from a
    /// text length on (both sides of it), superblocks of 1, 2 or 4 blocks, k-mer
    /// intervals stored as "recompute" from a size on, and a bucket budget that forces
    /// many buckets. Every query must still equal brute force, and the index must be
    /// the one the default build makes, apart from the header fields that record them.
    #[test]
    fn thresholds_crossed_on_small_texts_answer_as_brute_force(
        genome in genome_strategy(),
        picks in prop::collection::vec((0usize..2000, 1usize..30), 1..16),
        wide_side in 0u64..2,
        super_shift in 0u32..3,
        kmer_saturation in 1u64..4,
        threads in 1usize..4,
    ) {
        let plain = index_of(&genome, 4, Some(4), 1);
        let n = plain.text_len();
        let options = BuildOptions {
            sa_rate: 4,
            kmer_len: Some(4),
            threads,
            wide_from: n + wide_side,
            super_shift,
            kmer_saturation,
            ..BuildOptions::default()
        };
        let index = index_with(&genome, &options);
        prop_assert!(index.check().is_ok());
        prop_assert_eq!(index.text_len(), n);
        let contigs = genome_codes(&genome);
        let mut scratch = SmemScratch::default();
        let (mut found, mut expected_smems) = (Vec::new(), Vec::new());
        for pattern in patterns(&genome, &picks) {
            let expected = naive_hits(&contigs, &pattern);
            prop_assert_eq!(index.count(&pattern), expected.len() as u64);
            let hits = all_hits(&index, &pattern);
            prop_assert_eq!(&hits, &expected, "locate {:?}", pattern);
            for hit in &hits {
                prop_assert_eq!(index.contig_of(hit.pos), plain.contig_of(hit.pos));
                prop_assert!(index.within_one_contig(hit.pos, pattern.len() as u64));
            }
            index.smems(&pattern, 1, &mut scratch, &mut found);
            plain.smems(&pattern, 1, &mut scratch, &mut expected_smems);
            let got: Vec<(u32, u32, u64)> = found.iter().map(|m| (m.start, m.end, m.interval.size)).collect();
            prop_assert_eq!(&got, &naive_smems(&contigs, &pattern));
            let plain_got: Vec<(u32, u32, u64)> = expected_smems.iter().map(|m| (m.start, m.end, m.interval.size)).collect();
            prop_assert_eq!(got, plain_got);
        }
        let queries = patterns(&genome, &picks);
        let (mut batch, mut all, mut ranges) = (SmemBatchScratch::default(), Vec::new(), Vec::new());
        index.smems_many(&queries, 1, &mut batch, &mut all, &mut ranges);
        for (query, range) in queries.iter().zip(&ranges) {
            index.smems(query, 1, &mut scratch, &mut found);
            prop_assert_eq!(&all[range.clone()], &found[..]);
        }
        // The batched backward searches, whose lanes start from every row where the
        // table stores "recompute".
        let (mut counts, mut rows) = (Vec::new(), Vec::new());
        index.count_many(&queries, &mut counts);
        index.intervals_many(&queries, &mut rows);
        for ((query, &count), &row) in queries.iter().zip(&counts).zip(&rows) {
            prop_assert_eq!(count, index.count(query));
            prop_assert_eq!(row, SaInterval::from(index.interval(query)));
        }
    }
}

#[test]
fn extension_both_ways_agrees_with_backward_search() {
    let genome: Genome = vec![("a".into(), b"ACGTTGCAACGGTACCATGNNACGTAGGATCCAT".to_vec())];
    let index = index_of(&genome, 2, Some(2), 1);
    let pattern = [0u8, 1, 2, 3];
    // Build ACGT by extending C to the left and then G, T to the right.
    let mut iv = index.interval(&pattern[1..2]);
    iv = index.extend_left(iv, 0);
    iv = index.extend_right(iv, 2);
    iv = index.extend_right(iv, 3);
    assert_eq!(iv, index.interval(&pattern));
    assert_eq!(
        iv.size, 4,
        "ACGT twice forward, its reverse complement ACGT twice"
    );
}

#[test]
fn locate_caps_and_spreads() {
    let genome: Genome = vec![(
        "a".into(),
        b"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA".to_vec(),
    )];
    let index = index_of(&genome, 4, Some(3), 1);
    let iv = index.interval(&[0, 0]);
    assert_eq!(iv.size, 39, "AA 39 times forward, TT nowhere");
    let mut hits = Vec::new();
    assert_eq!(index.locate(iv, 2, 10, &mut hits), 10);
    hits.sort();
    hits.dedup();
    assert_eq!(hits.len(), 10, "spread rows give distinct hits");
    // A scratch reused across calls of other sizes gives what fresh calls give.
    let mut scratch = LocateScratch::default();
    for (pattern, max) in [(&[0u8, 0, 0][..], usize::MAX), (&[0, 0], 10), (&[0, 0], 3)] {
        let iv = index.interval(pattern);
        let (mut fresh, mut reused) = (Vec::new(), Vec::new());
        index.locate(iv, pattern.len() as u64, max, &mut fresh);
        index.locate_in(iv, pattern.len() as u64, max, &mut scratch, &mut reused);
        assert_eq!(reused, fresh, "{pattern:?} max {max}");
    }
}

#[test]
fn real_genome_piece_equals_naive() {
    let genome = real_genome();
    assert_eq!(genome.len(), 2);
    let index = index_of(&genome, 16, None, 2);
    let report = index.check().unwrap();
    assert_eq!(report.genome_len, 460_000);
    let contigs = genome_codes(&genome);
    let mut rng = 0x2545F4914F6CDD1Du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let boundary = 200_000u64;
    for k in 0..120 {
        let len = 8 + (next() % 40) as usize;
        let start = match k % 4 {
            // Spanning the boundary between the two contigs.
            0 => boundary as usize - 1 - (next() as usize % (len - 1)),
            _ => (next() % (460_000 - len as u64)) as usize,
        };
        let flat: Vec<u8> = contigs.concat();
        let mut pattern: Vec<u8> = flat[start..start + len].to_vec();
        if pattern.contains(&AMBIGUOUS) {
            pattern.iter_mut().for_each(|c| *c %= 4);
        }
        let expected = naive_hits(&contigs, &pattern);
        assert_eq!(
            index.count(&pattern),
            expected.len() as u64,
            "pattern at {start}"
        );
        assert_eq!(all_hits(&index, &pattern), expected, "pattern at {start}");
        if k % 4 == 0 {
            assert!(expected
                .iter()
                .all(|h| index.within_one_contig(h.pos, len as u64)));
        } else if !flat[start..start + len].contains(&AMBIGUOUS) {
            assert!(expected.contains(&Hit {
                pos: start as u64,
                strand: Strand::Forward
            }));
        }
    }
    // The 60 kbp N run at the start of chr20 is never matched, whatever the pattern.
    let n_run_start = index.global_of(1, 0).unwrap();
    let mut window = Vec::new();
    index
        .reference()
        .fetch_codes(n_run_start, n_run_start + 60_000, &mut window);
    assert!(window.iter().all(|&c| c == AMBIGUOUS));
    assert_eq!(index.reference().letter_at(n_run_start + 10), b'N');
    for pattern in [vec![0u8; 12], vec![3u8; 12]] {
        let mut hits = Vec::new();
        index.locate(index.interval(&pattern), 12, usize::MAX, &mut hits);
        assert!(hits
            .iter()
            .all(|h| h.pos < n_run_start || h.pos >= n_run_start + 60_000));
    }
}
