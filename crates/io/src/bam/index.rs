//! BAM indexes (`.bai`, `.csi`): read by noodles, checked against their BAM, and turned
//! into record-start offsets (for work plans) and chunk lists (for region queries).

use std::path::{Path, PathBuf};

use noodles_core::{region::Interval, Position};
use noodles_csi::binning_index::index::reference_sequence::index::Index as RefIndex;
use noodles_csi::binning_index::{BinningIndex, Index};

use super::index_layout::{self, LayoutError};
use super::BamFile;
use crate::bgzf::{VirtualOffset, VirtualRange};
use crate::{Error, Result};

/// Which index format was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexKind {
    /// BAI: 16 kb linear index plus bins.
    Bai,
    /// CSI: bins with per-bin minimum offsets.
    Csi,
}

impl IndexKind {
    /// The largest 1-based position the index can address: 2^29 - 1 for BAI (its bins
    /// cover 512 Mbp); CSI's depth lets it reach any position a BAM holds.
    pub fn max_position(self) -> i64 {
        match self {
            IndexKind::Bai => (1 << 29) - 1,
            IndexKind::Csi => i64::MAX >> 1,
        }
    }
}

enum Data {
    Bai(noodles_bam::bai::Index),
    Csi(noodles_csi::Index),
}

/// A BAM index, checked against the BAM it belongs to.
pub struct BamIndex {
    path: PathBuf,
    kind: IndexKind,
    data: Data,
    /// Every virtual offset the index names that is a record start, sorted, unique.
    record_starts: Vec<VirtualOffset>,
    /// The end of the last indexed record: the unplaced unmapped tail starts here.
    indexed_end: VirtualOffset,
}

impl std::fmt::Debug for BamIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BamIndex")
            .field("path", &self.path)
            .field("kind", &self.kind)
            .field("record_starts", &self.record_starts.len())
            .field("indexed_end", &self.indexed_end)
            .finish()
    }
}

impl BamIndex {
    /// The index file beside `bam` if there is one: `X.bam.bai`, `X.bai`, `X.bam.csi`.
    pub fn find(bam: &Path) -> Option<PathBuf> {
        let mut candidates = vec![suffixed(bam, ".bai")];
        if bam.extension().is_some_and(|e| e == "bam") {
            candidates.push(bam.with_extension("bai"));
        }
        candidates.push(suffixed(bam, ".csi"));
        candidates.into_iter().find(|p| p.is_file())
    }

    /// Whether the index file at `path` was last modified before `bam` (to the second,
    /// as samtools compares them): a sign that the BAM changed after it was indexed.
    /// `false` when either time is unknown.
    pub fn is_older_than_bam(path: &Path, bam: &BamFile) -> bool {
        let secs = |t: std::time::SystemTime| {
            t.duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        };
        match (
            std::fs::metadata(path).and_then(|m| m.modified()).ok(),
            bam.modified(),
        ) {
            (Some(index_time), Some(bam_time)) => secs(index_time) < secs(bam_time),
            _ => false,
        }
    }

