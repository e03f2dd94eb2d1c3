//! Paired-end alignment on a random genome: planted pairs are concordant at the right
//! places, a mate no seed finds is rescued next to its mate, a mate in a repeat is placed
//! by its mate, discordant and unpaired outcomes follow bowtie2's options, and results
//! do not depend on the batch.

use seqfarm_align::mapq::MapqModel;
use seqfarm_align::{
    AlignParams, Aligner, MateOrientation, PairClass, PairInput, PairParams, PairResult, Placement,
    ReadInput, ReadResult,
};
use seqfarm_core::nucleotide::reverse_complement_letters;
use seqfarm_fmindex::FmIndex;

mod common;
#[path = "pairs/pair_quality.rs"]
mod pair_quality;

use common::{index, Rng};

/// Three random contigs; contig 2 holds a copy of contig 0's bases 20,000..21,000.
fn genome(rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut contigs: Vec<Vec<u8>> = (0..3).map(|_| rng.bases(60_000)).collect();
    let copy = contigs[0][20_000..21_000].to_vec();
    contigs[2][40_000..41_000].copy_from_slice(&copy);
    contigs
}

/// A planted fragment: mate letters as sequenced, and each mate's true place.
struct Fragment {
    mates: [Vec<u8>; 2],
    places: [(usize, u64, bool); 2],
}

/// An FR fragment of `len` bases at `start` of `contig`, mates of `mate_len`, taken
/// from the reverse strand when `flip`.
fn fragment(
    contigs: &[Vec<u8>],
    contig: usize,
    start: u64,
    len: u64,
    mate_len: u64,
    flip: bool,
) -> Fragment {
    let s = start as usize;
    let left = contigs[contig][s..s + mate_len as usize].to_vec();
    let right_start = start + len - mate_len;
    let r = right_start as usize;
    let mut right = contigs[contig][r..r + mate_len as usize].to_vec();
    reverse_complement_letters(&mut right);
    if flip {
        Fragment {
            mates: [right, left],
            places: [(contig, right_start, true), (contig, start, false)],
        }
    } else {
        Fragment {
            mates: [left, right],
            places: [(contig, start, false), (contig, right_start, true)],
        }
    }
}

fn mutate(bases: &mut [u8], every: usize) {
    for i in (every / 2..bases.len()).step_by(every) {
        bases[i] = if bases[i] == b'A' { b'C' } else { b'A' };
    }
}

fn align(index: &FmIndex, pairing: &PairParams, fragments: &[Fragment]) -> Vec<PairResult> {
    align_named(index, pairing, fragments, 0)
}

/// Aligns `fragments` named `p{first}`, `p{first + 1}`, …
fn align_named(
    index: &FmIndex,
    pairing: &PairParams,
    fragments: &[Fragment],
    first: usize,
) -> Vec<PairResult> {
    let names: Vec<String> = (first..first + fragments.len())
        .map(|i| format!("p{i}"))
        .collect();
    let inputs: Vec<PairInput<'_>> = fragments
        .iter()
        .zip(&names)
        .map(|(f, n)| PairInput {
            mates: [0, 1].map(|m| ReadInput {
                name: n.as_bytes(),
                bases: &f.mates[m],
                qualities: None,
            }),
        })
        .collect();
    // These tests pin seqfarm's calibrated pair quality and its BWA-MEM-like choices
    // (stretched pairs weighed by the learned fragment lengths); bowtie2's model is
    // compared with bowtie2 itself end to end.
    let params = AlignParams {
        mapq: MapqModel::Calibrated,
        ..AlignParams::default()
    };
    let mut aligner = Aligner::new(index, params).unwrap();
    let mut results = Vec::new();
    aligner.align_pairs(&inputs, pairing, &mut results);
    results
}

fn primary(result: &ReadResult) -> &Placement {
    match result {
        ReadResult::Aligned { placements, .. } => &placements[0],
        other => panic!("not aligned: {other:?}"),
    }
}

fn mapq(result: &ReadResult) -> u8 {
    match result {
        ReadResult::Aligned { mapq, .. } => *mapq,
        other => panic!("not aligned: {other:?}"),
    }
}

fn assert_placed(result: &PairResult, fragment: &Fragment) {
    for m in 0..2 {
        let p = primary(&result.mates[m]);
        let (contig, position, reverse) = fragment.places[m];
        assert_eq!(
            (p.contig, p.position, p.reverse),
            (contig, position, reverse),
            "mate {}",
            m + 1
        );
    }
}

