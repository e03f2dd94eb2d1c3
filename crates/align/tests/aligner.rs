//! The aligner on a random genome: planted reads land where they were taken, with the
//! expected CIGAR, on both strands, in both modes; results do not depend on the batch.

use seqfarm_align::{
    AlignMode, AlignParams, Aligner, Placement, Preset, ReadInput, ReadResult, Unaligned,
    MAX_READ_LEN,
};
use seqfarm_core::nucleotide::reverse_complement_letters;
use seqfarm_fmindex::FmIndex;

mod common;

use common::{index, Rng};

fn genome(rng: &mut Rng) -> Vec<Vec<u8>> {
    (0..3).map(|_| rng.bases(60_000)).collect()
}

/// A planted read: the letters, and where it comes from.
struct Planted {
    bases: Vec<u8>,
    contig: usize,
    position: u64,
    reverse: bool,
}

fn align_all(index: &FmIndex, params: &AlignParams, reads: &[Vec<u8>]) -> Vec<ReadResult> {
    let names: Vec<String> = (0..reads.len()).map(|i| format!("r{i}")).collect();
    align_named(index, params, &names, reads)
}

/// Aligns `reads` named `names` (ties between equal places are broken by a hash of the
/// name) in one batch.
fn align_named(
    index: &FmIndex,
    params: &AlignParams,
    names: &[String],
    reads: &[Vec<u8>],
) -> Vec<ReadResult> {
    let inputs: Vec<ReadInput<'_>> = reads
        .iter()
        .zip(names)
        .map(|(b, n)| ReadInput {
            name: n.as_bytes(),
            bases: b,
            qualities: None,
        })
        .collect();
    let mut aligner = Aligner::new(index, params.clone()).unwrap();
    let mut results = Vec::new();
    aligner.align_batch(&inputs, &mut results);
    results
}

fn primary(result: &ReadResult) -> &Placement {
    match result {
        ReadResult::Aligned { placements, .. } => &placements[0],
        other => panic!("not aligned: {other:?}"),
    }
}

#[test]
fn planted_reads_are_found_with_their_edits() {
    let mut rng = Rng(0x5eed);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    let mut planted = Vec::new();
    for i in 0..300 {
        let contig = rng.next(3) as usize;
        let position = rng.next(59_000) + 100;
        let mut bases = contigs[contig][position as usize..position as usize + 150].to_vec();
        // Up to 4 substitutions away from the ends' gap barrier.
        for _ in 0..rng.next(5) {
            let at = 5 + rng.next(140) as usize;
            bases[at] = b"ACGT"[((bases[at] as u64 + 1 + rng.next(3)) % 4) as usize];
            bases[at] = if bases[at] == contigs[contig][position as usize + at] {
                b'N'
            } else {
                bases[at]
            };
        }
        let reverse = i % 2 == 1;
        if reverse {
            reverse_complement_letters(&mut bases);
        }
        planted.push(Planted {
            bases,
            contig,
            position,
            reverse,
        });
    }
    let reads: Vec<Vec<u8>> = planted.iter().map(|p| p.bases.clone()).collect();
    for mode in [AlignMode::EndToEnd, AlignMode::Local] {
        let params = AlignParams::new(mode, Preset::Sensitive);
        let results = align_all(&index, &params, &reads);
        for (p, r) in planted.iter().zip(&results) {
            let got = primary(r);
            assert_eq!((got.contig, got.reverse), (p.contig, p.reverse));
            assert!(
                got.position.abs_diff(p.position) <= 3,
                "{} vs {}",
                got.position,
                p.position
            );
            if mode == AlignMode::EndToEnd {
                assert_eq!(
                    (got.position, got.cigar.to_string()),
                    (p.position, "150M".to_string())
                );
                assert!(got.score <= 0 && got.score >= -24);
            }
        }
        // The same reads in another batch order give the same results.
        let reversed: Vec<Vec<u8>> = reads.iter().rev().cloned().collect();
        let again = align_all(&index, &params, &reversed);
        for (a, b) in results.iter().zip(again.iter().rev()) {
            assert_eq!(primary(a), primary(b));
        }
    }
}

