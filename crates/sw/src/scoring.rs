//! Scoring parameters: a substitution matrix and affine gap costs in BLAST's convention.

use crate::matrix::ScoreMatrix;
use crate::Error;

/// The largest gap cost accepted (open + extend); far beyond any useful value.
pub const MAX_GAP_COST: i32 = 10_000;

/// A substitution matrix and affine gap costs.
///
/// Gaps follow BLAST: a gap of length `k` costs `gap_open + k * gap_extend`. Parasail
/// charges `open` alone for the first residue of a gap, so these scores equal parasail's
/// with parasail's open = `gap_open + gap_extend` and extend = `gap_extend`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scoring {
    matrix: ScoreMatrix,
    gap_open: i32,
    gap_extend: i32,
}

impl Default for Scoring {
    /// BLOSUM62 with gap open 11, extend 1 (BLAST's protein default).
    fn default() -> Self {
        Self {
            matrix: ScoreMatrix::builtin("BLOSUM62").unwrap_or_else(|| {
                unreachable!("BLOSUM62 is compiled in and parsed by the unit tests")
            }),
            gap_open: 11,
            gap_extend: 1,
        }
    }
}

impl Scoring {
    /// Default gap open cost for protein search.
    pub const DEFAULT_GAP_OPEN: i32 = 11;
    /// Default gap extension cost for protein search.
    pub const DEFAULT_GAP_EXTEND: i32 = 1;

    /// Scoring with `matrix` and the given gap costs (both at least 0).
    pub fn new(matrix: ScoreMatrix, gap_open: i32, gap_extend: i32) -> Result<Self, Error> {
        if gap_open < 0 || gap_extend < 0 {
            return Err(Error::Scoring(format!(
                "gap costs must be at least 0 (open {gap_open}, extend {gap_extend})"
            )));
        }
        if gap_open.saturating_add(gap_extend) > MAX_GAP_COST {
            return Err(Error::Scoring(format!(
                "gap open + extend must be at most {MAX_GAP_COST}"
            )));
        }
        Ok(Self {
            matrix,
            gap_open,
            gap_extend,
        })
    }

    /// The substitution matrix.
    pub fn matrix(&self) -> &ScoreMatrix {
        &self.matrix
    }

    /// Gap open cost (BLAST convention).
    pub fn gap_open(&self) -> i32 {
        self.gap_open
    }

    /// Gap extension cost.
    pub fn gap_extend(&self) -> i32 {
        self.gap_extend
    }

    /// Cost of a gap of length 1: open + extend.
    pub fn first_gap_cost(&self) -> i32 {
        self.gap_open + self.gap_extend
    }

    /// The longest query these parameters score without risk of 32-bit overflow.
    pub fn max_query_len(&self) -> usize {
        let per_residue = self.matrix.max_score().max(1) as usize;
        (i32::MAX as usize / 4) / per_residue
    }
}
