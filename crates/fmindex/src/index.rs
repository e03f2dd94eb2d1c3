//! The loaded index: a read-only value that every worker thread shares.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use memmap2::{Mmap, MmapMut};
use seqfarm_core::{AmbiguityMask, PackedBases, Reference, Strand};
use xxhash_rust::xxh3::xxh3_64;

use crate::build::IndexImage;
use crate::error::LoadError;
use crate::format::{self, Params, SectionId, BYTE_ORDER_MARK, FORMAT_VERSION, MAGIC, PAGE};
use crate::intervals::Search;
use crate::kmer::{self, MAX_KMER_LEN};
use crate::occ::{
    hardware_popcount, Bwt, DollarDirectory, DollarLookup, DollarRow, OccBlock,
    BLOCKS_PER_SUPER_SHIFT, ROWS_PER_BLOCK,
};
use crate::reference::{Contig, Layout};
use crate::sa::{SampledSa, Samples};
use crate::search::{BiInterval, SaInterval, Searcher};
use crate::smems::{Smem, SmemBatchScratch, SmemScratch};

/// Where the loaded index lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LoadMode {
    /// Memory-mapped: pages come from the page cache, shared by every process that
    /// maps the same file; nothing is read until it is touched.
    #[default]
    Mmap,
    /// Copied into anonymous memory owned by this process (the memory a NUMA policy
    /// can interleave or replicate per node), in transparent huge pages where the
    /// system allows them.
    Copy,
}

/// How to load an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Memory-mapped or copied.
    pub mode: LoadMode,
    /// Verify every section's checksum (reads the whole file once); when off, only the
    /// header's checksum and the structure are checked.
    pub verify_checksums: bool,
    /// Threads that read a copy ([`LoadMode::Copy`]) into memory, each its own part of
    /// the file (0 counts as 1). Filling fresh memory is mostly the kernel zeroing pages
    /// as they are first touched, on the thread that touches them: an index of many
    /// GiB is read in a fraction of the time on as many cores as the work will use.
    pub threads: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            mode: LoadMode::Mmap,
            verify_checksums: true,
            threads: 1,
        }
    }
}

/// An occurrence: the leftmost base of the match in global coordinates, and the strand
/// (`Reverse`: the reverse complement of the pattern occurs there on the forward strand).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hit {
    /// Global coordinate of the match's leftmost base (forward strand).
    pub pos: u64,
    /// Which strand the pattern matches.
    pub strand: Strand,
}

enum Backing {
    /// The file mapped read-only, and the file itself (for reads of the same inode).
    Mapped {
        map: Mmap,
        file: File,
    },
    Copied(MmapMut),
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mapped { map, .. } => map,
            Backing::Copied(m) => m,
        }
    }

    /// A reader of the mapped file with a file description of its own, so that its
    /// sequential reads keep their own read-ahead state rather than share the one the
    /// mapping's page faults use: `path` opened again, if it is still the same file.
    fn own_reader(&self, path: &Path) -> Option<File> {
        #[cfg(unix)]
        if let Backing::Mapped { file, .. } = self {
            use std::os::unix::fs::MetadataExt;
            let reader = File::open(path).ok()?;
            let (a, b) = (file.metadata().ok()?, reader.metadata().ok()?);
            return (a.dev() == b.dev() && a.ino() == b.ino()).then_some(reader);
        }
        let _ = path;
        None
    }

    /// Bytes `at..at + len` of the index: read from `reader` (the same file) into
    /// `buffer` when there is one, else the mapped or copied bytes themselves.
    fn range<'a>(
        &'a self,
        at: usize,
        len: usize,
        reader: Option<&File>,
        buffer: &'a mut Vec<u8>,
    ) -> std::io::Result<&'a [u8]> {
        #[cfg(unix)]
        if let Some(reader) = reader {
            use std::os::unix::fs::FileExt;
            buffer.resize(len, 0);
            reader.read_exact_at(buffer, at as u64)?;
            return Ok(buffer);
        }
        let _ = (reader, buffer);
        Ok(&self.bytes()[at..at + len])
    }
}

/// Bytes [`FmIndex::verify_checksums`] hashes between checks of its stop flag.
const VERIFY_CHUNK: usize = 1 << 20;

