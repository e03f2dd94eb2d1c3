//! BAM access for parallel readers: a memory-mapped file, its header, its index, work
//! plans, and record walkers that read records in place.
//!
//! The design follows mmbam (Pitman et al.): the file is memory-mapped and shared
//! read-only by every thread; the index cuts it into work units of virtual-offset ranges
//! that begin at record starts, so each worker inflates its own BGZF blocks and reads its
//! own records with no coordination. The part the index does not cover (unplaced
//! unmapped reads at the end, or the whole file without an index) is cut at BGZF block
//! boundaries: workers inflate those blocks in parallel and one [`RecordStitcher`] walks
//! the records across them in order.
//!
//! * [`BamFile`]: open by mmap, check the EOF marker, parse the [`Header`];
//! * [`BamIndex`]: a `.bai` or `.csi` checked against its BAM, region queries;
//! * [`WorkPlan`]: whole-file work units of about equal compressed size;
//! * [`RangeReader`]: the records of one virtual-offset range (per worker);
//! * [`RecordStitcher`]: the records of consecutive inflated blocks, in order;
//! * [`BamStream`]: a BAM read from a stream (standard input), block by block;
//! * [`BamSet`]: several indexed BAMs that share one reference list;
//! * [`Record`]: one record's fields, read from its bytes on demand;
//! * [`RegionMap`]: a caller's closure run over every region or window of a [`BamSet`]
//!   on a farm of workers, records read in place, results in region order.

pub(crate) mod header;
mod index;
mod index_layout;
mod plan;
pub(crate) mod record;
mod region_map;
pub(crate) mod set;
mod stream;
mod walk;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use memmap2::Mmap;

use crate::bgzf::{self, BgzfError, BgzfErrorKind, InflateBuffer, Inflater, VirtualOffset};
use crate::{Error, Result};

pub use header::{Header, Reference};
pub(crate) use index::suffixed;
pub use index::{BamIndex, IndexKind};
pub use plan::{BlockBatch, BlockBatches, WorkPlan, WorkUnit, WorkUnits};
pub use record::{flags, BamCigar, CigarOp, Record, RecordError, Sequence, SEQ_ALPHABET};
pub use region_map::{Records, Region, RegionMap};
pub use set::{open_with_index, BamSet};
pub use stream::BamStream;
pub(crate) use stream::BgzfBlockReader;
pub use walk::{RangeReader, RecordStitcher};

/// The largest record size accepted (256 MiB: a 100 Mbp read's SEQ and QUAL take 150
/// MiB). A corrupt length beyond it is an error before anything is allocated; one within
/// it is never allocated up front either, but read as far as the data goes.
pub const MAX_RECORD_SIZE: usize = 1 << 28;

/// A BAM file mapped into memory, with its header parsed.
///
/// The mapping is shared read-only by every thread of a farm. As with any memory map,
/// the file must not be truncated or rewritten while it is open.
pub struct BamFile {
    path: PathBuf,
    map: Mmap,
    header: Header,
    records_start: VirtualOffset,
    data_end: u64,
    modified: Option<SystemTime>,
}

impl std::fmt::Debug for BamFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BamFile")
            .field("path", &self.path)
            .field("len", &self.map.len())
            .field("references", &self.header.references.len())
            .field("records_start", &self.records_start)
            .finish_non_exhaustive()
    }
}

/// Drops the whole pages of byte range `range` of the read-only file mapping `map` from
/// this process (they stay in the page cache, and a later read faults them back in).
pub(crate) fn release_mapped(map: &Mmap, range: std::ops::Range<u64>) {
    let page = 4096u64;
    let start = range.start.div_ceil(page) * page;
    let end = (range.end.min(map.len() as u64) / page) * page;
    if end > start {
        // SAFETY: the map is a read-only, file-backed, shared mapping: MADV_DONTNEED
        // only drops this process's page-table entries, and a later read faults the
        // same file bytes back in from the page cache. No reference into the range can
        // observe different contents.
        let _ = unsafe {
            map.unchecked_advise_range(
                memmap2::UncheckedAdvice::DontNeed,
                start as usize,
                (end - start) as usize,
            )
        };
    }
}

