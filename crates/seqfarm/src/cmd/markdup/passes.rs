//! The two passes' work per record: the read ends of the first (made where the record
//! is walked, on a worker when the BAM is indexed), the copy of the second.

use seqfarm_io::bam::Record;
use seqfarm_regions::markdup::{fragment_ends, Libraries, ReadEnds, ReadFacts};

use super::scan::RecordItems;

/// The kernel's view of a record.
pub(super) fn facts<'a>(record: &Record<'a>) -> ReadFacts<'a> {
    ReadFacts {
        flag: record.flag(),
        ref_id: record.ref_id(),
        pos: record.pos(),
        mate_ref_id: record.next_ref_id(),
        cigar: record.cigar(),
        qualities: record.qual(),
        name: record.read_name(),
        read_group: record.string_tag(*b"RG"),
    }
}

/// The first pass: each record's place, name (in the arena) and fragment ends.
pub(super) struct EndsPass<'a> {
    /// The header's libraries.
    pub libraries: &'a Libraries,
}

/// What the first pass keeps of a record.
pub(super) struct EndsItem {
    /// FLAG.
    pub flag: u16,
    /// Reference index.
    pub ref_id: i32,
    /// 0-based position.
    pub pos: i32,
    /// The read name's bytes in the arena.
    pub name: std::ops::Range<usize>,
    /// Its ends, for a primary mapped read.
    pub ends: Option<ReadEnds>,
}

impl RecordItems for EndsPass<'_> {
    type Item = EndsItem;

    fn item(&self, record: &Record<'_>, arena: &mut Vec<u8>) -> EndsItem {
        let start = arena.len();
        arena.extend_from_slice(record.read_name());
        EndsItem {
            flag: record.flag(),
            ref_id: record.ref_id(),
            pos: record.pos(),
            name: start..arena.len(),
            ends: fragment_ends(self.libraries, &facts(record)),
        }
    }
}

/// The second pass: each record's bytes (with their length, in the arena) and library.
pub(super) struct CopyPass<'a> {
    /// The header's libraries.
    pub libraries: &'a Libraries,
}

/// What the second pass keeps of a record.
pub(super) struct CopyItem {
    /// The record's bytes, its length first, in the arena.
    pub bytes: std::ops::Range<usize>,
    /// FLAG.
    pub flag: u16,
    /// Its library's number.
    pub library: u16,
}

impl RecordItems for CopyPass<'_> {
    type Item = CopyItem;

    fn item(&self, record: &Record<'_>, arena: &mut Vec<u8>) -> CopyItem {
        let start = arena.len();
        let data = record.as_bytes();
        arena.extend_from_slice(&(data.len() as u32).to_le_bytes());
        arena.extend_from_slice(data);
        CopyItem {
            bytes: start..arena.len(),
            flag: record.flag(),
            library: self.libraries.library(record.string_tag(*b"RG")),
        }
    }
}
