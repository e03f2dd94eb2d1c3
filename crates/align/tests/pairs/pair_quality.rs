//! Which pair wins, and how far it is trusted: pairs weighed by the batch's learned
//! fragment lengths against forced repeat copies and copies past `-X`, runner-ups weighed
//! by their lengths in the pair's MAPQ, and no trust in a pair found among sampled
//! copies of repeats.

use super::*;

/// A genome (from `seed`) where the FR fragment of `len` bases at contig 1's 30,000 has
/// a copy of mate 2's bases, with a mismatch every `every` bases (none for 0), placed so
/// that it pairs with mate 1 as a fragment of `copy_len` bases (inside `-X 500`); the
/// contigs, the fragment and the copy's position.
fn copy_inside_the_limit(
    seed: u64,
    len: u64,
    copy_len: u64,
    every: usize,
) -> (Vec<Vec<u8>>, Fragment, u64) {
    let mut rng = Rng(seed);
    let mut contigs = genome(&mut rng);
    let (start, mate_len) = (30_000u64, 100u64);
    let true_mate2 = (start + len - mate_len) as usize;
    let copy_at = (start + copy_len - mate_len) as usize;
    let mut copy = contigs[1][true_mate2..true_mate2 + mate_len as usize].to_vec();
    if every > 0 {
        mutate(&mut copy, every);
    }
    contigs[1][copy_at..copy_at + mate_len as usize].copy_from_slice(&copy);
    let f = fragment(&contigs, 1, start, len, mate_len, false);
    (contigs, f, copy_at as u64)
}

/// Forty unambiguous pairs of 300..500 bases on contig 0, from which a batch learns
/// its fragment lengths (mean about 400, standard deviation about 58).
fn learning_fragments(contigs: &[Vec<u8>]) -> Vec<Fragment> {
    let mut rng = Rng(0x1e4);
    (0..40)
        .map(|i| {
            fragment(
                contigs,
                0,
                1_000 + 1_200 * i,
                300 + rng.next(201),
                100,
                false,
            )
        })
        .collect()
}

/// Aligns `last` in one batch after [`learning_fragments`]; the batch, and its results
/// (`last`'s at the end).
fn align_after_learning(
    contigs: &[Vec<u8>],
    index: &FmIndex,
    last: Fragment,
) -> (Vec<Fragment>, Vec<PairResult>) {
    let mut fragments = learning_fragments(contigs);
    fragments.push(last);
    let results = align(index, &PairParams::default(), &fragments);
    (fragments, results)
}

/// [`align_after_learning`], checking that `last` comes out as a discordant pair.
fn discordant_after_learning(
    contigs: &[Vec<u8>],
    index: &FmIndex,
    last: Fragment,
) -> (Vec<Fragment>, Vec<PairResult>) {
    let (fragments, results) = align_after_learning(contigs, index, last);
    let outcome = results.last().unwrap();
    assert_eq!(outcome.class, PairClass::Discordant, "{outcome:?}");
    (fragments, results)
}

/// A fragment a little past `-X` whose mate 2 has an exact copy inside `-X`, at a
/// fragment length further from the learned mean on the short side: both pairs score
/// the same, and the likelier length wins, as a discordant pair. The concordant pair is
/// weighed by its own length's unlikelihood too, not taken as certain.
#[test]
fn equal_pairs_are_weighed_by_how_likely_each_length_is() {
    let (contigs, true_pair, copy_at) = copy_inside_the_limit(0x57e7, 520, 200, 0);
    let index = index(&contigs);
    let (fragments, results) = discordant_after_learning(&contigs, &index, true_pair);
    assert_placed(results.last().unwrap(), fragments.last().unwrap());
    // Without learned lengths the concordant pair stands.
    let alone = align(&index, &PairParams::default(), &fragments[40..]);
    assert_eq!(alone[0].class, PairClass::Concordant);
    assert_eq!(primary(&alone[0].mates[1]).position, copy_at);
}

