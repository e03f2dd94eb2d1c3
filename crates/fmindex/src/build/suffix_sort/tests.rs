//! The bucketed suffix array checked against libsais at every budget and thread count,
//! deep repeats sorted without recursion, the sweep keys counted, and the code scan and
//! per-chunk code counts agreeing wherever they start.

use super::*;
use crate::reference::ReferenceBuilder;

/// The suffix array by libsais, as the reference.
fn libsais_sa(text: &PackedText) -> Vec<u64> {
    let bytes: Vec<u8> = (0..text.len())
        .map(|p| text.symbol(p).map_or(0, |c| c + 1))
        .collect();
    let sa: Vec<i64> = libsais::SuffixArrayConstruction::for_text(&bytes)
        .in_owned_buffer::<i64>()
        .single_threaded()
        .run()
        .unwrap()
        .into_vec();
    sa.into_iter().map(|v| v as u64).collect()
}

fn bucketed_sa<P: Position>(
    text: &PackedText,
    plen: u32,
    capacity: u64,
    threads: usize,
) -> Vec<u64> {
    let counts = CodeCounts::new(text, plen, threads).unwrap();
    let buckets = plan_buckets(counts.totals(), capacity);
    let mut sa = Vec::new();
    for codes in buckets {
        let n: u64 = counts.totals()[codes.clone()].iter().sum();
        let mut out = vec![Entry::<P>::default(); n as usize];
        sort_bucket(text, plen, &counts, codes, &mut out, threads);
        for e in &out {
            let p = e.pos();
            let expected = if p == 0 { None } else { text.symbol(p - 1) };
            assert_eq!(e.bwt_symbol(), expected, "BWT symbol of {p}");
        }
        sa.extend(out.iter().map(|e| e.pos()));
    }
    sa
}

fn reference(contigs: &[&[u8]]) -> ReferenceBuilder {
    let mut r = ReferenceBuilder::new();
    for (i, c) in contigs.iter().enumerate() {
        r.add_contig(&format!("c{i}"), c).unwrap();
    }
    r
}

fn pseudo_random(len: usize, seed: u64, alphabet: &[u8]) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % alphabet.len() as u64) as usize]
        })
        .collect()
}

#[test]
fn buckets_give_the_suffix_array_at_any_budget_and_thread_count() {
    let random = pseudo_random(3000, 7, b"ACGT");
    let repeat: Vec<u8> = b"ACGTTGCAAC".iter().copied().cycle().take(2500).collect();
    let poly = vec![b'A'; 1500];
    let with_n = pseudo_random(2000, 11, b"ACGTN");
    let mut copy = random.clone();
    copy[1500] = b'T';
    let r = reference(&[&random, &repeat, &poly, &with_n, &copy, b"A", b"CG"]);
    let text = PackedText::new(&r.layout, &r.bases).unwrap();
    let expected = libsais_sa(&text);
    for plen in [1, 3, 6] {
        for capacity in [1, 500, 5000, u64::MAX] {
            for threads in [1, 3] {
                assert_eq!(
                    bucketed_sa::<u32>(&text, plen, capacity, threads),
                    expected,
                    "P {plen}, capacity {capacity}, threads {threads}"
                );
            }
        }
    }
    assert_eq!(bucketed_sa::<u64>(&text, 4, 700, 2), expected);
}

#[test]
fn sweep_keys_are_counted_for_the_largest_groups_one_per_thread() {
    let per = size_of::<(u64, Entry<u32>)>() as u64;
    let sweep = SWEEP as u64;
    let totals = [5, 100, 7, 50, 0];
    assert_eq!(sweep_key_bytes::<u32>(&totals, 2), per * (150 + 2 * sweep));
    assert_eq!(sweep_key_bytes::<u32>(&totals, 1), per * (100 + sweep));
    assert_eq!(sweep_key_bytes::<u32>(&totals, 9), per * (162 + 5 * sweep));
}

#[test]
fn deep_repeats_sort_without_recursion() {
    // Two exact copies of 20 kb: ties run thousands of characters deep.
    let unit = pseudo_random(20_000, 3, b"ACGT");
    let tandem: Vec<u8> = b"AC".iter().copied().cycle().take(9000).collect();
    let r = reference(&[&unit, &unit, &tandem]);
    let text = PackedText::new(&r.layout, &r.bases).unwrap();
    assert_eq!(bucketed_sa::<u32>(&text, 5, 10_000, 2), libsais_sa(&text));
}

#[test]
fn a_scan_started_anywhere_gives_the_codes_of_the_whole_scan() {
    let r = reference(&[
        &pseudo_random(40, 5, b"ACGT"),
        b"A",
        b"CG",
        &pseudo_random(30, 9, b"ACGTN"),
        b"TTT",
    ]);
    let text = PackedText::new(&r.layout, &r.bases).unwrap();
    let n = text.len();
    for plen in [1, 3, 8] {
        // Each code by its definition: the first `plen` characters, those from the
        // first separator or the end on counted as A.
        let expected: Vec<(u64, usize)> = (0..n)
            .map(|p| {
                let mut code = 0;
                let mut cut = false;
                for q in p..p + u64::from(plen) {
                    cut |= q >= n || text.symbol(q).is_none();
                    let c = if cut { 0 } else { text.code(q) as usize };
                    code = code << 2 | c;
                }
                (p, code)
            })
            .collect();
        for split in 0..=n {
            let mut seen = Vec::new();
            scan_codes(&text, plen, 0..split, |p, c| seen.push((p, c)));
            scan_codes(&text, plen, split..n, |p, c| seen.push((p, c)));
            assert_eq!(seen, expected, "P {plen}, split at {split}");
        }
    }
}

#[test]
fn chunk_counts_add_up_to_the_totals() {
    let r = reference(&[&pseudo_random(5000, 13, b"ACGTN"), b"GATTACA"]);
    let text = PackedText::new(&r.layout, &r.bases).unwrap();
    let one = CodeCounts::new(&text, 4, 1).unwrap();
    for chunks in [2, 3, 7] {
        let counts = CodeCounts::new(&text, 4, chunks).unwrap();
        assert_eq!(counts.chunks.len(), chunks);
        assert_eq!(counts.totals(), one.totals());
        let width = counts.totals().len();
        for (t, range) in counts.chunks.iter().enumerate() {
            let mut own = vec![0u64; width];
            scan_codes(&text, 4, range.clone(), |_, c| own[c] += 1);
            assert_eq!(own, &counts.per_chunk[t * width..(t + 1) * width]);
        }
    }
}
