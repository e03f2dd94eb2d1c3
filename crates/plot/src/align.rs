//! align's picture: the MAPQ histogram of the aligned primary records and, for pairs,
//! the insert-size histogram (TLEN of the concordant pairs' primary records, counted
//! once per pair, up to [`MAX_INSERT`]).

use std::ops::AddAssign;
use std::path::Path;

use seqfarm_core::flags::{PROPER_PAIR, SECONDARY, UNMAPPED};

use crate::file_label;
use crate::histogram::{self, bins, HistogramPanel};

/// Insert sizes counted, at most (longer ones are left out of the histogram).
pub const MAX_INSERT: usize = 100_000;
/// Bars of the insert-size histogram, at most.
const INSERT_BARS: usize = 150;

/// Counts of the records as they are written: MAPQ and insert size by value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlignTally {
    mapq: Vec<u64>,
    insert: Vec<u64>,
}

impl AlignTally {
    /// Counts a record with `flag`, `mapq` and `template_len`: its MAPQ when it is an
    /// aligned primary record, its TLEN when it is also the first of a concordant pair
    /// (positive TLEN).
    pub fn add_record(&mut self, flag: u16, mapq: u8, template_len: i64) {
        if flag & (UNMAPPED | SECONDARY) != 0 {
            return;
        }
        if self.mapq.is_empty() {
            self.mapq.resize(256, 0);
        }
        self.mapq[usize::from(mapq)] += 1;
        if flag & PROPER_PAIR != 0 && template_len > 0 && template_len as usize <= MAX_INSERT {
            let at = template_len as usize;
            if self.insert.len() <= at {
                self.insert.resize(at + 1, 0);
            }
            self.insert[at] += 1;
        }
    }

    /// Sets every count to 0, keeping the memory.
    pub fn clear(&mut self) {
        self.mapq.fill(0);
        self.insert.fill(0);
    }

    /// The picture of a run of `reads` against the index `index`, with the insert-size
    /// histogram when `paired`, as SVG.
    pub fn draw(
        &self,
        reads: &[std::path::PathBuf],
        index: &Path,
        paired: bool,
    ) -> crate::Result<String> {
        let mut panels = vec![HistogramPanel {
            x_title: "MAPQ".to_string(),
            y_title: "reads".to_string(),
            bars: bins(&self.mapq, 256),
        }];
        if paired {
            panels.push(HistogramPanel {
                x_title: "insert size (bp, TLEN of concordant pairs)".to_string(),
                y_title: "pairs".to_string(),
                bars: bins(&self.insert, INSERT_BARS),
            });
        }
        let names: Vec<String> = reads.iter().map(|r| file_label(r)).collect();
        let title = format!("align: {} against {}", names.join(", "), file_label(index));
        histogram::draw("align", &title, &panels)
    }
}

impl AddAssign<&AlignTally> for AlignTally {
    fn add_assign(&mut self, other: &AlignTally) {
        for (mine, theirs) in [
            (&mut self.mapq, &other.mapq),
            (&mut self.insert, &other.insert),
        ] {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), 0);
            }
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use seqfarm_core::flags::{PAIRED, READ1, READ2};

    #[test]
    fn primary_aligned_records_and_concordant_pairs_count() {
        let mut tally = AlignTally::default();
        tally.add_record(0, 42, 0);
        tally.add_record(UNMAPPED, 0, 0);
        tally.add_record(SECONDARY, 255, 0);
        let pair = PAIRED | PROPER_PAIR;
        tally.add_record(pair | READ1, 30, 350);
        tally.add_record(pair | READ2, 30, -350);
        tally.add_record(PAIRED | READ1, 1, 900);
        tally.add_record(pair | READ1, 30, MAX_INSERT as i64 + 1);
        assert_eq!(tally.mapq[42], 1);
        assert_eq!(tally.mapq[30], 3);
        assert_eq!(tally.mapq.iter().sum::<u64>(), 5);
        assert_eq!(tally.insert.iter().sum::<u64>(), 1);
        assert_eq!(tally.insert[350], 1);

        let mut sum = AlignTally::default();
        sum += &tally;
        sum += &tally;
        assert_eq!(sum.insert[350], 2);
        assert_eq!(sum.mapq[30], 6);
        sum.clear();
        assert_eq!(sum.mapq.iter().sum::<u64>(), 0);
    }
}