/// Reads that need the full search (paralogs, so re-seeding too; many substitutions;
/// Ns) get the same results aligned in one batch, whose seeds are searched together,
/// as aligned one read at a time.
#[test]
fn batched_seeding_gives_each_read_its_own_results() {
    let mut rng = Rng(0xba7c4);
    let mut contigs = genome(&mut rng);
    // A 3 kb paralog: contig 0's piece copied into contig 2, one change every 61 bases.
    let mut copy = contigs[0][10_000..13_000].to_vec();
    for k in (30..copy.len()).step_by(61) {
        copy[k] = if copy[k] == b'A' { b'C' } else { b'A' };
    }
    contigs[2][30_000..33_000].copy_from_slice(&copy);
    let index = index(&contigs);
    let reads: Vec<Vec<u8>> = (0..120)
        .map(|i| {
            let (contig, position) = match i % 3 {
                0 => (0, 10_000 + rng.next(2_850) as usize),
                1 => (2, 30_000 + rng.next(2_850) as usize),
                _ => (1, rng.next(59_000) as usize),
            };
            let mut bases = contigs[contig][position..position + 150].to_vec();
            for _ in 0..rng.next(12) {
                let at = rng.next(150) as usize;
                bases[at] = b"ACGTN"[rng.next(5) as usize];
            }
            if i % 2 == 1 {
                reverse_complement_letters(&mut bases);
            }
            bases
        })
        .collect();
    for mode in [AlignMode::EndToEnd, AlignMode::Local] {
        let params = AlignParams::new(mode, Preset::Sensitive);
        let names: Vec<String> = (0..reads.len()).map(|i| format!("r{i}")).collect();
        let together = align_named(&index, &params, &names, &reads);
        for (k, result) in together.iter().enumerate() {
            let alone = align_named(&index, &params, &names[k..=k], &reads[k..=k]);
            assert_eq!(result, &alone[0], "read {k}");
        }
    }
}

/// A copy that differs from the read at one base only is found as the runner-up (XS,
/// a low MAPQ) wherever that base lies, the read's middle base included, where the
/// re-seeding of the whole-read match starts.
#[test]
fn a_paralog_one_base_off_is_the_runner_up_wherever_the_base_lies() {
    let mut rng = Rng(0x5eed);
    let mut contigs = genome(&mut rng);
    let piece = contigs[0][5_000..5_800].to_vec();
    contigs[2][20_000..20_800].copy_from_slice(&piece);
    let changed = [10, 49, 50, 51, 90];
    // Read k: 100 bases of contig 0 from 5,000 + 150k, its copy changed at base changed[k].
    let reads: Vec<Vec<u8>> = (0..changed.len())
        .map(|k| contigs[0][5_000 + 150 * k..5_100 + 150 * k].to_vec())
        .collect();
    for (k, at) in changed.into_iter().enumerate() {
        let base = &mut contigs[2][20_000 + 150 * k + at];
        *base = if *base == b'A' { b'C' } else { b'A' };
    }
    let index = index(&contigs);
    let params = AlignParams::default();
    for (result, at) in align_all(&index, &params, &reads).iter().zip(changed) {
        let ReadResult::Aligned {
            placements,
            second_best,
            mapq,
        } = result
        else {
            panic!("read changed at {at} not aligned");
        };
        assert_eq!((placements[0].contig, placements[0].score), (0, 0));
        assert_eq!(*second_best, Some(-6), "copy changed at base {at}");
        assert!(*mapq < 20, "copy changed at base {at}: MAPQ {mapq}");
    }
}