impl BamFile {
    /// Maps `path`, checks that it is a BGZF file ending with the EOF marker, and parses
    /// the header.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        if path == Path::new("-") {
            return Err(Error::io(
                &path,
                std::io::Error::new(
                    std::io::ErrorKind::Unsupported,
                    "standard input is not supported here (a BAM index is needed)",
                ),
            ));
        }
        let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(&path, e))?;
        if meta.is_dir() {
            return Err(Error::io(
                &path,
                std::io::Error::new(
                    std::io::ErrorKind::IsADirectory,
                    "is a directory, not a BAM file",
                ),
            ));
        }
        if meta.len() == 0 {
            return Err(Error::format(&path, 0, "empty file, not a BAM"));
        }
        // SAFETY: the file is opened read-only and only read through this map. Another
        // process truncating it while it is mapped would make reads fault (SIGBUS); that
        // is the documented contract of reading a BAM by mmap (as samtools reads by
        // read(2) would see a changed file too).
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io(&path, e))?;
        let len = map.len() as u64;
        if crate::sniff::looks_like_cram(&map) {
            return Err(Error::format(
                &path,
                0,
                "a CRAM, where only a BAM is read here (the flagstat, count, depth and snp-pileup commands read CRAM)",
            ));
        }
        if let Err(e) = bgzf::block_at(&map, 0) {
            if e.kind == BgzfErrorKind::NotBgzf {
                return Err(Error::format(
                    &path,
                    0,
                    "not a BAM file (it does not start with a BGZF block)",
                ));
            }
        }
        if map.len() < bgzf::EOF_MARKER.len()
            || map[map.len() - bgzf::EOF_MARKER.len()..] != bgzf::EOF_MARKER
        {
            return Err(Error::format(
                &path,
                len,
                "missing BGZF EOF marker: the file is truncated or was not written completely",
            ));
        }
        let data_end = len - bgzf::EOF_MARKER.len() as u64;
        let (header, records_start) = read_header(&map, data_end).map_err(|e| match e {
            HeaderError::Bgzf(b) => bgzf_error(&path, b),
            HeaderError::Format(offset, msg) => Error::format(&path, offset, msg),
        })?;
        Ok(Self {
            path,
            map,
            header,
            records_start,
            data_end,
            modified: meta.modified().ok(),
        })
    }

    /// The path the file was opened by.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Names the file by `path` from now on (a BAM decoded from a CRAM is named by the
    /// CRAM in errors).
    pub(crate) fn rename(&mut self, path: &Path) {
        self.path = path.to_path_buf();
    }

    /// The parsed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The whole file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }

    /// File size in bytes.
    pub fn len(&self) -> u64 {
        self.map.len() as u64
    }

    /// Whether the file has no bytes (never true for an opened BAM).
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Virtual offset of the first record (just after the header).
    pub fn records_start(&self) -> VirtualOffset {
        self.records_start
    }

    /// File offset of the EOF marker: every data block lies before it.
    pub fn data_end(&self) -> u64 {
        self.data_end
    }

    /// Last modification time, when the file system reports one.
    pub fn modified(&self) -> Option<SystemTime> {
        self.modified
    }

    /// Maps in the pages of byte range `range` with one call (`MADV_POPULATE_READ`)
    /// instead of one page fault per few pages; a no-op where the kernel lacks it.
    pub fn prefetch(&self, range: std::ops::Range<u64>) {
        let end = range.end.min(self.len());
        if end > range.start {
            let _ = self.map.advise_range(
                memmap2::Advice::PopulateRead,
                range.start as usize,
                (end - range.start) as usize,
            );
        }
    }

    /// Releases the mapped pages of byte range `range` from this process (they stay in
    /// the page cache), so a pass over a large BAM keeps a bounded resident set.
    pub fn release(&self, range: std::ops::Range<u64>) {
        release_mapped(&self.map, range);
    }

    /// An [`Error::Format`] about this file at byte `offset`.
    pub fn error_at(&self, offset: u64, message: impl Into<String>) -> Error {
        Error::format(&self.path, offset, message)
    }

    /// A BGZF problem of this file as an [`Error`].
    pub fn bgzf_error(&self, e: BgzfError) -> Error {
        bgzf_error(&self.path, e)
    }
}