    /// Reads the index at `path` (BAI or CSI, by its magic bytes) and checks that it
    /// belongs to `bam`: not older than it, the same number of references, and every
    /// offset inside the BAM's data.
    pub fn open(path: impl AsRef<Path>, bam: &BamFile) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let bytes = read_bounded(&path, std::fs::File::open(&path), "the index")?;
        let magic = bytes.get(..4).unwrap_or_default();
        if magic.len() < 4 {
            return Err(Error::format(
                &path,
                0,
                "not a BAM index (shorter than its magic number)",
            ));
        }
        let n_header = bam.header().references.len();
        let layout = |e: LayoutError, stream: &str| {
            Error::format(
                &path,
                e.offset,
                format!("invalid index{stream}: {}", e.message),
            )
        };
        let invalid = |e: std::io::Error| Error::format(&path, 0, format!("invalid index: {e}"));
        let (kind, data) = if magic == b"BAI\x01" {
            // A BAI's reference count, checked first: an index made for another BAM is
            // the likely cause of a mismatch, not damage.
            if let Some(count) = bytes.get(4..8) {
                let claimed = i32::from_le_bytes(count.try_into().expect("4 bytes"));
                if usize::try_from(claimed).ok() != Some(n_header) {
                    return Err(Error::format(
                        &path,
                        4,
                        format!(
                            "the index has {claimed} references but {} has {n_header}: it belongs to another BAM (or is damaged)",
                            bam.path().display()
                        ),
                    ));
                }
            }
            index_layout::check_bai(&bytes).map_err(|e| layout(e, ""))?;
            let index = noodles_bam::bai::io::Reader::new(&bytes[..])
                .read_index()
                .map_err(invalid)?;
            (IndexKind::Bai, Data::Bai(index))
        } else if magic[..2] == [0x1f, 0x8b] {
            let decoder = flate2::read::MultiGzDecoder::new(&bytes[..]);
            let inflated = read_bounded(&path, Ok(decoder), "the decompressed index")?;
            index_layout::check_csi(&inflated)
                .map_err(|e| layout(e, " (offset in the decompressed index)"))?;
            let index = noodles_csi::io::Reader::new(&bytes[..])
                .read_index()
                .map_err(invalid)?;
            (IndexKind::Csi, Data::Csi(index))
        } else {
            return Err(Error::format(
                &path,
                0,
                "not a BAI or CSI index (bad magic)",
            ));
        };
        let n_index = match &data {
            Data::Bai(i) => i.reference_sequences().len(),
            Data::Csi(i) => i.reference_sequences().len(),
        };
        if n_index != n_header {
            return Err(Error::format(
                &path,
                0,
                format!(
                    "the index has {n_index} references but {} has {n_header}: it belongs to another BAM",
                    bam.path().display()
                ),
            ));
        }
        let mut offsets = Vec::new();
        let mut indexed_end = bam.records_start();
        match &data {
            Data::Bai(i) => collect(i, &mut offsets, &mut indexed_end, |ix, out| {
                out.extend(ix.iter().map(|&v| VirtualOffset::from_raw(u64::from(v))))
            }),
            Data::Csi(i) => collect(i, &mut offsets, &mut indexed_end, |ix, out| {
                out.extend(ix.values().map(|&v| VirtualOffset::from_raw(u64::from(v))))
            }),
        }
        .map_err(|message| Error::format(&path, 0, format!("invalid index: {message}")))?;
        let start = bam.records_start();
        let data_end = VirtualOffset::new(bam.data_end(), 0);
        if let Some(bad) = offsets
            .iter()
            .chain([&indexed_end])
            .find(|v| **v > data_end)
        {
            return Err(Error::format(
                &path,
                0,
                format!(
                    "the index points to virtual offset {bad}, past the data of {} ({} bytes): it belongs to another BAM",
                    bam.path().display(),
                    bam.data_end()
                ),
            ));
        }
        if Self::is_older_than_bam(&path, bam) {
            return Err(Error::format(
                &path,
                0,
                format!(
                    "the index is older than {}: re-index it (samtools index)",
                    bam.path().display()
                ),
            ));
        }
        offsets.retain(|v| *v >= start && *v <= indexed_end && v.raw() != 0);
        offsets.sort_unstable();
        offsets.dedup();
        // An index made for another BAM with the same references points inside its data
        // but not at block starts: say so here rather than fail later on a bad block. A
        // sample of the blocks it names tells: checking each would read a page of the
        // BAM per block (hundreds of thousands for a genome, on every open).
        let mut blocks: Vec<u64> = offsets
            .iter()
            .map(|v| v.compressed())
            .filter(|&b| b < bam.data_end())
            .collect();
        blocks.dedup();
        for block in sampled(&blocks, CHECKED_BLOCKS) {
            if crate::bgzf::block_at(bam.bytes(), block).is_err() {
                return Err(Error::format(
                    &path,
                    0,
                    format!(
                        "the index points to offset {block} of {}, which is not the start of a \
                         BGZF block: the index may belong to another BAM (re-index it with \
                         samtools index)",
                        bam.path().display()
                    ),
                ));
            }
        }
        Ok(Self {
            path,
            kind,
            data,
            record_starts: offsets,
            indexed_end,
        })
    }

    /// The index file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// BAI or CSI.
    pub fn kind(&self) -> IndexKind {
        self.kind
    }

    /// Virtual offsets of record starts named by the index (chunk bounds and linear or
    /// bin minimum offsets), sorted.
    pub fn record_starts(&self) -> &[VirtualOffset] {
        &self.record_starts
    }

    /// Where the records the index covers end: the unplaced unmapped reads follow.
    pub fn indexed_end(&self) -> VirtualOffset {
        self.indexed_end
    }

    /// Unplaced unmapped reads, when the index records their number.
    pub fn unplaced_unmapped(&self) -> Option<u64> {
        match &self.data {
            Data::Bai(i) => i.unplaced_unmapped_record_count(),
            Data::Csi(i) => i.unplaced_unmapped_record_count(),
        }
    }

    /// The chunks that may hold records of reference `ref_id` overlapping the 1-based
    /// inclusive interval `start..=end`, merged and in file order. Records in them must
    /// still be filtered by position.
    pub fn query(&self, ref_id: usize, start: u64, end: u64) -> Result<Vec<VirtualRange>> {
        let position = |p: u64| {
            usize::try_from(p)
                .ok()
                .and_then(Position::new)
                .ok_or_else(|| Error::format(&self.path, 0, format!("invalid position {p}")))
        };
        let interval = Interval::from(position(start.max(1))?..=position(end.max(start.max(1)))?);
        let chunks = match &self.data {
            Data::Bai(i) => i.query(ref_id, interval),
            Data::Csi(i) => i.query(ref_id, interval),
        }
        .map_err(|e| Error::format(&self.path, 0, format!("index query failed: {e}")))?;
        // Records before the first one that can overlap `start` are skipped (as htslib
        // does): a chunk that begins earlier is cut at that record.
        let first = self.min_offset(ref_id, start)?;
        Ok(chunks
            .iter()
            .map(|c| VirtualRange {
                start: VirtualOffset::from_raw(u64::from(c.start())).max(first),
                end: VirtualOffset::from_raw(u64::from(c.end())),
            })
            .filter(|r| r.end > r.start)
            .collect())
    }

    /// The virtual offset of the first record that can overlap 1-based position `pos` of
    /// reference `ref_id` (the linear index for BAI, bin offsets for CSI); records before
    /// it end before `pos`. `0` when the index knows nothing before `pos`. O(1) and
    /// monotone in `pos` for BAI: cheap enough to estimate how many compressed bytes a
    /// region spans.
    pub fn min_offset(&self, ref_id: usize, pos: u64) -> Result<VirtualOffset> {
        let position = usize::try_from(pos.max(1))
            .ok()
            .and_then(Position::new)
            .ok_or_else(|| Error::format(&self.path, 0, format!("invalid position {pos}")))?;
        let missing = || {
            Error::format(
                &self.path,
                0,
                format!("reference index {ref_id} is not in the index"),
            )
        };
        let offset = match &self.data {
            Data::Bai(i) => {
                // The linear index, clamped to its last window: no record overlaps a
                // position past it, so the offsets stay monotone.
                let linear = i
                    .reference_sequences()
                    .get(ref_id)
                    .ok_or_else(missing)?
                    .index();
                let window = (usize::from(position) - 1) >> i.min_shift();
                linear
                    .get(window)
                    .or(linear.last())
                    .copied()
                    .unwrap_or_default()
            }
            Data::Csi(i) => {
                let reference = i.reference_sequences().get(ref_id).ok_or_else(missing)?;
                reference
                    .index()
                    .min_offset(i.min_shift(), i.depth(), position)
            }
        };
        Ok(VirtualOffset::from_raw(u64::from(offset)))
    }
}

