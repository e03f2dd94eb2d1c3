//! Duplicate marking with Picard MarkDuplicates' rules (2.27, its defaults).
//!
//! The caller shows every record of a coordinate-sorted file once, in order
//! ([`DuplicateFinder::add`]); the finder keeps only read ends (signatures, scores and
//! record indexes), never records. [`DuplicateFinder::finish`] sorts them as Picard does
//! and decides: among pairs with the same library, 5' ends (clips included) and
//! orientation the one with the highest sum of base qualities (>= 15) stays, ties going
//! to the first in Picard's order (tile, x, y from the read name, then file order); a
//! fragment (a read without a mapped mate) is a duplicate of any pair whose end lies at
//! its position, else of the best fragment there. Secondary, supplementary and unmapped
//! records are never duplicates (Picard marks by record index, and only primary mapped
//! reads have read ends; coordinate-sorted input is marked so by Picard too).
//! [`Decisions`] then answers record by record, in file order, and [`LibraryCounts`]
//! count Picard's `DuplicationMetrics` per library ([`metrics`]).
//!
//! The ends of a read can be made on another thread ([`fragment_ends`]) and shown with
//! [`DuplicateFinder::add_made`]. Memory is bounded: read ends (28 bytes per primary
//! mapped read, 46 per pair), reads waiting for a mate on a later reference and the
//! duplicates' indexes each have a share of the finder's budget, beyond which they are
//! sorted into runs of a [`RunStore`] (files beside the output) and merged back when
//! deciding ([`spill`]). Only reads waiting for a mate on the same reference are not
//! counted: they span a fragment's length, as a rule.

mod decide;
pub mod ends;
pub mod metrics;
pub mod optical;
pub mod spill;
mod waiting;

use std::collections::{BTreeMap, HashMap};
use std::io;

use seqfarm_core::cigar::BamCigar;
use seqfarm_core::flags;

pub use self::decide::{Decisions, DuplicateCursor};
pub use self::ends::ReadEnds;
use self::ends::{read_score, unclipped_five_prime, Fragment, F, R};
pub use self::metrics::{LibraryCounts, SetSizes};
pub use self::optical::DEFAULT_PIXEL_DISTANCE;
use self::spill::SortedRuns;
pub use self::spill::{MemoryRuns, RunStore};
use self::waiting::MateWaits;

/// Picard's name for the library of reads without a read group or `LB`.
pub const UNKNOWN_LIBRARY: &str = "Unknown Library";

/// The fields of a record duplicate marking reads.
#[derive(Debug, Clone, Copy)]
pub struct ReadFacts<'a> {
    /// FLAG.
    pub flag: u16,
    /// Reference index (-1: none).
    pub ref_id: i32,
    /// 0-based leftmost aligned position.
    pub pos: i32,
    /// The mate's reference index.
    pub mate_ref_id: i32,
    /// The CIGAR.
    pub cigar: BamCigar<'a>,
    /// Base qualities (no +33 offset).
    pub qualities: &'a [u8],
    /// The read name.
    pub name: &'a [u8],
    /// The `RG` tag's value, if any.
    pub read_group: Option<&'a [u8]>,
}

/// The read groups of a header and their libraries: libraries are numbered in name
/// order, the order of the metrics rows.
#[derive(Debug, Clone)]
pub struct Libraries {
    /// Library names, sorted.
    names: Vec<String>,
    /// Read group ID → (place among the `@RG` lines, library number).
    groups: HashMap<Vec<u8>, (i16, u16)>,
    /// `@RG` lines in the header.
    group_count: i16,
    /// The number of [`UNKNOWN_LIBRARY`].
    unknown: u16,
    /// Whether a read group of the header has no `LB` (so the unknown library has a
    /// row even without reads).
    unknown_in_header: bool,
}

impl Libraries {
    /// The libraries of read groups `read_groups` (`(ID, LB)` in header order).
    pub fn new(read_groups: &[(Vec<u8>, Option<String>)]) -> Self {
        let library_of = |lb: &Option<String>| lb.clone().unwrap_or(UNKNOWN_LIBRARY.into());
        let mut names: Vec<String> = read_groups.iter().map(|(_, lb)| library_of(lb)).collect();
        names.push(UNKNOWN_LIBRARY.into());
        names.sort();
        names.dedup();
        let number = |name: &str| {
            names
                .binary_search_by(|n| n.as_str().cmp(name))
                .unwrap_or(0) as u16
        };
        let mut groups = HashMap::new();
        for (place, (id, lb)) in read_groups.iter().enumerate() {
            let entry = (place as i16, number(&library_of(lb)));
            groups.entry(id.clone()).or_insert(entry);
        }
        Self {
            unknown: number(UNKNOWN_LIBRARY),
            unknown_in_header: read_groups.iter().any(|(_, lb)| lb.is_none()),
            names,
            groups,
            group_count: read_groups.len() as i16,
        }
    }

    /// The library number of a read with read group `rg`.
    pub fn library(&self, rg: Option<&[u8]>) -> u16 {
        self.group_place_and_library(rg).1
    }

    /// The place of read group `rg` among the `@RG` lines as Picard counts it for optical
    /// duplicates (0 without a tag, the number of lines when it names none of them), and
    /// its library number: one lookup for both.
    fn group_place_and_library(&self, rg: Option<&[u8]>) -> (i16, u16) {
        match rg {
            None => (0, self.unknown),
            Some(rg) => self
                .groups
                .get(rg)
                .copied()
                .unwrap_or((self.group_count, self.unknown)),
        }
    }

    /// The library names, in number order.
    pub fn names(&self) -> &[String] {
        &self.names
    }
}

/// How duplicates are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkdupRules {
    /// Pixel distance within which duplicates on one tile are optical.
    pub optical_distance: i32,
}