/// A fragment just past `-X` whose mate 2 has a copy with two mismatches inside `-X`:
/// bowtie2's rule forces mate 2 onto the copy; the batch's learned fragment lengths make
/// the true, slightly longer pair win, reported as discordant (`-X` still decides what
/// is concordant). `--no-discordant`, or a batch too small to learn from, keeps
/// bowtie2's choice.
#[test]
fn a_pair_just_past_the_limit_beats_a_forced_repeat_copy() {
    let (contigs, stretched, copy_at) = copy_inside_the_limit(0x57e7, 530, 400, 50);
    let index = index(&contigs);
    let (fragments, results) = discordant_after_learning(&contigs, &index, stretched);
    assert_placed(results.last().unwrap(), fragments.last().unwrap());
    assert!(results[..40]
        .iter()
        .all(|r| r.class == PairClass::Concordant));
    let no_discordant = PairParams {
        discordant: false,
        ..PairParams::default()
    };
    for forced in [
        align(&index, &no_discordant, &fragments)[40].clone(),
        align(&index, &PairParams::default(), &fragments[40..])[0].clone(),
    ] {
        assert_eq!(forced.class, PairClass::Concordant);
        assert_eq!(primary(&forced.mates[1]).position, copy_at);
    }
}

/// With four mismatches on the copy, the mates' own places beat the forced pair by more
/// than three mismatches: the pair is given up even without learned lengths.
#[test]
fn a_forced_pair_far_worse_than_its_mates_alone_is_given_up() {
    let (contigs, f, _) = copy_inside_the_limit(0x57e7, 530, 400, 25);
    let index = index(&contigs);
    let results = align(&index, &PairParams::default(), std::slice::from_ref(&f));
    assert_ne!(results[0].class, PairClass::Concordant, "{:?}", results[0]);
    assert_placed(&results[0], &f);
    // --no-mixed would report nothing instead: the pair stands.
    let no_mixed = PairParams {
        mixed: false,
        ..PairParams::default()
    };
    assert_eq!(
        align(&index, &no_mixed, &[f])[0].class,
        PairClass::Concordant
    );
}

/// Two copies of a fragment a little past `-X`: two equally good stretched pairs, so the
/// reported one has no confidence (the other copy is its runner-up, weighed by its
/// length as the reported one is).
#[test]
fn a_stretched_pair_with_an_equal_copy_has_no_confidence() {
    let mut rng = Rng(0x2c0b);
    let contigs = genome(&mut rng);
    let index = index(&contigs);
    let f = fragment(&contigs, 0, 20_200, 520, 100, false);
    let (_, results) = discordant_after_learning(&contigs, &index, f);
    let last = results.last().unwrap();
    assert!(
        mapq(&last.mates[0]) <= 1 && mapq(&last.mates[1]) <= 1,
        "{last:?}"
    );
}

/// Mate 1 with an exact copy 1,100 bases upstream: alone it has two equal places, and
/// paired with the copy its mate would make a fragment far too long, which costs the
/// runner-up one mismatch. A pair one mismatch ahead gets 24 for it (a read 18): about
/// 0.2 % of such simulated mates were misplaced.
#[test]
fn a_pair_one_mismatch_ahead_gets_24() {
    let mut rng = Rng(0x2c0c);
    let mut contigs = genome(&mut rng);
    let copy = contigs[1][30_000..30_100].to_vec();
    contigs[1][28_900..29_000].copy_from_slice(&copy);
    let index = index(&contigs);
    let f = fragment(&contigs, 1, 30_000, 400, 100, false);
    let results = align(&index, &PairParams::default(), std::slice::from_ref(&f));
    assert_eq!(results[0].class, PairClass::Concordant);
    assert_placed(&results[0], &f);
    assert_eq!(mapq(&results[0].mates[0]), 24, "{:?}", results[0]);
}

/// The true FR fragment of `len` bases at contig 1's 30,000, with a copy of mate 1's
/// bases and a copy of mate 2's with one mismatch on contig 2, placed so that the copies
/// make a concordant pair of `copy_len` bases one mismatch behind the true one; the
/// contigs and the fragment.
fn fragment_with_a_worse_copy(len: u64, copy_len: u64) -> (Vec<Vec<u8>>, Fragment) {
    let mut rng = Rng(0x2c0d);
    let mut contigs = genome(&mut rng);
    let (start, mate_len, copy_at) = (30_000usize, 100usize, 10_000usize);
    let mate1 = contigs[1][start..start + mate_len].to_vec();
    let mate2_at = start + len as usize - mate_len;
    let mut mate2 = contigs[1][mate2_at..mate2_at + mate_len].to_vec();
    mutate(&mut mate2, mate_len);
    contigs[2][copy_at..copy_at + mate_len].copy_from_slice(&mate1);
    let copy2_at = copy_at + copy_len as usize - mate_len;
    contigs[2][copy2_at..copy2_at + mate_len].copy_from_slice(&mate2);
    let f = fragment(&contigs, 1, start as u64, len, mate_len as u64, false);
    (contigs, f)
}

