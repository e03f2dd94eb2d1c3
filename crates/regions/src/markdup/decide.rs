//! The decisions: read ends sorted in Picard's order and cut into sets of equal
//! signature; in each set of pairs all but the best score are duplicates (and optical
//! duplicates are counted), and a fragment is a duplicate of a pair at its position or of
//! a better fragment.

use std::io;

use super::ends::{Fragment, ReadEnds};
use super::metrics::{LibraryCounts, SetSizes};
use super::optical::count_optical;
use super::spill::{Merged, RunStore, SortedRuns};
use super::MarkdupRules;

/// Which records are duplicates, with the counts that come from the sets: optical
/// duplicate pairs per library and the sizes of the pair sets.
pub struct Decisions {
    /// Indexes of the duplicate records, in order.
    duplicates: Merged<u64>,
    /// Optical duplicate pairs, by library number.
    optical: Vec<u64>,
    /// Sizes of the duplicate sets of pairs.
    sets: SetSizes,
    /// The runs the duplicates are read from.
    _store: Box<dyn RunStore>,
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

/// Decides set by set, collecting the duplicates' indexes.
pub(super) struct Decider {
    rules: MarkdupRules,
    duplicates: SortedRuns<u64>,
    optical: Vec<u64>,
    sets: SetSizes,
    store: Box<dyn RunStore>,
}

impl Decider {
    /// A decider for a file with `libraries` libraries, keeping `budget` bytes of
    /// duplicates' indexes in memory and the rest in runs of `store`.
    pub(super) fn new(
        rules: MarkdupRules,
        libraries: usize,
        budget: usize,
        store: Box<dyn RunStore>,
    ) -> Self {
        Self {
            rules,
            duplicates: SortedRuns::new(u64::cmp, SortedRuns::<u64>::capacity_for(budget)),
            optical: vec![0; libraries],
            sets: SetSizes::default(),
            store,
        }
    }

    /// Decides on the read ends of a file.
    pub(super) fn decide(
        mut self,
        pairs: SortedRuns<ReadEnds>,
        fragments: SortedRuns<Fragment>,
    ) -> io::Result<Decisions> {
        let mut set = Vec::new();
        let mut pairs = pairs.into_sorted(self.store.as_mut())?;
        while pairs.next_set(&mut set, ReadEnds::same_pair)? {
            self.mark_pairs(&set)?;
        }
        drop(pairs);
        let mut set = Vec::new();
        let mut fragments = fragments.into_sorted(self.store.as_mut())?;
        while fragments.next_set(&mut set, Fragment::same_position)? {
            if set.len() > 1 {
                self.mark_fragments(&set)?;
            }
        }
        drop(fragments);
        Ok(Decisions {
            duplicates: self.duplicates.into_sorted(self.store.as_mut())?,
            optical: self.optical,
            sets: self.sets,
            _store: self.store,
        })
    }

    fn duplicate(&mut self, index: u64) -> io::Result<()> {
        self.duplicates.push(index, self.store.as_mut())
    }

    fn mark_pairs(&mut self, set: &[ReadEnds]) -> io::Result<()> {
        if set.len() == 1 {
            self.sets.add(1, 0);
            return Ok(());
        }
        let best = best(set.iter().map(|e| e.score));
        let optical = count_optical(set, self.rules.optical_distance) as u64;
        self.optical[usize::from(set[0].library)] += optical;
        self.sets.add(set.len() as u64, optical);
        for (i, end) in set.iter().enumerate() {
            if i != best {
                self.duplicate(end.read1_index)?;
                if end.read2_index != end.read1_index {
                    self.duplicate(end.read2_index)?;
                }
            }
        }
        Ok(())
    }

    fn mark_fragments(&mut self, set: &[Fragment]) -> io::Result<()> {
        if set.iter().any(|f| f.paired) {
            for f in set.iter().filter(|f| !f.paired) {
                self.duplicate(f.index)?;
            }
        } else {
            let best = best(set.iter().map(|f| f.score));
            for (_, f) in set.iter().enumerate().filter(|&(i, _)| i != best) {
                self.duplicate(f.index)?;
            }
        }
        Ok(())
    }
}

impl Decisions {
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

    /// A cursor answering for the file's records in order (the duplicates are read
    /// once: a second cursor answers no).
    pub fn cursor(&mut self) -> io::Result<DuplicateCursor<'_>> {
        let next = self.duplicates.next_value()?;
        Ok(DuplicateCursor {
            duplicates: &mut self.duplicates,
            next,
            index: 0,
        })
    }
}

/// Walks the records of the file in order, saying which are duplicates.
pub struct DuplicateCursor<'a> {
    duplicates: &'a mut Merged<u64>,
    /// The duplicate index to be reached next (none: no more).
    next: Option<u64>,
    /// Index of the next record.
    index: u64,
}

impl DuplicateCursor<'_> {
    /// Whether the next record of the file is a duplicate. As Picard's writer, one
    /// index is taken from the list per record passed: a record listed twice (which
    /// sound input never gives) delays the next one.
    pub fn next_is_duplicate(&mut self) -> io::Result<bool> {
        let index = self.index;
        self.index += 1;
        if self.next.is_some_and(|next| index > next) {
            self.next = self.duplicates.next_value()?;
        }
        Ok(self.next == Some(index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdup::MemoryRuns;

    fn cursor_answers(duplicates: Vec<u64>, n: u64) -> Vec<u64> {
        let mut store: Box<dyn RunStore> = Box::<MemoryRuns>::default();
        let mut sorted = SortedRuns::new(u64::cmp, 2);
        for &index in &duplicates {
            sorted.push(index, store.as_mut()).unwrap();
        }
        let mut decisions = Decisions {
            duplicates: sorted.into_sorted(store.as_mut()).unwrap(),
            optical: Vec::new(),
            sets: SetSizes::default(),
            _store: store,
        };
        let mut cursor = decisions.cursor().unwrap();
        (0..n)
            .filter(|_| cursor.next_is_duplicate().unwrap())
            .collect::<Vec<_>>()
    }

    #[test]
    fn the_cursor_answers_in_file_order() {
        assert_eq!(cursor_answers(vec![0, 3, 4, 9], 10), [0, 3, 4, 9]);
        assert_eq!(cursor_answers(vec![], 3), Vec::<u64>::new());
        assert_eq!(cursor_answers(vec![2], 5), [2]);
        assert_eq!(cursor_answers(vec![9, 4, 0, 3], 10), [0, 3, 4, 9]);
    }
}