impl Default for MarkdupRules {
    fn default() -> Self {
        Self {
            optical_distance: DEFAULT_PIXEL_DISTANCE,
        }
    }
}

/// Collects read ends from a coordinate-sorted file's records, then decides.
pub struct DuplicateFinder {
    libraries: Libraries,
    rules: MarkdupRules,
    /// Records seen.
    index: u64,
    /// Whether the unplaced unmapped reads were reached (nothing after counts).
    ended: bool,
    fragments: SortedRuns<Fragment>,
    pairs: SortedRuns<ReadEnds>,
    waiting: MateWaits,
    /// Where runs go when the memory is full.
    store: Box<dyn RunStore>,
    /// Memory for the duplicates' indexes, when deciding.
    duplicates_budget: usize,
}

impl DuplicateFinder {
    /// A finder for a file with these libraries that keeps about `memory` bytes of read
    /// ends in memory and the rest in runs of `store`.
    pub fn new(
        libraries: Libraries,
        rules: MarkdupRules,
        memory: usize,
        store: Box<dyn RunStore>,
    ) -> Self {
        let share = |tenths: usize| memory / 10 * tenths;
        Self {
            libraries,
            rules,
            index: 0,
            ended: false,
            fragments: SortedRuns::new(
                Fragment::picard_order,
                SortedRuns::<Fragment>::capacity_for(share(4)),
            ),
            pairs: SortedRuns::new(
                ReadEnds::picard_order,
                SortedRuns::<ReadEnds>::capacity_for(share(3)),
            ),
            waiting: MateWaits::new(share(1)),
            store,
            duplicates_budget: share(2),
        }
    }

    /// A finder that keeps everything in memory.
    pub fn in_memory(libraries: Libraries, rules: MarkdupRules) -> Self {
        Self::new(libraries, rules, usize::MAX, Box::<MemoryRuns>::default())
    }

    /// Shows the next record of the file.
    pub fn add(&mut self, read: &ReadFacts<'_>) -> io::Result<()> {
        let ends = fragment_ends(&self.libraries, read);
        self.add_made(read.flag, read.ref_id, read.name, ends)
    }

    /// Shows the next record of the file, its ends made apart by [`fragment_ends`]
    /// (on another thread).
    pub fn add_made(
        &mut self,
        flag: u16,
        ref_id: i32,
        name: &[u8],
        ends: Option<ReadEnds>,
    ) -> io::Result<()> {
        let index = self.index;
        self.index += 1;
        if self.ended {
            return Ok(());
        }
        if flag & flags::UNMAPPED != 0 {
            self.ended = ref_id == -1;
            return Ok(());
        }
        let Some(mut end) = ends else {
            return Ok(());
        };
        end.read1_index = index;
        let store = self.store.as_mut();
        self.fragments.push(Fragment::from(&end), store)?;
        if flag & flags::PAIRED == 0 || flag & flags::MATE_UNMAPPED != 0 {
            return Ok(());
        }
        if let Some(mut pair) = self.waiting.arrive(ref_id, name, end, store)? {
            pair.add_mate(&end, flag & flags::READ1 != 0);
            self.pairs.push(pair, store)?;
        }
        Ok(())
    }

    /// Records shown so far.
    pub fn records(&self) -> u64 {
        self.index
    }

    /// Runs written so far (read ends and waiting reads that did not fit the memory).
    pub fn runs(&self) -> usize {
        self.fragments.runs() + self.pairs.runs() + self.waiting.runs()
    }

    /// Decides which records are duplicates.
    pub fn finish(self) -> io::Result<Decisions> {
        drop(self.waiting);
        let decider = decide::Decider::new(
            self.rules,
            self.libraries.names.len(),
            self.duplicates_budget,
            self.store,
        );
        decider.decide(self.pairs, self.fragments)
    }
}

/// The ends of a primary mapped read as a fragment (its index in the file left for the
/// finder to set); none for unmapped, secondary and supplementary records.
pub fn fragment_ends(libraries: &Libraries, read: &ReadFacts<'_>) -> Option<ReadEnds> {
    let skipped = flags::UNMAPPED | flags::SECONDARY | flags::SUPPLEMENTARY;
    if read.flag & skipped != 0 {
        return None;
    }
    let reverse = read.flag & flags::REVERSE != 0;
    let with_mate = read.flag & flags::PAIRED != 0 && read.flag & flags::MATE_UNMAPPED == 0;
    let (group_place, library) = libraries.group_place_and_library(read.read_group);
    Some(ReadEnds {
        library,
        orientation: if reverse { R } else { F },
        optical_orientation: -1,
        read1_ref: read.ref_id,
        read1_coord: unclipped_five_prime(read.flag, read.pos, read.cigar),
        read2_ref: if with_mate { read.mate_ref_id } else { -1 },
        read2_coord: -1,
        location: optical::read_location(read.name, group_place),
        score: read_score(read.flag, read.qualities),
        read1_index: 0,
        read2_index: u64::MAX,
    })
}

/// Per-library counts, keyed by library name, ready for [`metrics::render`]: a row for
/// each library of the header, and for the unknown library when reads fell in it.
pub fn library_table(
    libraries: &Libraries,
    counts: &[LibraryCounts],
) -> BTreeMap<String, LibraryCounts> {
    libraries
        .names()
        .iter()
        .zip(counts)
        .enumerate()
        .filter(|&(number, (_, counts))| {
            number as u16 != libraries.unknown
                || libraries.unknown_in_header
                || *counts != LibraryCounts::default()
        })
        .map(|(_, (name, counts))| (name.clone(), counts.clone()))
        .collect()
}

#[cfg(test)]
mod tests;