/// Anonymous memory for a copy of an index of `len` bytes, in transparent huge pages
/// where the system allows them: the index is read at random, and in 4 KiB pages nearly
/// every search step also misses the TLB. The advice is only an optimisation; a refusal
/// is silent.
fn anon_copy(len: usize) -> std::io::Result<MmapMut> {
    let anon = MmapMut::map_anon(len)?;
    #[cfg(target_os = "linux")]
    let _ = anon.advise(memmap2::Advice::HugePage);
    Ok(anon)
}

/// Least bytes each thread of [`read_in_parts`] reads: below this, a thread costs more
/// than the pages it fills.
const MIN_READ_PART: usize = 32 << 20;
/// The parts of [`read_in_parts`] start at multiples of 2 MiB into the copy, so where the
/// kernel starts the mapping on a huge page (as recent Linux does for large anonymous
/// mappings), no huge page is filled by two threads.
const READ_PART_ALIGN: usize = 2 << 20;

/// Fills `buffer` with the first `buffer.len()` bytes of `file`, by up to `threads`
/// threads at once, each reading one part of at least `min_part` bytes at its offset
/// (positioned reads, which leave the file's cursor alone). One thread where positioned
/// reads are not available.
fn read_in_parts(
    file: &File,
    buffer: &mut [u8],
    threads: usize,
    min_part: usize,
) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let threads = threads.min(buffer.len() / min_part.max(1)).max(1);
        if threads == 1 {
            return file.read_exact_at(buffer, 0);
        }
        let part = buffer
            .len()
            .div_ceil(threads)
            .next_multiple_of(READ_PART_ALIGN);
        std::thread::scope(|scope| {
            let readers: Vec<_> = buffer
                .chunks_mut(part)
                .enumerate()
                .map(|(k, piece)| scope.spawn(move || file.read_exact_at(piece, (k * part) as u64)))
                .collect();
            readers.into_iter().try_for_each(|r| {
                r.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        })
    }
    #[cfg(not(unix))]
    {
        use std::io::Seek;
        let _ = (threads, min_part);
        let mut reader = file;
        reader.rewind()?;
        reader.read_exact(buffer)
    }
}

/// The file name of the index with prefix `prefix` (`PREFIX.sfi`); a path already
/// ending in `.sfi` is taken as it is.
pub fn index_path(prefix: impl AsRef<Path>) -> PathBuf {
    let prefix = prefix.as_ref();
    if prefix.extension().is_some_and(|e| e == "sfi") {
        prefix.to_path_buf()
    } else {
        let mut name = prefix.as_os_str().to_os_string();
        name.push(".sfi");
        PathBuf::from(name)
    }
}

/// An FMD-index of a reference genome, loaded read-only. `Send + Sync`: share one
/// `&FmIndex` between all workers.
pub struct FmIndex {
    // Views into `backing` (declared first: dropped before it).
    pub(crate) bwt: Bwt<'static>,
    pub(crate) sa: SampledSa<'static>,
    pub(crate) kmers: &'static [u64],
    pub(crate) kmer_len: u32,
    pub(crate) reference_words: &'static [u64],
    pub(crate) layout: Layout,
    pub(crate) mask: AmbiguityMask,
    pub(crate) path: PathBuf,
    pub(crate) file_len: u64,
    /// Whether loading verified every section's checksum.
    pub(crate) checksums_verified: bool,
    mode: LoadMode,
    /// What `bwt` finds separator rows through (declared after it: dropped later);
    /// only held, read through `bwt`.
    #[allow(dead_code)]
    dollar_directory: DollarDirectory,
    backing: Backing,
}

impl std::fmt::Debug for FmIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FmIndex")
            .field("path", &self.path)
            .field("contigs", &self.layout.contigs.len())
            .field("genome_len", &self.genome_len())
            .field("sa_rate", &self.sa.rate)
            .field("kmer_len", &self.kmer_len)
            .finish()
    }
}