#[test]
fn indels_and_clips() {
    let mut rng = Rng(42);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    let source = &contigs[1][20_000..20_200];
    // 3-base deletion at 70, 2-base insertion at 120.
    let mut read = source[..70].to_vec();
    read.extend_from_slice(&source[73..120]);
    read.extend_from_slice(b"TT");
    read.extend_from_slice(&source[120..150]);
    let e2e = align_all(
        &index,
        &AlignParams::new(AlignMode::EndToEnd, Preset::Sensitive),
        &[read.clone()],
    );
    let p = primary(&e2e[0]);
    assert_eq!((p.contig, p.position), (1, 20_000));
    assert_eq!(p.cigar.reference_len(), 150);
    assert_eq!(p.score, -(5 + 3 * 3) - (5 + 3 * 2));
    assert_eq!(
        (p.edits.gap_opens, p.edits.gap_bases, p.edits.edit_distance),
        (2, 5, 5)
    );
    // 30 foreign bases at the start (each differs from the reference base it would
    // pair with): local clips them; end-to-end must pay for them.
    let shifted = |b: u8| match b {
        b'A' => b'C',
        b'C' => b'G',
        b'G' => b'T',
        _ => b'A',
    };
    let mut adapter: Vec<u8> = contigs[1][19_970..20_000]
        .iter()
        .map(|&b| shifted(b))
        .collect();
    adapter.extend_from_slice(&source[..120]);
    let local = align_all(
        &index,
        &AlignParams::new(AlignMode::Local, Preset::Sensitive),
        &[adapter.clone()],
    );
    let p = primary(&local[0]);
    assert_eq!(
        (p.position, p.cigar.to_string(), p.score),
        (20_000, "30S120M".to_string(), 240)
    );
    let e2e = align_all(
        &index,
        &AlignParams::new(AlignMode::EndToEnd, Preset::Sensitive),
        &[adapter],
    );
    if let ReadResult::Aligned { placements, .. } = &e2e[0] {
        assert!(!placements[0].cigar.to_string().contains('S'));
        assert!(placements[0].score < -30 && placements[0].score >= -90);
    }
}

#[test]
fn special_reads() {
    let mut rng = Rng(7);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    let params = AlignParams::default();
    let random: Vec<u8> = rng.bases(120);
    let results = align_all(
        &index,
        &params,
        &[
            Vec::new(),
            vec![b'N'; 80],
            random,
            b"ACGTAC".to_vec(),
            b"A".to_vec(),
        ],
    );
    assert_eq!(results[0], ReadResult::Unaligned(Unaligned::TooShort));
    assert_eq!(results[4], ReadResult::Unaligned(Unaligned::TooShort));
    assert_eq!(results[1], ReadResult::Unaligned(Unaligned::TooManyNs));
    assert_eq!(results[2], ReadResult::Unaligned(Unaligned::NoAlignment));
    // A 6-base read is looked up whole, as bowtie2 looks it up: it occurs somewhere in
    // a random genome of this size, many times.
    match &results[3] {
        ReadResult::Aligned {
            placements, mapq, ..
        } => {
            assert_eq!(placements[0].score, 0);
            assert!(*mapq <= 1, "a 6-mer occurs many times: MAPQ {mapq}");
        }
        other => panic!("a 6-base read did not align: {other:?}"),
    }
}

#[test]
fn reads_longer_than_the_kernels_score_are_not_aligned() {
    let mut rng = Rng(11);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    // Genome sequence, so the read would align if it were searched.
    let long = contigs[0][1_000..1_001 + MAX_READ_LEN].to_vec();
    let short = contigs[0][1_000..1_150].to_vec();
    for mode in [AlignMode::EndToEnd, AlignMode::Local] {
        let params = AlignParams::new(mode, Preset::Sensitive);
        let results = align_all(&index, &params, &[long.clone(), short.clone()]);
        assert_eq!(
            results[0],
            ReadResult::Unaligned(Unaligned::TooLong),
            "{mode:?}"
        );
        assert!(matches!(results[1], ReadResult::Aligned { .. }), "{mode:?}");
    }
}