pub(crate) fn bgzf_error(path: &Path, e: BgzfError) -> Error {
    Error::format(path, e.offset, e.kind.to_string())
}

enum HeaderError {
    Bgzf(BgzfError),
    Format(u64, String),
}

/// Inflates blocks from the start until the header is complete; returns it and the
/// virtual offset of the first record.
fn read_header(
    file: &[u8],
    data_end: u64,
) -> std::result::Result<(Header, VirtualOffset), HeaderError> {
    let mut inflater = Inflater::new();
    let mut buf = InflateBuffer::new();
    // (block offset, inflated start in buf, inflated size) of each block read.
    let mut blocks: Vec<(u64, usize, usize)> = Vec::new();
    let mut next = 0u64;
    loop {
        match header::parse_header(buf.as_slice()) {
            Err(msg) => return Err(HeaderError::Format(0, msg)),
            Ok(header::HeaderParse::Complete(header, used)) => {
                let start = blocks
                    .iter()
                    .find(|&&(_, lo, size)| used >= lo && used < lo + size)
                    .map(|&(offset, lo, _)| VirtualOffset::new(offset, (used - lo) as u16))
                    .unwrap_or(VirtualOffset::new(next, 0));
                return Ok((header, start));
            }
            Ok(header::HeaderParse::NeedMore) => {
                if next >= data_end {
                    return Err(HeaderError::Format(
                        next,
                        "the file ends inside the BAM header".into(),
                    ));
                }
                let lo = buf.len();
                let info = inflater
                    .inflate_block(file, next, &mut buf)
                    .map_err(HeaderError::Bgzf)?;
                blocks.push((next, lo, info.inflated_size));
                next = info.end();
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod test_bam {
    //! Builds small BAM files in memory for the layer's own tests.
    pub(crate) use super::header::tests::encode as header;
    pub(crate) use super::record::tests::encode as record;
    pub(crate) use crate::bgzf::tests::bgzf;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }

    #[test]
    fn opens_and_finds_first_record_across_blocks() {
        let mut data = test_bam::header("@HD\tVN:1.6\n", &[("chr1", 5000)]);
        let header_len = data.len();
        data.extend(test_bam::record("r", 0, 0, 10, 60, &[(4, 0)], b"ACGT", 0));
        let dir = tempfile::tempdir().unwrap();
        // Blocks of 7 bytes: the header spans several blocks.
        let p = write(dir.path(), "a.bam", &test_bam::bgzf(&data, 7));
        let bam = BamFile::open(&p).unwrap();
        assert_eq!(bam.header().references[0].name, "chr1");
        let start = bam.records_start();
        let block = crate::bgzf::block_at(bam.bytes(), start.compressed()).unwrap();
        assert!(block.offset > 0);
        assert_eq!(header_len % 7, start.uncompressed() as usize);
        assert!(crate::sniff::looks_like_bam(bam.bytes()));
    }

    #[test]
    fn bad_files_get_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let data = test_bam::header("", &[]);
        let good = test_bam::bgzf(&data, 1000);
        let cases: Vec<(&str, Vec<u8>, &str)> = vec![
            ("empty.bam", vec![], "empty file"),
            ("text.bam", b"@HD\tVN:1.6\n".to_vec(), "not a BAM"),
            (
                "x.cram",
                b"CRAM\x03\x00rest".to_vec(),
                "a CRAM, where only a BAM is read",
            ),
            (
                "trunc.bam",
                good[..good.len() - 10].to_vec(),
                "missing BGZF EOF",
            ),
            (
                "sam.bam",
                test_bam::bgzf(b"@HD\tVN:1.6\n", 100),
                "not a BAM",
            ),
        ];
        for (name, bytes, want) in cases {
            let p = write(dir.path(), name, &bytes);
            let e = BamFile::open(&p).unwrap_err().to_string();
            assert!(
                e.contains(want) && e.contains(name) && e.contains("offset"),
                "{e}"
            );
        }
    }
}