impl FmIndex {
    /// Verifies every section's checksum: the check an index opened with
    /// `verify_checksums: false` skipped, run beside the work that uses the index. A
    /// mapped index's file is read (1 MiB at a time) through a file description of its
    /// own, so its sequential read-ahead is not disturbed by the searches' page faults
    /// and the pages the searches never touch are not mapped into the process; a copied
    /// index (or a mapped file since replaced at its path) is hashed in memory. Returns
    /// `Ok(false)` if `stop` was set before it finished (the work it ran beside ended
    /// first, with an error), checking it every MiB.
    pub fn verify_checksums(&self, stop: &AtomicBool) -> Result<bool, LoadError> {
        let bytes = self.bytes();
        let (_, table) = format::decode_header(&bytes[..PAGE as usize]);
        let mut buffer = Vec::new();
        let reader = self.backing.own_reader(&self.path);
        for (section, id) in table.iter().zip(SectionId::ALL) {
            // Loading checked that every section lies inside the file.
            let start = section.offset as usize;
            let end = start + section.len as usize;
            let mut hasher = xxhash_rust::xxh3::Xxh3::new();
            for at in (start..end).step_by(VERIFY_CHUNK) {
                if stop.load(Ordering::Relaxed) {
                    return Ok(false);
                }
                let chunk = self
                    .backing
                    .range(at, VERIFY_CHUNK.min(end - at), reader.as_ref(), &mut buffer)
                    .map_err(|e| LoadError::Io {
                        path: self.path.clone(),
                        cause: e,
                    })?;
                hasher.update(chunk);
            }
            if hasher.digest() != section.checksum {
                return Err(LoadError::Checksum {
                    path: self.path.clone(),
                    section: id.name(),
                });
            }
        }
        Ok(true)
    }

    /// Loads the index file at `path` (see [`index_path`]).
    pub fn open(path: impl AsRef<Path>, options: LoadOptions) -> Result<Self, LoadError> {
        Self::open_with(path.as_ref(), options, |_| {})
    }

    /// Loads the index file at `path` into anonymous memory ([`LoadMode::Copy`]), read
    /// by `threads` threads ([`LoadOptions::threads`]), calling `prepare` on that memory
    /// once it is mapped and before any byte of it is written: the moment to set a NUMA
    /// memory policy (`mbind`), which decides where the pages go when the copy first
    /// touches them (whichever thread touches them).
    pub fn open_copy_with(
        path: impl AsRef<Path>,
        verify_checksums: bool,
        threads: usize,
        prepare: impl FnOnce(&mut [u8]),
    ) -> Result<Self, LoadError> {
        let options = LoadOptions {
            mode: LoadMode::Copy,
            verify_checksums,
            threads,
        };
        Self::open_with(path.as_ref(), options, prepare)
    }