/// A pair's runner-up is weighed by how likely its fragment length is, as the pair
/// itself is. When the batch's fragments are 400 ± 58, a pair one mismatch ahead of a
/// copy 250 bases long gets more than the 24 that a mismatch alone is worth (which both
/// get without learned lengths), while a 250-base pair one mismatch ahead of a 400-base
/// copy falls well below it.
#[test]
fn a_pairs_quality_weighs_its_runner_up_by_length() {
    for (len, copy_len, expected) in [(400, 250, 25..=48), (250, 400, 1..=16)] {
        let (contigs, f) = fragment_with_a_worse_copy(len, copy_len);
        let index = index(&contigs);
        let (fragments, results) = align_after_learning(&contigs, &index, f);
        let last = results.last().unwrap();
        assert_eq!(last.class, PairClass::Concordant, "{last:?}");
        assert_placed(last, fragments.last().unwrap());
        assert!(expected.contains(&mapq(&last.mates[0])), "{len}: {last:?}");
        let alone = align(&index, &PairParams::default(), &fragments[40..]);
        assert_eq!(mapq(&alone[0].mates[0]), 24, "{len} alone: {:?}", alone[0]);
    }
}

/// Both mates in repeats of many copies: each mate keeps a full list of equally good
/// places, a sample of its copies, and only one concordant pair lies among them. The
/// copies left out may pair as well, so that pair is not trusted: MAPQ 0 for both
/// mates, not a unique pair's quality.
#[test]
fn a_pair_found_among_sampled_repeat_copies_is_not_trusted() {
    let mut rng = Rng(0x7e9a);
    let mut contig: Vec<u8> = rng.bases(200_000);
    let unit: Vec<u8> = rng.bases(400);
    // Mate 2 as sequenced: the reverse complement of the unit's last 100 bases.
    let mut mate2 = unit[300..].to_vec();
    reverse_complement_letters(&mut mate2);
    // Twelve copies of mate 2's letters on the forward strand, before ten copies of the
    // unit: they fill mate 2's kept places but for the one its tie-break puts first.
    for i in 0..12 {
        contig[1_000 + 2_000 * i..1_100 + 2_000 * i].copy_from_slice(&mate2);
    }
    for i in 0..10 {
        contig[50_000 + 10_000 * i..50_400 + 10_000 * i].copy_from_slice(&unit);
    }
    let index = index(&[contig]);
    // The same pair under twenty names, so that the tie-breaks vary.
    let fragments: Vec<Fragment> = (0..20)
        .map(|_| Fragment {
            mates: [unit[..100].to_vec(), mate2.clone()],
            places: [(0, 140_000, false), (0, 140_300, true)],
        })
        .collect();
    for result in align(&index, &PairParams::default(), &fragments) {
        assert_eq!(result.class, PairClass::Concordant);
        for m in 0..2 {
            assert_eq!(mapq(&result.mates[m]), 0, "{:?}", result.mates[m]);
        }
    }
}

/// Both mates in repeats of many copies, and the two repeats side by side only once:
/// each mate's kept places are a sample of its copies, rescue around them finds no
/// other pair, and the one pair found still says nothing of the copies left out (one
/// of them may lie beside a copy of the other repeat too), so it is reported with
/// MAPQ 0, not a unique pair's quality.
#[test]
fn the_one_pair_among_two_sampled_repeats_is_not_trusted() {
    let mut rng = Rng(0x51a7);
    let mut contig: Vec<u8> = rng.bases(200_000);
    let mate1: Vec<u8> = rng.bases(100);
    let right: Vec<u8> = rng.bases(100);
    // Twelve copies of each mate's bases; only the first two face each other 400 bases
    // apart, the others lie 3 kb from any copy of the other.
    for i in 0..12 {
        let at = 1_000 + 3_000 * i;
        contig[at..at + 100].copy_from_slice(&mate1);
        let at = if i == 0 {
            1_300
        } else {
            100_000 + 3_000 * i + 1_500
        };
        contig[at..at + 100].copy_from_slice(&right);
    }
    let mut mate2 = right;
    reverse_complement_letters(&mut mate2);
    let index = index(&[contig]);
    let fragments: Vec<Fragment> = (0..20)
        .map(|_| Fragment {
            mates: [mate1.clone(), mate2.clone()],
            places: [(0, 1_000, false), (0, 1_300, true)],
        })
        .collect();
    for result in align(&index, &PairParams::default(), &fragments) {
        for m in 0..2 {
            assert_eq!(mapq(&result.mates[m]), 0, "{:?}", result);
        }
    }
}