/// The largest index read (compressed or not): far above what the largest BAMs need, and
/// a bound on what a damaged or foreign file can make seqfarm hold.
const MAX_INDEX_BYTES: u64 = 128 << 20;

/// Reads all of `source` (the index file, or its decompressed stream), refusing more
/// than [`MAX_INDEX_BYTES`].
fn read_bounded(
    path: &Path,
    source: std::io::Result<impl std::io::Read>,
    what: &str,
) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    source
        .and_then(|s| s.take(MAX_INDEX_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() as u64 > MAX_INDEX_BYTES {
        return Err(Error::format(
            path,
            0,
            format!(
                "{what} is larger than {} MiB: not a BAM index",
                MAX_INDEX_BYTES >> 20
            ),
        ));
    }
    Ok(bytes)
}

/// The deepest binning scheme read: 8 levels under the root (over 19 million bins; the
/// BAI scheme has 5, CSI for the longest genomes 6 or 7). Queries keep a bit per bin.
const MAX_DEPTH: u8 = 8;

/// Adds every chunk bound and per-reference minimum offset of `index` to `out`, and
/// raises `end` to the largest chunk end. Fails on a binning scheme or a bin number no
/// index writer produces (a query would index past its bins).
fn collect<I: RefIndex>(
    index: &Index<I>,
    out: &mut Vec<VirtualOffset>,
    end: &mut VirtualOffset,
    minimums: impl Fn(&I, &mut Vec<VirtualOffset>),
) -> std::result::Result<(), String> {
    let (min_shift, depth) = (index.min_shift(), index.depth());
    if depth > MAX_DEPTH || u32::from(min_shift) + 3 * u32::from(depth) > 62 {
        return Err(format!(
            "a binning scheme of {depth} levels over 2^{min_shift}-base windows"
        ));
    }
    let bins = ((1u64 << (3 * (u32::from(depth) + 1))) - 1) / 7;
    for (number, reference) in index.reference_sequences().iter().enumerate() {
        if let Some(&bin) = reference.bins().keys().find(|&&b| b as u64 >= bins) {
            return Err(format!(
                "bin {bin} of reference {number}, past the {bins} bins of a {depth}-level index"
            ));
        }
        for bin in reference.bins().values() {
            for chunk in bin.chunks() {
                let (s, e) = (
                    VirtualOffset::from_raw(u64::from(chunk.start())),
                    VirtualOffset::from_raw(u64::from(chunk.end())),
                );
                out.push(s);
                out.push(e);
                *end = (*end).max(e);
            }
        }
        minimums(reference.index(), out);
    }
    Ok(())
}

/// `path` with `suffix` appended to its file name (`x.bam` and `.bai`: `x.bam.bai`): where
/// an index lies beside its file.
pub(crate) fn suffixed(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// Blocks named by an index that opening it checks (see [`sampled`]).
const CHECKED_BLOCKS: usize = 64;

/// At most `n` of `items`, spread evenly, the first and the last among them.
fn sampled(items: &[u64], n: usize) -> impl Iterator<Item = u64> + '_ {
    let picks = items.len().min(n);
    (0..picks).map(move |i| match picks {
        1 => items[0],
        _ => items[i * (items.len() - 1) / (picks - 1)],
    })
}

#[cfg(test)]
mod tests {
    use super::sampled;

    #[test]
    fn a_sample_spreads_from_the_first_to_the_last() {
        let items: Vec<u64> = (0..10).collect();
        assert_eq!(sampled(&items, 4).collect::<Vec<_>>(), [0, 3, 6, 9]);
        assert_eq!(sampled(&items, 64).collect::<Vec<_>>(), items);
        assert_eq!(sampled(&items, 1).collect::<Vec<_>>(), [0]);
        assert_eq!(sampled(&[], 64).count(), 0);
    }
}
