//! [`Aligner::align_pairs`]: both mates of every pair of a batch aligned together, then
//! paired (see [`crate::pair`]).

use super::{Aligner, ReadInput, ReadResult, Unaligned};
use crate::pair::{PairClass, PairFit, PairInput, PairParams, PairResult};

impl Aligner<'_> {
    /// Aligns `pairs`; `results[i]` is pair `i`'s outcome. Each pair's result depends on
    /// that pair alone.
    pub fn align_pairs(
        &mut self,
        pairs: &[PairInput<'_>],
        pairing: &PairParams,
        results: &mut Vec<PairResult>,
    ) {
        let reads: Vec<ReadInput<'_>> = pairs.iter().flat_map(|p| p.mates).collect();
        let mut single = Vec::new();
        self.align_batch(&reads, &mut single);
        results.clear();
        let mut outcomes = single.into_iter();
        while let (Some(m1), Some(m2)) = (outcomes.next(), outcomes.next()) {
            results.push(pair_up(m1, m2, pairing));
        }
    }
}

/// Classifies two mates' outcomes as a pair.
fn pair_up(m1: ReadResult, m2: ReadResult, pairing: &PairParams) -> PairResult {
    let class = match (&m1, &m2) {
        (
            ReadResult::Aligned {
                placements: p1,
                second_best: s1,
                ..
            },
            ReadResult::Aligned {
                placements: p2,
                second_best: s2,
                ..
            },
        ) => match pairing.classify(&p1[0], &p2[0]) {
            PairFit::Concordant => PairClass::Concordant,
            PairFit::Discordant if pairing.discordant && s1.is_none() && s2.is_none() => {
                PairClass::Discordant
            }
            PairFit::Discordant => PairClass::Unpaired,
        },
        _ => PairClass::Unpaired,
    };
    let mates = if class == PairClass::Unpaired && !pairing.mixed {
        [
            ReadResult::Unaligned(Unaligned::NoAlignment),
            ReadResult::Unaligned(Unaligned::NoAlignment),
        ]
    } else {
        [m1, m2]
    };
    PairResult {
        class,
        mates,
        other_pairs: false,
    }
}
