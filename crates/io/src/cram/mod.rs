//! CRAM input (3.0 and 3.1) for the commands that read BAM, through htslib (Debian's
//! `libhts`, the binary's default) or noodles-cram (without the `htslib` feature).
//!
//! A CRAM is read on a farm and turned into an indexed BAM, which the commands then read
//! exactly as they read any BAM (so their answers are the same as for the same data as
//! BAM by construction):
//!
//! * the emitter cuts the CRAM into its containers: from the `.crai` when there is one
//!   (its container offsets, checked against the container headers), else by walking
//!   the container headers (lengths only, no decoding); [`CramInput`] leaves out the
//!   containers of unplaced reads and those outside the caller's [`WantedRanges`];
//! * each worker checks the block checksums of its containers and decodes them with a
//!   decoder of its own (an htslib handle it seeks from container to container), only
//!   the [`Fields`] the command needs, against the reference when the sequence is
//!   among them (`--reference`, the `@SQ UR:` file, or the reference the CRAM embeds),
//!   and encodes every record as BAM record bytes into its task's buffer;
//! * the collector appends the records, in file order, to a BAM with its index
//!   (uncompressed BGZF blocks in an unlinked temporary file, memory-mapped), and
//!   [`CramInput::open`] returns it as a [`BamFile`](crate::bam::BamFile) and
//!   [`BamIndex`](crate::bam::BamIndex).
//!
//! Errors name the CRAM and the offset of the container they are about.
//!
//! [`CramFile::for_each_record`] hands the decoded records to per-worker state instead,
//! with nothing written (flagstat). [`CramRanges`] decodes no container up front: each
//! thread's [`CramRangeReader`] decodes those a genomic range it reads meets, when it
//! reads it (snp-pileup, whose replays read a little around each site).
//!
//! htslib decodes a whole CRAM 2.1x faster than noodles-cram (5.0 against 10.6 CPU s for
//! a 125 MB CRAM of 2 M reads; BENCHMARKS.md, "CRAM input"), and far faster when only the
//! flags are needed; noodles-cram is pure Rust (its bzip2, lzma and rANS codecs
//! included) and needs no C library.

#[cfg(feature = "htslib")]
mod htslib;
mod layout;
#[cfg(not(feature = "htslib"))]
mod noodles_decode;
mod on_demand;
mod reference;

mod reading;
mod sizes;
mod transcode;

use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use noodles_sam as sam;

pub use layout::{indexed_containers, walk_containers, ContainerSpan, EOF_CONTAINER};
pub use on_demand::{CramRangeReader, CramRanges};
pub use reading::{ReadOptions, WantedRanges};
pub use reference::{check_reference, normalized_md5, ReferenceSource};
pub use sizes::ContainerSizes;
pub use transcode::CramInput;

use crate::{Error, Result};

/// The `.crai` of `cram`, if there is one (`X.cram.crai` or `X.crai`).
pub fn find_index(cram: &Path) -> Option<PathBuf> {
    let beside = crate::bam::suffixed(cram, ".crai");
    if beside.is_file() {
        return Some(beside);
    }
    let replaced = cram.with_extension("crai");
    replaced.is_file().then_some(replaced)
}

/// A CRAM file mapped into memory: its header and its containers.
pub struct CramFile {
    path: PathBuf,
    map: Mmap,
    header: sam::Header,
    containers: Vec<ContainerSpan>,
    /// Per container, the lowest and highest reference its records may lie on
    /// ([`reference_bounds`] of `containers`).
    bounds: Vec<(i32, i32)>,
    index: Option<PathBuf>,
}

