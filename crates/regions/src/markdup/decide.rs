//! The decisions: read ends sorted in Picard's order and cut into sets of equal
//! signature; in each set of pairs all but the best score are duplicates (and optical
//! duplicates are counted), and a fragment is a duplicate of a pair at its position or of
//! a better fragment.

use super::ends::{Fragment, ReadEnds};
use super::metrics::{LibraryCounts, SetSizes};
use super::optical::count_optical;
use super::MarkdupRules;

/// Which records are duplicates, with the counts that come from the sets: optical
/// duplicate pairs per library and the sizes of the pair sets.
#[derive(Debug, Clone, Default)]
pub struct Decisions {
    /// Indexes of the duplicate records, sorted.
    duplicates: Vec<u64>,
    /// Optical duplicate pairs, by library number.
    optical: Vec<u64>,
    /// Sizes of the duplicate sets of pairs.
    sets: SetSizes,
}

/// The best of a set with these scores: the first with the highest.
fn best(scores: impl Iterator<Item = i16>) -> usize {
    let mut best = (0, i16::MIN);
    for (i, score) in scores.enumerate() {
        if i == 0 || score > best.1 {
            best = (i, score);
        }
    }
    best.0
}

/// Decides on the read ends of a file with `libraries` libraries.
pub(super) fn decide(
    mut fragments: Vec<Fragment>,
    mut pairs: Vec<ReadEnds>,
    rules: MarkdupRules,
    libraries: usize,
) -> Decisions {
    let mut decisions = Decisions {
        optical: vec![0; libraries],
        ..Decisions::default()
    };
    pairs.sort_unstable_by(ReadEnds::picard_order);
    for set in pairs.chunk_by(ReadEnds::same_pair) {
        decisions.mark_pairs(set, rules);
    }
    drop(pairs);
    fragments.sort_unstable_by(Fragment::picard_order);
    for set in fragments.chunk_by(Fragment::same_position) {
        if set.len() > 1 {
            decisions.mark_fragments(set);
        }
    }
    decisions.duplicates.sort_unstable();
    decisions
}

impl Decisions {
    fn mark_pairs(&mut self, set: &[ReadEnds], rules: MarkdupRules) {
        if set.len() == 1 {
            self.sets.add(1, 0);
            return;
        }
        let best = best(set.iter().map(|e| e.score));
        let optical = count_optical(set, rules.optical_distance) as u64;
        self.optical[usize::from(set[0].library)] += optical;
        self.sets.add(set.len() as u64, optical);
        for (i, end) in set.iter().enumerate() {
            if i != best {
                self.duplicates.push(end.read1_index);
                if end.read2_index != end.read1_index {
                    self.duplicates.push(end.read2_index);
                }
            }
        }
    }

    fn mark_fragments(&mut self, set: &[Fragment]) {
        if set.iter().any(|f| f.paired) {
            let unpaired = set.iter().filter(|f| !f.paired);
            self.duplicates.extend(unpaired.map(|f| f.index));
        } else {
            let best = best(set.iter().map(|f| f.score));
            let others = set.iter().enumerate().filter(|&(i, _)| i != best);
            self.duplicates.extend(others.map(|(_, f)| f.index));
        }
    }

    /// The sizes of the duplicate sets of pairs.
    pub fn set_sizes(&self) -> &SetSizes {
        &self.sets
    }

    /// Adds the optical duplicate pairs to `counts` (by library number).
    pub fn add_optical(&self, counts: &mut [LibraryCounts]) {
        for (counts, &optical) in counts.iter_mut().zip(&self.optical) {
            counts.optical_pairs += optical;
        }
    }

    /// Duplicate records found.
    pub fn duplicate_count(&self) -> usize {
        self.duplicates.len()
    }

    /// A cursor answering for the file's records in order.
    pub fn cursor(&self) -> DuplicateCursor<'_> {
        DuplicateCursor {
            duplicates: &self.duplicates,
            taken: 1,
            next: self.duplicates.first().copied(),
            index: 0,
        }
    }
}

/// Walks the records of the file in order, saying which are duplicates.
#[derive(Debug, Clone)]
pub struct DuplicateCursor<'a> {
    duplicates: &'a [u64],
    /// Indexes taken from `duplicates`.
    taken: usize,
    /// The duplicate index to be reached next (none: no more).
    next: Option<u64>,
    /// Index of the next record.
    index: u64,
}

impl DuplicateCursor<'_> {
    /// Whether the next record of the file is a duplicate. As Picard's writer, one
    /// index is taken from the list per record passed: a record listed twice (which
    /// sound input never gives) delays the next one.
    pub fn next_is_duplicate(&mut self) -> bool {
        let index = self.index;
        self.index += 1;
        if self.next.is_some_and(|next| index > next) {
            self.next = self.duplicates.get(self.taken).copied();
            self.taken += 1;
        }
        self.next == Some(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor_answers(duplicates: Vec<u64>, n: u64) -> Vec<u64> {
        let decisions = Decisions {
            duplicates,
            ..Decisions::default()
        };
        let mut cursor = decisions.cursor();
        (0..n)
            .filter(|_| cursor.next_is_duplicate())
            .collect::<Vec<_>>()
    }

    #[test]
    fn the_cursor_answers_in_file_order() {
        assert_eq!(cursor_answers(vec![0, 3, 4, 9], 10), [0, 3, 4, 9]);
        assert_eq!(cursor_answers(vec![], 3), Vec::<u64>::new());
        assert_eq!(cursor_answers(vec![2], 5), [2]);
    }
}
