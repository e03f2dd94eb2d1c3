//! What the chosen pair is weighed against: the mates' own best places (BWA-MEM's
//! unpaired penalty), the best combination that is not concordant, and each mate's best
//! score elsewhere (`XS`).

use super::fragments::FragmentModel;
use super::{Combination, MatePlaces, UNPAIRED_PENALTY};
use crate::pair::{PairFit, PairParams};

/// Whether the mates' own best places, reported as a discordant pair or as unpaired
/// mates, beat the best concordant pair (score sum `concordant`) by more than
/// [`UNPAIRED_PENALTY`] mismatches (`unit`): BWA-MEM's rule for giving a pair up. Then
/// the concordant pair is a forced fit (a mate placed with many more differences in a
/// nearby repeat copy because its true place lies just past `-X`). Never with
/// `--no-mixed`, which would report no alignment at all instead.
pub(super) fn mates_alone_better(
    pairing: &PairParams,
    m1: &MatePlaces,
    m2: &MatePlaces,
    concordant: i32,
    unit: i32,
) -> bool {
    if !pairing.mixed || m1.searched == 0 || m2.searched == 0 {
        return false;
    }
    let alone = m1.places[0].score + m2.places[0].score;
    alone - UNPAIRED_PENALTY * unit > concordant
}

/// The best non-concordant combination of the mates' places as a rival of the chosen
/// pair (score sum, mate-1 place, mate-2 place), its score sum lowered by how unlikely
/// it is as a fragment ([`FragmentModel::rival_penalty`]). The combination `except`
/// (the reported one, when it is not concordant) is left out.
pub(super) fn best_rival(
    pairing: &PairParams,
    fragments: &FragmentModel,
    m1: &MatePlaces,
    m2: &MatePlaces,
    unit: i32,
    except: Option<(usize, usize)>,
) -> Option<Combination> {
    let mut rival: Option<Combination> = None;
    for (a, p1) in m1.places.iter().enumerate() {
        for (b, p2) in m2.places.iter().enumerate() {
            if pairing.classify(p1, p2) == PairFit::Concordant || except == Some((a, b)) {
                continue;
            }
            let score = p1.score + p2.score - fragments.rival_penalty(pairing, p1, p2, unit);
            if rival.is_none_or(|r| score > r.0) {
                rival = Some((score, a, b));
            }
        }
    }
    rival
}

/// The best score of a mate at a place other than `chosen` (`XS`).
pub(super) fn best_elsewhere(m: &MatePlaces, chosen: usize) -> Option<i32> {
    let listed = m
        .places
        .iter()
        .enumerate()
        .filter(|&(k, _)| k != chosen)
        .map(|(_, p)| p.score)
        .max();
    match (listed, m.second_best) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}