impl std::fmt::Debug for CramFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CramFile")
            .field("path", &self.path)
            .field("containers", &self.containers.len())
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl CramFile {
    /// Maps `path`, checks its version (3.x) and end-of-file container, reads the header,
    /// and finds the containers (through its `.crai` when there is one).
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        // SAFETY: the file is opened read-only and only read through this map; as for
        // BamFile::open, the file must not be truncated while it is open.
        #[allow(unsafe_code)]
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        if !crate::sniff::looks_like_cram(&map) {
            return Err(Error::format(path, 0, "not a CRAM file (no CRAM magic)"));
        }
        let major = map.get(4).copied().unwrap_or(0);
        if major != 3 {
            return Err(Error::format(
                path,
                4,
                format!(
                    "CRAM version {major}.{} is not supported (3.0 and 3.1 are)",
                    map.get(5).copied().unwrap_or(0)
                ),
            ));
        }
        let mut cursor = std::io::Cursor::new(&map[..]);
        let header = {
            let mut reader = noodles_cram::io::Reader::new(&mut cursor);
            reader
                .read_header()
                .map_err(|e| Error::format(path, 0, format!("invalid CRAM header: {e}")))?
        };
        let start = cursor.position();
        let index = find_index(path);
        let containers = match &index {
            Some(index_path) => {
                let crai = noodles_cram::crai::fs::read(index_path).map_err(|e| {
                    Error::format(index_path, 0, format!("invalid CRAM index: {e}"))
                })?;
                indexed_containers(path, index_path, &crai, &map, start)?
            }
            None => walk_containers(path, &map, start)?,
        };
        Ok(Self {
            path: path.to_path_buf(),
            map,
            header,
            bounds: reference_bounds(&containers),
            containers,
            index,
        })
    }

    /// The path the file was opened by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's size in bytes.
    pub fn file_len(&self) -> u64 {
        self.map.len() as u64
    }

    /// The SAM header.
    pub fn header(&self) -> &sam::Header {
        &self.header
    }

    /// The data containers, in file order.
    pub fn containers(&self) -> &[ContainerSpan] {
        &self.containers
    }

    /// The names of the reference sequences container `span` may use: its own, for a
    /// container of several references those between its [`reference_bounds`], none for
    /// unplaced reads.
    fn references_of(&self, span: &ContainerSpan) -> Vec<&[u8]> {
        let (lo, hi) = match self
            .containers
            .binary_search_by_key(&span.offset, |c| c.offset)
        {
            Ok(number) => self.bounds[number],
            Err(_) if span.ref_id == -2 => (0, i32::MAX),
            Err(_) => (span.ref_id, span.ref_id),
        };
        let refs = self.header.reference_sequences();
        let last = refs.len() as i32 - 1;
        (lo.max(0)..=hi.min(last))
            .filter_map(|id| refs.get_index(id as usize))
            .map(|(name, _)| name.as_ref())
            .collect()
    }

    /// The `.crai` the containers were found through, if any.
    pub fn index(&self) -> Option<&Path> {
        self.index.as_deref()
    }

    /// An error naming the file and the offset of container `span`.
    fn container_error(&self, span: &ContainerSpan, message: String) -> Error {
        container_error(&self.path, span, message)
    }

    /// The bytes of container `span`, its header first.
    fn container_bytes(&self, span: &ContainerSpan) -> &[u8] {
        &self.map[span.offset as usize..(span.offset + span.size) as usize]
    }

    /// Drops the mapped pages of container `span` from this process once it is decoded
    /// (see [`BamFile::release`](crate::bam::BamFile::release)): a pass over a large
    /// CRAM keeps a bounded resident set.
    fn release(&self, span: &ContainerSpan) {
        crate::bam::release_mapped(&self.map, span.offset..span.offset + span.size);
    }

    /// Fails, naming the reference and what to pass, when container `span` needs a
    /// reference sequence that `reference` does not have, or one whose length or `M5`
    /// differs from the header's (each sequence checked once, when a container that
    /// needs it is first decoded).
    fn check_reference_for(&self, span: &ContainerSpan, reference: &ReferenceSource) -> Result<()> {
        if layout::reference_required(self.container_bytes(span)) == Some(false) {
            return Ok(());
        }
        for name in self.references_of(span) {
            if reference.sequence(name).is_none() {
                let shown = String::from_utf8_lossy(name);
                let what = match reference.path() {
                    Some(fasta) => format!("{} has no sequence {shown}", fasta.display()),
                    None => "no reference was given, the CRAM embeds none and no @SQ UR: names an existing file".to_string(),
                };
                return Err(self.container_error(
                    span,
                    format!(
                        "needs reference sequence {shown}: {what}; pass the FASTA it was made with as --reference FASTA"
                    ),
                ));
            }
            reference.check_once(&self.path, &self.header, name)?;
        }
        Ok(())
    }
}

