//! Alignments at other offsets of a region: a region gathers anchors up to 24
//! diagonals apart, and its extension finds one alignment; in a tandem repeat (or a
//! read that matches itself shifted) another alignment may lie on an anchor diagonal
//! away from it. bowtie2 reports such alignments from the same dynamic programme (the
//! next best cell whose path shares no cell with the first): they are its second best
//! (`XS`) and its `-k`/`-a` secondary alignments. Here each anchor diagonal clear of the
//! first alignment's path is extended again in a band too narrow to reach that path.

use std::ops::Range;

use super::{Aligner, Outcome};
use crate::candidate::BAND_MARGIN;
use crate::chain::Region;
use crate::cigar::CigarOp;

impl Aligner<'_> {
    /// Queues and extends, for each read of `which`, its regions' anchor diagonals that
    /// lie clear of the region's alignment, into `Prepared::other_offsets`.
    pub(super) fn align_other_offsets(&mut self, which: &[usize]) {
        self.job_specs.clear();
        for &r in which {
            let first = self.candidates.len();
            for c in self.prepared[r].candidates.clone() {
                let cand = &self.candidates[c];
                let Outcome::Done(Some(ext)) = &cand.outcome else {
                    continue;
                };
                if cand.diagonals.is_empty() {
                    continue;
                }
                let span = path_diagonals(cand.window_start + ext.window_start as i64, ext);
                let targets = clear_of(&cand.diagonals, span);
                let len = self.read_len(r);
                let reverse = cand.reverse;
                let anchor_ref = (cand.window_start + cand.band as i64).max(0) as u64;
                for (diagonal, band) in targets {
                    let region = Region {
                        reverse,
                        diagonal_min: diagonal,
                        diagonal_max: diagonal,
                        main_diagonal: diagonal,
                        anchor_ref,
                        weight: 0,
                        bowtie2: false,
                        diagonals: Vec::new(),
                    };
                    self.queue_in_band(r, &region, len, band);
                }
            }
            self.prepared[r].other_offsets = first..self.candidates.len();
        }
        if !self.job_specs.is_empty() {
            self.run_jobs();
        }
    }
}

/// The global diagonals an alignment's path runs on, from the diagonal of its first
/// read base (`start`: the reference coordinate where the aligned part begins, less
/// the bases before it): each deletion moves it right, each insertion left.
fn path_diagonals(reference_start: i64, ext: &crate::dp::Extension) -> Range<i64> {
    let mut diagonal = reference_start - ext.read_start as i64;
    let (mut low, mut high) = (diagonal, diagonal);
    for (op, n) in ext.cigar.ops() {
        match op {
            CigarOp::Deletion => diagonal += i64::from(n),
            CigarOp::Insertion => diagonal -= i64::from(n),
            _ => continue,
        }
        low = low.min(diagonal);
        high = high.max(diagonal);
    }
    low..high + 1
}

/// The anchor `diagonals` (ascending) at least two diagonals clear of `path`, each with
/// the widest band (at most [`BAND_MARGIN`]) that keeps it off the path; a diagonal
/// inside the band of the one before it is left out.
fn clear_of(diagonals: &[i64], path: Range<i64>) -> Vec<(i64, usize)> {
    let mut out: Vec<(i64, usize)> = Vec::new();
    for &d in diagonals {
        let gap = if d < path.start {
            path.start - d
        } else if d >= path.end {
            d - path.end + 1
        } else {
            0
        };
        if gap < 2 {
            continue;
        }
        let band = ((gap - 1) as usize).min(BAND_MARGIN);
        if out
            .last()
            .is_some_and(|&(last, last_band)| d - last <= last_band as i64)
        {
            continue;
        }
        out.push((d, band));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::clear_of;

    #[test]
    fn diagonals_clear_of_the_path_get_a_band_that_misses_it() {
        // The path on diagonal 0; anchors on 0, 1, 8 and 9 (a tandem repeat of 8).
        assert_eq!(clear_of(&[0, 1, 8, 9], 0..1), [(8, 7)]);
        assert_eq!(clear_of(&[-20, 0], 0..1), [(-20, 8)]);
        assert!(clear_of(&[0, 1], 0..1).is_empty());
    }
}