#[test]
fn planted_pairs_are_concordant_at_their_places() {
    let mut rng = Rng(0x9a1e);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    let fragments: Vec<Fragment> = (0..200)
        .map(|i| {
            let contig = [0, 1][i % 2];
            let len = 250 + rng.next(200);
            let start = 100 + rng.next(50_000);
            let mut f = fragment(&contigs, contig, start, len, 100, i % 3 == 0);
            mutate(&mut f.mates[i % 2], 37);
            f
        })
        .collect();
    let results = align(&index, &PairParams::default(), &fragments);
    for (r, f) in results.iter().zip(&fragments) {
        assert_eq!(r.class, PairClass::Concordant);
        assert_placed(r, f);
        assert!(mapq(&r.mates[0]) >= 20 && mapq(&r.mates[1]) >= 20, "{r:?}");
    }
    // One at a time gives the same results.
    for (k, f) in fragments.iter().enumerate().take(20) {
        let alone = align_named(&index, &PairParams::default(), std::slice::from_ref(f), k);
        assert_eq!(alone[0], results[k]);
    }
}

#[test]
fn a_mate_no_seed_finds_is_rescued_next_to_its_mate() {
    let mut rng = Rng(0x5e5c);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    let mut fragments = Vec::new();
    for i in 0..30u64 {
        // A mismatch every 11 bases: no exact match of 15 bases or more.
        let mut f = fragment(&contigs, 1, 1_000 + 1_500 * i, 420, 100, i % 2 == 1);
        mutate(&mut f.mates[1], 11);
        fragments.push(f);
    }
    let results = align(&index, &PairParams::default(), &fragments);
    for (r, f) in results.iter().zip(&fragments) {
        assert_eq!(r.class, PairClass::Concordant);
        assert_placed(r, f);
    }
    // Alone, such a mate does not align.
    let mut aligner = Aligner::new(&index, AlignParams::default()).unwrap();
    let mut single = Vec::new();
    let read = ReadInput {
        name: b"m",
        bases: &fragments[0].mates[1],
        qualities: None,
    };
    aligner.align_batch(&[read], &mut single);
    assert!(matches!(single[0], ReadResult::Unaligned(_)));
}

#[test]
fn a_mate_in_a_repeat_is_placed_by_its_mate() {
    let mut rng = Rng(0x4e9e);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    // Mate 2 lies inside the duplicated kilobase (contig 0 20,000..21,000), mate 1
    // outside it.
    let f = fragment(&contigs, 0, 19_700, 450, 100, false);
    let results = align(&index, &PairParams::default(), &[f]);
    let f = fragment(&contigs, 0, 19_700, 450, 100, false);
    assert_eq!(results[0].class, PairClass::Concordant);
    assert_placed(&results[0], &f);
    let ReadResult::Aligned { second_best, .. } = &results[0].mates[1] else {
        panic!("mate 2 not aligned");
    };
    assert_eq!(*second_best, Some(0), "the copy scores as well");
    assert!(
        mapq(&results[0].mates[1]) >= 20,
        "{:?}",
        results[0].mates[1]
    );
}