    fn open_with(
        path: &Path,
        options: LoadOptions,
        prepare: impl FnOnce(&mut [u8]),
    ) -> Result<Self, LoadError> {
        let path = path.to_path_buf();
        let io = |e| LoadError::Io {
            path: path.clone(),
            cause: e,
        };
        let mut file = File::open(&path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "is a directory, not an index file",
            )));
        }
        let len = meta.len();
        if len < PAGE {
            let mut head = Vec::new();
            file.read_to_end(&mut head).map_err(io)?;
            if !head.starts_with(MAGIC) {
                return Err(LoadError::Foreign { path });
            }
            return Err(LoadError::Truncated {
                path,
                expected: PAGE,
                actual: len,
            });
        }
        let backing = match options.mode {
            LoadMode::Mmap => {
                // SAFETY: the file is mapped read-only; seqfarm never modifies an index in
                // place (it writes a new file and renames it), so the mapped bytes do not
                // change under us. Another program truncating the file would be a bug
                // outside our control (the kernel then signals SIGBUS).
                let map = unsafe { Mmap::map(&file) }.map_err(io)?;
                Backing::Mapped { map, file }
            }
            LoadMode::Copy => {
                let mut anon = anon_copy(len as usize).map_err(io)?;
                prepare(&mut anon);
                read_in_parts(&file, &mut anon, options.threads, MIN_READ_PART).map_err(io)?;
                Backing::Copied(anon)
            }
        };
        Self::from_backing(backing, path, options.mode, options.verify_checksums)
    }

    /// Loads an index from bytes in memory (copied into anonymous memory); `name` is
    /// used in error messages.
    pub fn from_bytes(bytes: &[u8], name: impl Into<PathBuf>) -> Result<Self, LoadError> {
        let path = name.into();
        let io = |e| LoadError::Io {
            path: path.clone(),
            cause: e,
        };
        if bytes.len() < PAGE as usize {
            if !bytes.starts_with(MAGIC) {
                return Err(LoadError::Foreign { path });
            }
            return Err(LoadError::Truncated {
                path,
                expected: PAGE,
                actual: bytes.len() as u64,
            });
        }
        let mut anon = anon_copy(bytes.len()).map_err(io)?;
        anon.copy_from_slice(bytes);
        Self::from_backing(Backing::Copied(anon), path, LoadMode::Copy, true)
    }

    /// Loads a freshly built index without a file.
    pub fn from_image(image: &IndexImage) -> Result<Self, LoadError> {
        let mut bytes = Vec::with_capacity(image.file_len() as usize);
        image.write_to(&mut bytes).map_err(|e| LoadError::Io {
            path: "(built index)".into(),
            cause: e,
        })?;
        Self::from_bytes(&bytes, "(built index)")
    }

    fn from_backing(
        backing: Backing,
        path: PathBuf,
        mode: LoadMode,
        verify: bool,
    ) -> Result<Self, LoadError> {
        // SAFETY: `bytes` points into the mapping owned by `backing`, which is moved into
        // the returned `FmIndex` and dropped only after every view derived from `bytes`
        // (fields are dropped in declaration order, views first). Moving an `Mmap` does
        // not move the mapped memory. The views are only handed out with the lifetime
        // of `&self`.
        let bytes: &'static [u8] = unsafe {
            let b = backing.bytes();
            std::slice::from_raw_parts(b.as_ptr(), b.len())
        };
        let parsed = parse(bytes, &path, verify)?;
        let dollar_directory = DollarDirectory::new(parsed.bwt.dollars, parsed.bwt.len());
        // SAFETY: the view borrows only the directory's heap buffers, owned by
        // `dollar_directory`, which is moved into the returned `FmIndex` (moving a `Vec`
        // does not move its buffer), never changed, and dropped after `bwt` (declaration
        // order). Only the lifetime changes.
        let directory = unsafe {
            std::mem::transmute::<DollarLookup<'_>, DollarLookup<'static>>(dollar_directory.view())
        };
        Ok(FmIndex {
            bwt: Bwt {
                directory,
                ..parsed.bwt
            },
            sa: parsed.sa,
            kmers: parsed.kmers,
            kmer_len: parsed.params.kmer_len,
            reference_words: parsed.reference_words,
            layout: parsed.layout,
            mask: parsed.mask,
            path,
            file_len: bytes.len() as u64,
            checksums_verified: verify,
            mode,
            dollar_directory,
            backing,
        })
    }

    /// The file it was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size of the index in bytes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// How it was loaded.
    pub fn load_mode(&self) -> LoadMode {
        self.mode
    }

    /// Whether the index bytes live in anonymous memory ([`LoadMode::Copy`]) rather
    /// than the page cache.
    pub fn is_copied(&self) -> bool {
        matches!(self.backing, Backing::Copied(_))
    }

    /// The memory holding the whole index (the file mapping, or the anonymous copy):
    /// what a NUMA policy (`mbind`, `madvise`) would be applied to.
    pub fn bytes(&self) -> &[u8] {
        self.backing.bytes()
    }

    /// The contigs, in FASTA order (for `@SQ` lines).
    pub fn contigs(&self) -> &[Contig] {
        &self.layout.contigs
    }

    /// Total bases of all contigs (global coordinates are `0..genome_len`).
    pub fn genome_len(&self) -> u64 {
        self.layout.genome_len()
    }

    /// Length of the indexed text (both strands, with separators); the BWT has one row
    /// more (the empty suffix).
    pub fn text_len(&self) -> u64 {
        self.layout.text_len()
    }

    /// The suffix-array sampling rate.
    pub fn sa_rate(&self) -> u32 {
        self.sa.rate as u32
    }

    /// The k-mer table's string length.
    pub fn kmer_len(&self) -> u32 {
        self.kmer_len
    }

    /// The reference: packed bases plus ambiguity mask, by global coordinate.
    pub fn reference(&self) -> Reference<'_> {
        let bases = PackedBases::new(self.reference_words, self.genome_len())
            .unwrap_or_else(unreachable_bases);
        Reference::new(bases, &self.mask)
    }

    /// The contig holding global coordinate `pos`, and the 0-based offset in it.
    /// O(log contigs).
    pub fn contig_of(&self, pos: u64) -> Option<(usize, u64)> {
        self.layout.contig_of(pos)
    }

    /// The global coordinate of 0-based `offset` in contig `contig`.
    pub fn global_of(&self, contig: usize, offset: u64) -> Option<u64> {
        let c = self.layout.contigs.get(contig)?;
        (offset < c.len).then_some(c.offset + offset)
    }

    /// Whether `start..start + len` lies inside one contig. O(log contigs).
    pub fn within_one_contig(&self, start: u64, len: u64) -> bool {
        match self.contig_of(start) {
            Some((i, offset)) => len > 0 && offset + len <= self.layout.contigs[i].len,
            None => false,
        }
    }

    fn searcher(&self) -> Searcher<'_> {
        Searcher {
            bwt: self.bwt,
            kmers: self.kmers,
            kmer_len: self.kmer_len,
        }
    }

    /// The bidirectional interval of `codes` (`0..=3`; an ambiguous code gives the empty
    /// interval): O(1) for up to [`FmIndex::kmer_len`] bases, then one extension (two
    /// `Occ4`, about two cache misses) per further base.
    pub fn interval(&self, codes: &[u8]) -> BiInterval {
        self.searcher().interval(codes)
    }

    /// Number of occurrences of `codes` on both strands (the size of its interval; a
    /// reverse-complement palindrome counts twice per position). Backward search from
    /// the k-mer table: O(|codes| - K) steps of two `Occ`.
    pub fn count(&self, codes: &[u8]) -> u64 {
        self.searcher().count(codes)
    }

    /// [`FmIndex::count`] of many patterns into `out` (cleared first), 16 searches in
    /// lock step with prefetching: several times the throughput of one at a time.
    pub fn count_many<P: AsRef<[u8]>>(&self, patterns: &[P], out: &mut Vec<u64>) {
        crate::batch::count_many(&self.searcher(), patterns, out)
    }

    /// The rows of [`FmIndex::interval`] of many patterns into `out` (cleared first), 16
    /// backward searches in lock step with prefetching (a read aligner's seeds, all at
    /// once).
    pub fn intervals_many<P: AsRef<[u8]>>(&self, patterns: &[P], out: &mut Vec<SaInterval>) {
        let searcher = self.searcher();
        crate::intervals::intervals_many(&searcher, patterns, Search::Whole, out, &mut Vec::new())
    }

    /// [`FmIndex::intervals_many`], each search stopped as soon as its interval holds
    /// one row: pattern `i`'s interval is then that of its last `searched[i]` bases
    /// (both cleared first; the whole pattern's length for the others). Such a pattern
    /// occurs once or not at all, which the text at that one occurrence settles: a
    /// read aligner's seeds need not be searched to the end to know they are unique.
    pub fn intervals_until_unique_many<P: AsRef<[u8]>>(
        &self,
        patterns: &[P],
        out: &mut Vec<SaInterval>,
        searched: &mut Vec<u32>,
    ) {
        let searcher = self.searcher();
        crate::intervals::intervals_many(&searcher, patterns, Search::UntilOneRow, out, searched)
    }

    /// Continues searches [`FmIndex::intervals_until_unique_many`] stopped, from the
    /// intervals and searched lengths it left in `out` and `searched`, to the whole
    /// patterns (`searched` then holds their lengths).
    pub fn resume_intervals_many<P: AsRef<[u8]>>(
        &self,
        patterns: &[P],
        out: &mut Vec<SaInterval>,
        searched: &mut Vec<u32>,
    ) {
        let searcher = self.searcher();
        crate::intervals::intervals_many(&searcher, patterns, Search::Resume, out, searched)
    }

    /// The interval of `c·P` from that of `P`. O(1).
    pub fn extend_left(&self, interval: BiInterval, c: u8) -> BiInterval {
        self.searcher().extend_left(interval, c)
    }

    /// The interval of `P·c` from that of `P`. O(1).
    pub fn extend_right(&self, interval: BiInterval, c: u8) -> BiInterval {
        self.searcher().extend_right(interval, c)
    }

    /// All SMEMs of `query` (codes `0..=3`, [`seqfarm_core::AMBIGUOUS`] never matched)
    /// of length `min_len` or more, sorted by query start, into `out`. Both strands are
    /// searched at once (the index holds both). O(|query|) extensions per SMEM; a
    /// stretch of the query with no match of `min_len` bases is skipped a window at a
    /// time, after the few bases of each window that still occur.
    pub fn smems(
        &self,
        query: &[u8],
        min_len: u32,
        scratch: &mut SmemScratch,
        out: &mut Vec<Smem>,
    ) {
        self.searcher().smems(query, min_len, scratch, out)
    }

    /// [`FmIndex::smems`] of many reads: read `r`'s SMEMs are `out[ranges[r]]` (both
    /// cleared first). Sixteen reads are searched in lock step with prefetching, so on
    /// an index much larger than the CPU cache their cache misses overlap: a seeding
    /// pass over a batch of reads, at 3.4-3.8x the throughput of one at a time on a
    /// 64 Mbp contig.
    pub fn smems_many<P: AsRef<[u8]>>(
        &self,
        reads: &[P],
        min_len: u32,
        scratch: &mut SmemBatchScratch,
        out: &mut Vec<Smem>,
        ranges: &mut Vec<std::ops::Range<usize>>,
    ) {
        crate::smems::smems_many(&self.searcher(), reads, min_len, scratch, out, ranges)
    }

    /// [`FmIndex::smems_at`] of many `(query, x, min_size)` jobs (the re-seeding of a
    /// batch of reads): job `j`'s matches are `out[ranges[j]]` (both cleared first),
    /// found sixteen at a time in lock step with prefetching, as
    /// [`FmIndex::smems_many`].
    pub fn smems_at_many(
        &self,
        jobs: &[(&[u8], usize, u64)],
        scratch: &mut SmemBatchScratch,
        out: &mut Vec<Smem>,
        ranges: &mut Vec<std::ops::Range<usize>>,
    ) {
        crate::smems::smems_at_many(&self.searcher(), jobs, scratch, out, ranges)
    }

    /// The SMEMs containing query position `x` whose intervals have at least
    /// `min_size` rows, appended to `out` (for re-seeding inside a long SMEM with a
    /// larger `min_size`, as BWA-MEM does). Returns the next position to search from.
    pub fn smems_at(
        &self,
        query: &[u8],
        x: usize,
        min_size: u64,
        scratch: &mut SmemScratch,
        out: &mut Vec<Smem>,
    ) -> usize {
        self.searcher().smems_at(query, x, min_size, scratch, out)
    }

    /// Appends the occurrences of a pattern of length `pattern_len` whose interval is
    /// `interval` to `out`, at most `max` of them (when there are more, `max` rows
    /// spread evenly over the interval: deterministic), in interval order. Returns how
    /// many were added. O(sa_rate) expected per occurrence (one cache miss per step; up
    /// to 16 rows are walked at once so their misses overlap).
    pub fn locate(
        &self,
        interval: BiInterval,
        pattern_len: u64,
        max: usize,
        out: &mut Vec<Hit>,
    ) -> usize {
        self.locate_in(
            interval,
            pattern_len,
            max,
            &mut LocateScratch::default(),
            out,
        )
    }

    /// [`FmIndex::locate`] with its working vectors in `scratch`, for callers that
    /// locate many intervals (an aligner, per seed) without allocating each time.
    pub fn locate_in(
        &self,
        interval: BiInterval,
        pattern_len: u64,
        max: usize,
        scratch: &mut LocateScratch,
        out: &mut Vec<Hit>,
    ) -> usize {
        let LocateScratch { rows, values } = scratch;
        rows.clear();
        rows.extend(interval.spread_rows(max));
        crate::batch::sa_values(&self.sa, &self.bwt, rows, values);
        let before = out.len();
        out.extend(values.iter().filter_map(|&v| self.hit_of(v, pattern_len)));
        out.len() - before
    }

    /// The occurrence of a `lens[i]`-base pattern at each suffix-array row `rows[i]`,
    /// into `out` (cleared first; `None` only in a damaged index): one occurrence each
    /// of many patterns (a batch of reads' seeds), walked 16 at a time so their cache
    /// misses overlap.
    pub fn locate_rows(
        &self,
        rows: &[u64],
        lens: &[u64],
        scratch: &mut LocateScratch,
        out: &mut Vec<Option<Hit>>,
    ) {
        crate::batch::sa_values(&self.sa, &self.bwt, rows, &mut scratch.values);
        out.clear();
        out.extend(
            scratch
                .values
                .iter()
                .zip(lens)
                .map(|(&v, &len)| self.hit_of(v, len)),
        );
    }

    /// The hit of a pattern of length `pattern_len` at text position `value`.
    #[inline]
    fn hit_of(&self, value: Option<u64>, pattern_len: u64) -> Option<Hit> {
        let (pos, strand) = self.layout.text_to_global(value?, pattern_len)?;
        Some(Hit { pos, strand })
    }
}

