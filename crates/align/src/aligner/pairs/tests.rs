//! Tests of pairing: which pairs get mate rescue; and [`places_at`], the mate places
//! that the tests of the pairing modules are built from.

use super::{concordant, mate_places, needs_rescue, MatePlaces, MATE_PLACEMENTS};
use crate::aligner::ReadResult;
use crate::candidate::Placement;
use crate::cigar::{Cigar, CigarOp};

/// A mate's places: 100 bases aligned at each of `positions`, all scoring 0.
pub(super) fn places_at(positions: &[u64], reverse: bool) -> MatePlaces {
    let mut cigar = Cigar::new();
    cigar.push(CigarOp::Match, 100);
    let places: Vec<Placement> = positions
        .iter()
        .map(|&position| Placement {
            contig: 0,
            position,
            reverse,
            score: 0,
            cigar: cigar.clone(),
            edits: Default::default(),
        })
        .collect();
    MatePlaces {
        searched: places.len(),
        places,
        ..MatePlaces::default()
    }
}

/// A mate whose kept places fill the list and all tie is a sample of a repeat
/// ([`MatePlaces::is_sample`]). A pair is rescued even when its best concordant
/// combination holds both mates' best places, when another place tied for a mate's
/// best pairs with nothing: its partner may be among the places left out.
#[test]
fn a_best_place_without_a_partner_is_rescued() {
    let sampled = |positions: &[u64], reverse: bool| {
        let result = ReadResult::Aligned {
            placements: places_at(positions, reverse).places,
            second_best: Some(0),
            mapq: 0,
        };
        mate_places(result)
    };
    let copies: Vec<u64> = (0..MATE_PLACEMENTS as u64)
        .map(|i| 10_000 * i + 1_300)
        .collect();
    let m2 = sampled(&copies, true);
    assert!(m2.is_sample(MATE_PLACEMENTS));
    let m1 = sampled(&[1_000, 50_000], false);
    assert!(!m1.is_sample(MATE_PLACEMENTS));
    assert!(!sampled(&copies[..MATE_PLACEMENTS - 1], true).is_sample(MATE_PLACEMENTS));
    let pairing = crate::pair::PairParams::default();
    let needs_rescue =
        |m1: &MatePlaces, m2: &MatePlaces| needs_rescue(m1, m2, &concordant(&pairing, m1, m2));
    assert!(needs_rescue(&m1, &m2));
    let m1_sampled = sampled(&copies.iter().map(|p| p - 300).collect::<Vec<_>>(), false);
    assert!(m1_sampled.is_sample(MATE_PLACEMENTS));
    assert!(!needs_rescue(&m1_sampled, &m2));
    let m2_few = sampled(&[1_300, 41_300], true);
    assert!(
        needs_rescue(&m1, &m2_few),
        "50,000 and 41,300 pair with nothing"
    );
    let m2_paired = sampled(&[1_300, 50_300], true);
    assert!(!needs_rescue(&m1, &m2_paired));
}