#[test]
fn discordant_and_unpaired_outcomes_follow_the_options() {
    let mut rng = Rng(0xd15c);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    // Mates on different contigs.
    let a = fragment(&contigs, 0, 5_000, 300, 100, false);
    let b = fragment(&contigs, 1, 7_000, 300, 100, false);
    let split = Fragment {
        mates: [a.mates[0].clone(), b.mates[1].clone()],
        places: [a.places[0], b.places[1]],
    };
    // A fragment of 800 bases (over -X 500).
    let long = fragment(&contigs, 1, 30_000, 800, 100, false);
    let fragments = [split, long];
    let results = align(&index, &PairParams::default(), &fragments);
    for (r, f) in results.iter().zip(&fragments) {
        assert_eq!(r.class, PairClass::Discordant);
        assert_placed(r, f);
    }
    let wide = PairParams {
        max_fragment: 1_000,
        ..PairParams::default()
    };
    assert_eq!(
        align(&index, &wide, &fragments[1..])[0].class,
        PairClass::Concordant
    );
    let no_discordant = PairParams {
        discordant: false,
        ..PairParams::default()
    };
    for r in align(&index, &no_discordant, &fragments) {
        assert_eq!(r.class, PairClass::Unpaired);
        assert!(r
            .mates
            .iter()
            .all(|m| matches!(m, ReadResult::Aligned { .. })));
    }
    let neither = PairParams {
        mixed: false,
        ..PairParams::default()
    };
    for r in align(&index, &neither, &fragments) {
        assert_eq!(r.class, PairClass::Unpaired);
        assert!(r
            .mates
            .iter()
            .all(|m| matches!(m, ReadResult::Unaligned(_))));
    }
    // Mates extending a base past each other (a dovetail, not concordant without
    // --dovetail): bowtie2's search for a mate beside its mate finds them, so they are
    // a discordant pair with --no-mixed too.
    let dovetail = fragment(&contigs, 0, 45_000, 99, 100, false);
    for params in [PairParams::default(), neither] {
        let r = &align(&index, &params, std::slice::from_ref(&dovetail))[0];
        assert_eq!(r.class, PairClass::Discordant, "{r:?}");
        assert_placed(r, &dovetail);
    }
    // --rf: the FR fragment's mates face the wrong way.
    let rf = PairParams {
        orientation: MateOrientation::Rf,
        ..PairParams::default()
    };
    let fr = fragment(&contigs, 1, 10_000, 400, 100, false);
    assert_ne!(align(&index, &rf, &[fr])[0].class, PairClass::Concordant);
}

#[test]
fn a_mate_over_the_n_ceiling_is_not_rescued() {
    let mut rng = Rng(0x0a0a);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    let mut f = fragment(&contigs, 1, 3_000, 400, 100, false);
    for b in f.mates[1].iter_mut().step_by(5) {
        *b = b'N';
    }
    let results = align(&index, &PairParams::default(), &[f]);
    assert_eq!(results[0].class, PairClass::Unpaired);
    assert!(matches!(results[0].mates[0], ReadResult::Aligned { .. }));
    assert_eq!(
        results[0].mates[1],
        ReadResult::Unaligned(seqfarm_align::Unaligned::TooManyNs)
    );
}

#[test]
fn nofw_and_norc_restrict_the_fragment_strand() {
    let mut rng = Rng(0x0f0f);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    // Fragments from both strands: mate 1 forward (forward fragment) and reverse.
    let fragments = [
        fragment(&contigs, 1, 8_000, 400, 100, false),
        fragment(&contigs, 1, 9_000, 400, 100, true),
    ];
    let names = [b"f".as_slice(), b"r".as_slice()];
    let inputs: Vec<PairInput<'_>> = fragments
        .iter()
        .zip(names)
        .map(|(f, n)| PairInput {
            mates: [0, 1].map(|m| ReadInput {
                name: n,
                bases: &f.mates[m],
                qualities: None,
            }),
        })
        .collect();
    let run = |forward: bool, reverse: bool| {
        let params = AlignParams {
            align_forward: forward,
            align_reverse: reverse,
            ..AlignParams::default()
        };
        let mut aligner = Aligner::new(&index, params).unwrap();
        let mut results = Vec::new();
        aligner.align_pairs(&inputs, &PairParams::default(), &mut results);
        results.iter().map(|r| r.class).collect::<Vec<_>>()
    };
    assert_eq!(
        run(true, true),
        [PairClass::Concordant, PairClass::Concordant]
    );
    assert_eq!(
        run(false, true),
        [PairClass::Unpaired, PairClass::Concordant]
    );
    assert_eq!(
        run(true, false),
        [PairClass::Concordant, PairClass::Unpaired]
    );
}

#[test]
fn a_mate_too_long_to_score_is_not_aligned_nor_rescued() {
    let mut rng = Rng(0x0b0b);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    let mut f = fragment(&contigs, 1, 3_000, 400, 100, false);
    f.mates[1] = contigs[1][20_000..20_001 + seqfarm_align::MAX_READ_LEN].to_vec();
    let results = align(&index, &PairParams::default(), &[f]);
    assert_eq!(results[0].class, PairClass::Unpaired);
    assert!(matches!(results[0].mates[0], ReadResult::Aligned { .. }));
    assert_eq!(
        results[0].mates[1],
        ReadResult::Unaligned(seqfarm_align::Unaligned::TooLong)
    );
}