/// An error in the container `span` of the CRAM `path`: the message says it is the
/// container, the error gives its offset.
fn container_error(path: &Path, span: &ContainerSpan, message: String) -> Error {
    Error::format(path, span.offset, format!("container: {message}"))
}

/// The fields a command needs of each record. htslib decodes only those (and, without
/// the sequence, needs no reference); the records handed on lack the others. noodles-cram
/// decodes every field whatever is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fields {
    /// Every field.
    All,
    /// Every field but the tags: name, position, CIGAR, mate, sequence and qualities
    /// (a pileup).
    Pileup,
    /// Name, flag, position, mapping quality, CIGAR and mate, without the sequence,
    /// qualities and tags (depth, counts).
    Coverage,
    /// Flag, reference, position, mapping quality and mate reference, nothing else
    /// (FLAG statistics).
    FlagStatistics,
}

impl Fields {
    /// Whether decoding these fields needs the reference sequences.
    pub fn need_reference(self) -> bool {
        !cfg!(feature = "htslib") || matches!(self, Fields::All | Fields::Pileup)
    }
}

/// Per container, the lowest and highest reference its records may lie on: its own for
/// a single-reference container; for one of several references, those of the
/// single-reference containers around it (a coordinate-sorted CRAM's records are in
/// reference order); past every reference (`i32::MAX`) for unplaced records, which a
/// coordinate-sorted CRAM keeps at its end.
fn reference_bounds(spans: &[ContainerSpan]) -> Vec<(i32, i32)> {
    let mut bounds = vec![(i32::MAX, i32::MAX); spans.len()];
    let mut before = 0;
    for (bound, span) in bounds.iter_mut().zip(spans) {
        match span.ref_id {
            -2 => bound.0 = before,
            id if id >= 0 => {
                *bound = (id, id);
                before = id;
            }
            _ => {}
        }
    }
    let mut after = i32::MAX - 1;
    for (bound, span) in bounds.iter_mut().zip(spans).rev() {
        match span.ref_id {
            -2 => bound.1 = after,
            id if id >= 0 => after = id,
            _ => {}
        }
    }
    bounds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wanted_ranges_merge_and_find_overlaps() {
        let ranges = WantedRanges::new([
            ("20", 100u64, 200u64),
            ("20", 150, 300),
            ("20", 500, 600),
            ("X", 10, 10),
        ]);
        assert!(
            ranges.overlaps(b"20", (250, 260)),
            "inside the merged range"
        );
        assert!(ranges.overlaps(b"20", (0, 100)), "touching counts");
        assert!(!ranges.overlaps(b"20", (301, 499)), "between two ranges");
        assert!(ranges.overlaps(b"20", (590, 1000)));
        assert!(!ranges.overlaps(b"20", (601, 700)));
        assert!(!ranges.overlaps(b"1", (0, 1000)), "another reference");
        assert!(
            ranges.overlaps(b"X", (0, 20)),
            "an empty range at its position"
        );
    }

    /// The committed normal slice: one container of reference 20, 999,934-1,060,079.
    fn containers_decoded(ranges: Option<&WantedRanges>) -> usize {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/cram/normal_slice.cram");
        let reading = ReadOptions {
            reference: None,
            fields: Fields::Coverage,
            threads: 2,
            ranges,
        };
        CramInput::open(&path, &reading).unwrap().containers
    }

    #[test]
    fn only_containers_overlapping_the_wanted_ranges_are_decoded() {
        assert_eq!(containers_decoded(None), 1);
        let inside = WantedRanges::new([("20", 1_000_000u64, 1_000_100u64)]);
        assert_eq!(containers_decoded(Some(&inside)), 1);
        let elsewhere = WantedRanges::new([("20", 2_000_000u64, 2_100_000u64), ("21", 0, 100)]);
        assert_eq!(containers_decoded(Some(&elsewhere)), 0);
    }

    #[test]
    fn versions_other_than_3_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.cram");
        std::fs::write(&path, b"CRAM\x02\x01rest").unwrap();
        let e = CramFile::open(&path).unwrap_err().to_string();
        assert!(e.contains("x.cram") && e.contains("version 2.1"), "{e}");
    }
}
