//! The loaded index: a read-only value that every worker thread shares.

mod load;
mod parse;

use std::path::{Path, PathBuf};

use seqfarm_core::{AmbiguityMask, PackedBases, Reference, Strand};

use self::load::Backing;
pub(crate) use self::parse::parse;
use crate::intervals::Search;
use crate::occ::{Bwt, DollarDirectory};
use crate::reference::{Contig, Layout};
use crate::sa::SampledSa;
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