/// The working vectors of [`FmIndex::locate_in`], reused from call to call.
#[derive(Debug, Default)]
pub struct LocateScratch {
    rows: Vec<u64>,
    values: Vec<Option<u64>>,
}

/// Only reachable if `parse` let through a reference section too short for the genome.
#[cold]
fn unreachable_bases() -> PackedBases<'static> {
    PackedBases::new(&[], 0).unwrap_or_else(|| unreachable!("an empty view always fits"))
}

pub(crate) struct Parsed<'a> {
    pub params: Params,
    pub bwt: Bwt<'a>,
    pub sa: SampledSa<'a>,
    pub kmers: &'a [u64],
    pub reference_words: &'a [u64],
    pub layout: Layout,
    pub mask: AmbiguityMask,
}

pub(crate) fn parse<'a>(
    bytes: &'a [u8],
    path: &Path,
    verify: bool,
) -> Result<Parsed<'a>, LoadError> {
    let corrupt = |m: String| LoadError::corrupt(path, m);
    if !bytes.starts_with(MAGIC) {
        return Err(LoadError::Foreign {
            path: path.to_path_buf(),
        });
    }
    let version = format::read_u32(bytes, 8);
    if version != FORMAT_VERSION {
        return Err(LoadError::Version {
            path: path.to_path_buf(),
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    if format::read_u32(bytes, 12) != BYTE_ORDER_MARK {
        return Err(corrupt(
            "byte-order mark does not match this machine".into(),
        ));
    }
    let sections = format::read_u32(bytes, 60) as usize;
    if sections != SectionId::ALL.len() {
        return Err(corrupt(format!(
            "{sections} sections, expected {}",
            SectionId::ALL.len()
        )));
    }
    let header_len = format::FIXED_HEADER + format::SECTION_ENTRY * sections;
    if xxh3_64(&bytes[..header_len]) != format::read_u64(bytes, header_len) {
        return Err(LoadError::Checksum {
            path: path.to_path_buf(),
            section: "header",
        });
    }
    let (params, table) = format::decode_header(&bytes[..PAGE as usize]);
    let actual = bytes.len() as u64;
    if actual < params.file_len {
        return Err(LoadError::Truncated {
            path: path.to_path_buf(),
            expected: params.file_len,
            actual,
        });
    }
    if actual > params.file_len {
        return Err(corrupt(format!(
            "{actual} bytes, the header says {}",
            params.file_len
        )));
    }
    let mut slices: Vec<&'a [u8]> = Vec::with_capacity(sections);
    let mut end = PAGE;
    for (section, id) in table.iter().zip(SectionId::ALL) {
        let bad = section.id != id as u32
            || section.offset % PAGE != 0
            || section.offset < end
            || section
                .offset
                .checked_add(section.len)
                .is_none_or(|e| e > actual);
        if bad {
            return Err(corrupt(format!(
                "section table entry for the {} is invalid",
                id.name()
            )));
        }
        let slice = &bytes[section.offset as usize..(section.offset + section.len) as usize];
        if verify && xxh3_64(slice) != section.checksum {
            return Err(LoadError::Checksum {
                path: path.to_path_buf(),
                section: id.name(),
            });
        }
        end = section.offset + section.len;
        slices.push(slice);
    }
    check_params(&params).map_err(corrupt)?;
    let (layout, mask) = format::decode_meta(slices[0], params.half_len).map_err(corrupt)?;
    if layout.text_len() != params.text_len || layout.genome_len() != params.genome_len {
        return Err(corrupt("contig table does not match the header".into()));
    }
    let n = params.text_len;
    let rows = n + 1;
    let n_blocks = rows / ROWS_PER_BLOCK + 1;
    let n_supers = n_blocks.div_ceil(1 << params.super_shift);
    let n_samples = rows.div_ceil(u64::from(params.sa_rate));
    let expect = |k: usize, want: u64| -> Result<(), LoadError> {
        let got = table[k].len;
        if got != want {
            return Err(corrupt(format!(
                "{} has {got} bytes, expected {want}",
                SectionId::ALL[k].name()
            )));
        }
        Ok(())
    };
    expect(1, n_blocks * 64)?;
    expect(2, n_supers * 32)?;
    expect(3, (2 * layout.fragments.len() as u64 + 1) * 16)?;
    expect(4, n_samples * u64::from(params.sample_width))?;
    expect(5, kmer::table_len(params.kmer_len) as u64 * 8)?;
    expect(6, params.genome_len.div_ceil(32) * 8)?;
    let cast = |k: usize| -> Result<&'a [u64], LoadError> {
        bytemuck::try_cast_slice(slices[k])
            .map_err(|e| corrupt(format!("{}: {e}", SectionId::ALL[k].name())))
    };
    let blocks: &'a [OccBlock] =
        bytemuck::try_cast_slice(slices[1]).map_err(|e| corrupt(format!("BWT blocks: {e}")))?;
    let dollars: &'a [DollarRow] =
        bytemuck::try_cast_slice(slices[3]).map_err(|e| corrupt(format!("separator rows: {e}")))?;
    let samples = if params.sample_width == 4 {
        Samples::Narrow(
            bytemuck::try_cast_slice(slices[4]).map_err(|e| corrupt(format!("samples: {e}")))?,
        )
    } else {
        Samples::Wide(cast(4)?)
    };
    Ok(Parsed {
        bwt: Bwt {
            blocks,
            supers: cast(2)?,
            dollars,
            directory: DollarLookup::default(),
            super_shift: params.super_shift,
            c: params.c,
            popcnt: hardware_popcount(),
        },
        sa: SampledSa {
            samples,
            rate: u64::from(params.sa_rate),
        },
        kmers: cast(5)?,
        reference_words: cast(6)?,
        layout,
        mask,
        params,
    })
}

fn check_params(p: &Params) -> Result<(), String> {
    if !p.sa_rate.is_power_of_two() || p.sa_rate > 256 {
        return Err(format!("sampling rate {} is invalid", p.sa_rate));
    }
    if !(1..=MAX_KMER_LEN).contains(&p.kmer_len) {
        return Err(format!("k-mer length {} is invalid", p.kmer_len));
    }
    if p.sample_width != 4 && p.sample_width != 8
        || (p.sample_width == 4 && p.text_len >= u64::from(u32::MAX))
    {
        return Err(format!("sample width {} is invalid", p.sample_width));
    }
    if p.super_shift > BLOCKS_PER_SUPER_SHIFT {
        return Err(format!("superblock shift {} is invalid", p.super_shift));
    }
    if p.text_len != 2 * p.half_len || p.text_len == 0 || p.text_len >= 1 << 40 {
        return Err("text length is invalid".into());
    }
    if p.c.windows(2).any(|w| w[0] > w[1]) || p.c[4] != p.text_len + 1 {
        return Err("symbol counts are invalid".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::{read_in_parts, READ_PART_ALIGN};

    /// A file read by several threads, in parts of 2 MiB and a short last one, reads as
    /// it reads in one piece; more threads than parts, or parts under the minimum, read
    /// it too.
    #[test]
    fn a_file_read_in_parts_reads_whole() {
        let len = 2 * READ_PART_ALIGN + READ_PART_ALIGN / 2 + 123;
        let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4099) as u8).collect();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&bytes).unwrap();
        for (threads, min_part) in [(3, 1 << 20), (8, 1 << 20), (2, len), (0, 1), (3, 0)] {
            let mut copy = vec![0u8; len];
            read_in_parts(&file, &mut copy, threads, min_part).unwrap();
            assert!(
                copy == bytes,
                "{threads} threads, parts of at least {min_part}"
            );
        }
        let mut longer = vec![0u8; len + 1];
        assert!(read_in_parts(&file, &mut longer, 3, 1 << 20).is_err());
    }
}
