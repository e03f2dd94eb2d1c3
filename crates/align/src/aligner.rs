//! Aligning a batch of reads: seeds and regions per read, all extensions of the batch
//! in one SIMD pass, then the best placement, the runner-up and the mapping quality.

mod bowtie2;
mod candidates;
mod choice;
mod fast;
mod offsets;
mod pairs;
mod short;

use std::ops::Range;

use seqfarm_core::nucleotide::{encode, reverse_complement_codes_into, AMBIGUOUS};
use seqfarm_core::SimdError;
use seqfarm_fmindex::{FmIndex, Hit, SaInterval, Smem};

use crate::candidate::Placement;
use crate::chain::Region;
use crate::dp::{Extender, Extension};
use crate::params::AlignParams;
use crate::seed::{Anchor, FixedSeed, SeedStats, Seeder};

/// The quality that reads without qualities (FASTA and the like) are scored with, and
/// written with (`I`): bowtie2's, for both.
pub const QUALITY_WITHOUT_QUALITIES: u8 = 40;

/// A read to align: name (for tie-breaking only), bases (letters), Phred qualities
/// (`None`: scored as [`QUALITY_WITHOUT_QUALITIES`], as bowtie2 scores FASTA reads).
#[derive(Debug, Clone, Copy)]
pub struct ReadInput<'a> {
    /// The read's name.
    pub name: &'a [u8],
    /// Its bases as letters.
    pub bases: &'a [u8],
    /// Its Phred qualities.
    pub qualities: Option<&'a [u8]>,
}

/// The longest read the aligner scores: the 16-bit extension kernels stay exact up to
/// here (an end-to-end score stays above `-0.6 - 0.6·L`, far from `i16::MIN`). Longer
/// reads are not aligned ([`Unaligned::TooLong`]).
pub const MAX_READ_LEN: usize = 10_000;

/// Why a read has no alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unaligned {
    /// The read is shorter than 2 bases: bowtie2's length filter (`YF:Z:LN`), which
    /// also drops 1-base reads at `-N 1`.
    TooShort,
    /// The read is longer than [`MAX_READ_LEN`]: the kernels cannot score it exactly.
    TooLong,
    /// More N than the N ceiling allows (`YF:Z:NS`).
    TooManyNs,
    /// No alignment can reach the minimum score: in local mode, the read's length times
    /// the match bonus is below it (bowtie2's score filter, `YF:Z:SC`).
    ScoreUnreachable,
    /// No alignment reaches the minimum score.
    NoAlignment,
    /// The read failed the instrument's quality filter and was not aligned (bowtie2's
    /// `--qc-filter`, `YF:Z:QC`); the aligner never gives it, the caller does.
    QcFailed,
}

impl Unaligned {
    /// Whether the read failed one of bowtie2's read filters (length, Ns, score), which
    /// are applied before any search, rather than finding no alignment: such a read is
    /// not searched at all, for itself or as a mate, nor counted among the reads searched.
    pub fn filtered(self) -> bool {
        matches!(
            self,
            Unaligned::TooShort
                | Unaligned::TooLong
                | Unaligned::TooManyNs
                | Unaligned::ScoreUnreachable
        )
    }
}

/// The outcome for one read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadResult {
    /// Placements, best first (the primary), at most `report` of them; the second-best
    /// score at another place (`XS`) and the mapping quality.
    Aligned {
        /// The placements.
        placements: Vec<Placement>,
        /// Best score elsewhere.
        second_best: Option<i32>,
        /// Mapping quality of the primary.
        mapq: u8,
    },
    /// No alignment.
    Unaligned(Unaligned),
}

/// One region to extend: where its window lives and how it was (or will be) aligned.
#[derive(Debug, Clone)]
struct Candidate {
    read: usize,
    reverse: bool,
    window: Range<usize>,
    window_start: i64,
    band: usize,
    /// Its region's anchor diagonals (see [`Region::diagonals`]).
    diagonals: Vec<i64>,
    /// `Pending` until its job has run, then its best extension (if any reaches the
    /// minimum score).
    outcome: Outcome,
}

/// Where a candidate's alignment stands.
#[derive(Debug, Clone)]
enum Outcome {
    /// Queued for the batch's SIMD extension.
    Pending,
    /// Aligned (ungapped shortcut or extension), or found nothing valid.
    Done(Option<Extension>),
}

/// How far (in diagonals) the fast path looks for a unique seed around the located
/// one: room for the small indels of sequencing and of the sample.
const FAST_PATH_SHIFT: usize = 8;

/// A read's decoded forms in the batch arenas.
#[derive(Debug, Clone, Default)]
struct Prepared {
    /// Codes: forward at `codes`, reverse complement right after.
    codes: Range<usize>,
    /// Penalties, same layout.
    penalties: Range<usize>,
    candidates: Range<usize>,
    stats: SeedStats,
    /// Regions found but not extended (below the drop ratio or past the limit).
    dropped_regions: usize,
    /// Fast path: no alignment elsewhere can score more than this.
    second_bound: Option<i32>,
    /// Fast path: how many of its seeds occur exactly once.
    unique_seeds: usize,
    /// Fast path: the region of its placement.
    fast_region: Option<Region>,
    /// Placed by the fast path, and searched again only for the second best bowtie2
    /// finds, by bowtie2's seeds alone (bowtie2's mapping quality).
    runner_ups_only: bool,
    /// The read's bowtie2 seeds in `Aligner::bowtie2_seeds`, in the round that searched
    /// them.
    bowtie2_seeds: Range<usize>,
    /// Candidates at other offsets of its regions ([`Aligner::align_other_offsets`]).
    other_offsets: Range<usize>,
    /// When bowtie2 meets each of its placements (bowtie2's mapping quality).
    met: Vec<u64>,
    /// The read's seeds in the batch's seed store, once searched.
    smems: Option<Range<usize>>,
    /// Whether the read may align forward and reverse-complemented (`--nofw`, `--norc`).
    strands: [bool; 2],
    /// Whether the read is a mate whose partner passed the read filters too: bowtie2
    /// spaces such a mate's seeds further apart.
    bowtie2_paired: bool,
}

/// Which search a round runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Round {
    /// The fast path where it applies, else the full search.
    First,
    /// The full search (reads the fast path could not settle).
    Full,
    /// The full search with short seeds (reads nothing aligned yet).
    Rescue,
}

/// Aligns batches of reads against one index; one per worker thread (it keeps the
/// buffers and the SIMD extender).
pub struct Aligner<'i> {
    index: &'i FmIndex,
    params: AlignParams,
    seeder: Seeder,
    extender: Extender,
    prepared: Vec<Prepared>,
    codes: Vec<u8>,
    penalties: Vec<i16>,
    windows: Vec<u8>,
    candidates: Vec<Candidate>,
    job_specs: Vec<usize>,
    extensions: Vec<Option<Extension>>,
    seeds: Vec<Smem>,
    smem_store: Vec<Smem>,
    /// bowtie2's seeds of the reads of a round (bowtie2's mapping quality only).
    bowtie2_seeds: Vec<Smem>,
    /// A short read's whole-read matches (a reused buffer).
    scratch_seeds: Vec<Smem>,
    /// Whether the batch is mates, two by two (bowtie2 seeds mates differently).
    mates: bool,
    /// The fast path's unique seeds of the read at hand, as indices into
    /// `tiling_seeds` (a reused buffer).
    unique_seeds: Vec<usize>,
    tiling_seeds: Vec<FixedSeed>,
    tiling_ranges: Vec<Range<usize>>,
    tiling_intervals: Vec<SaInterval>,
    /// Per tiling seed: how many of its last bases its interval is for.
    tiling_searched: Vec<u32>,
    /// Per tiling of the round: its first unique seed (its anchor, an index into
    /// `tiling_seeds`) and that seed's occurrence.
    tiling_anchors: Vec<Option<(usize, Hit)>>,
    /// Per tiling of the round: the reference its anchor points at, in
    /// `tiling_windows`.
    tiling_window: Vec<Option<fast::TilingWindow>>,
    tiling_windows: Vec<u8>,
    anchors: Vec<Anchor>,
    regions: Vec<Region>,
    /// Read bases covered by a region's anchors (scratch of
    /// [`regions`](crate::chain::regions)).
    covered: Vec<bool>,
    scratch: Vec<u8>,
    /// Placements concluded per read: `report`, or more when pairing needs each mate's
    /// other candidate places.
    kept_placements: usize,
    /// The mismatch penalty of each quality value (a table: every base of every read
    /// looks its penalty up).
    quality_penalties: [i16; 256],
}

impl<'i> Aligner<'i> {
    /// An aligner for `index` with `params`, on the SIMD level `SEQFARM_SIMD` names or
    /// the best this CPU runs; an unknown name or a level the CPU lacks is an error.
    pub fn new(index: &'i FmIndex, params: AlignParams) -> Result<Self, SimdError> {
        let scoring = &params.scoring;
        let quality_penalties = std::array::from_fn(|q| scoring.mismatch_penalty(q as u8) as i16);
        Ok(Self {
            index,
            params,
            seeder: Seeder::default(),
            extender: Extender::new()?,
            prepared: Vec::new(),
            codes: Vec::new(),
            penalties: Vec::new(),
            windows: Vec::new(),
            candidates: Vec::new(),
            job_specs: Vec::new(),
            extensions: Vec::new(),
            seeds: Vec::new(),
            smem_store: Vec::new(),
            bowtie2_seeds: Vec::new(),
            scratch_seeds: Vec::new(),
            mates: false,
            unique_seeds: Vec::new(),
            tiling_seeds: Vec::new(),
            tiling_ranges: Vec::new(),
            tiling_intervals: Vec::new(),
            tiling_searched: Vec::new(),
            tiling_anchors: Vec::new(),
            tiling_window: Vec::new(),
            tiling_windows: Vec::new(),
            anchors: Vec::new(),
            regions: Vec::new(),
            covered: Vec::new(),
            scratch: Vec::new(),
            kept_placements: 0,
            quality_penalties,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &AlignParams {
        &self.params
    }

    /// Aligns `reads`; `results[i]` is read `i`'s outcome. Each read's result depends
    /// on that read alone.
    pub fn align_batch(&mut self, reads: &[ReadInput<'_>], results: &mut Vec<ReadResult>) {
        let strands = [self.params.align_forward, self.params.align_reverse];
        self.align_reads(reads, |_| strands, results);
    }

    /// Aligns `reads`, read `i` only on the strands `strands(i)` allows (forward,
    /// reverse-complemented).
    fn align_reads(
        &mut self,
        reads: &[ReadInput<'_>],
        strands: impl Fn(usize) -> [bool; 2],
        results: &mut Vec<ReadResult>,
    ) {
        self.prepared.clear();
        self.codes.clear();
        self.penalties.clear();
        self.smem_store.clear();
        results.clear();
        // The reads to search: those no filter drops.
        let mut all = Vec::with_capacity(reads.len());
        let filters: Vec<Option<Unaligned>> = reads
            .iter()
            .map(|read| self.read_filter(read.bases))
            .collect();
        for (i, read) in reads.iter().enumerate() {
            let filter = filters[i];
            let paired = self.mates && filters[i ^ 1].is_none();
            self.prepare(read, strands(i), filter.is_none(), paired);
            if filter.is_none() {
                all.push(i);
            }
            results.push(ReadResult::Unaligned(
                filter.unwrap_or(Unaligned::NoAlignment),
            ));
        }
        self.align_round(reads, &all, Round::First, results);
        let (settled, mut unsettled): (Vec<usize>, Vec<usize>) = all
            .iter()
            .copied()
            .filter(|&r| self.prepared[r].second_bound.is_some())
            .partition(|&r| {
                // bowtie2 finds a short read's one-mismatch copies, which no seed
                // of the fast path rules out.
                self.settled(r, &results[r]) && !(self.bowtie2_runner_ups() && self.is_short(r))
            });
        if self.bowtie2_runner_ups() && !settled.is_empty() {
            // bowtie2 may find a second best by any of its seeds that occurs elsewhere:
            // their occurrences are extended beside the fast path's placement.
            let elsewhere = self.seeds_elsewhere(&settled, results);
            for (&r, elsewhere) in settled.iter().zip(elsewhere) {
                if elsewhere {
                    self.prepared[r].runner_ups_only = true;
                    unsettled.push(r);
                }
            }
            unsettled.sort_unstable();
        }
        if !unsettled.is_empty() {
            self.align_round(reads, &unsettled, Round::Full, results);
        }
        let unaligned: Vec<usize> = all
            .into_iter()
            .filter(|&r| results[r] == ReadResult::Unaligned(Unaligned::NoAlignment))
            .collect();
        if !unaligned.is_empty() && self.params.rescue_seed_len < self.params.min_seed_len {
            self.align_round(reads, &unaligned, Round::Rescue, results);
        }
    }

    /// The filter that drops a read of `bases` before any search, as bowtie2's read
    /// filters do (length, Ns, score), or `None` for a read to search.
    fn read_filter(&self, bases: &[u8]) -> Option<Unaligned> {
        let len = bases.len();
        let scoring = &self.params.scoring;
        if len < 2 {
            Some(Unaligned::TooShort)
        } else if len > MAX_READ_LEN {
            Some(Unaligned::TooLong)
        } else if bases
            .iter()
            .filter(|&&b| encode(b).unwrap_or(AMBIGUOUS) >= AMBIGUOUS)
            .count()
            > scoring.max_ns(len)
        {
            Some(Unaligned::TooManyNs)
        } else if scoring.perfect_score(len) < scoring.min_score(len) {
            Some(Unaligned::ScoreUnreachable)
        } else {
            None
        }
    }

    /// Decodes a read and its reverse complement into the arenas; a read not `searched`
    /// (one a filter dropped) is prepared as an empty one.
    fn prepare(&mut self, read: &ReadInput<'_>, strands: [bool; 2], searched: bool, paired: bool) {
        let len = if searched { read.bases.len() } else { 0 };
        // Forward codes, then the reverse complement after them.
        let start = self.codes.len();
        self.codes.resize(start + 2 * len, 0);
        let (forward, reverse) = self.codes[start..].split_at_mut(len);
        for (code, &b) in forward.iter_mut().zip(&read.bases[..len]) {
            *code = encode(b).unwrap_or(AMBIGUOUS);
        }
        reverse_complement_codes_into(forward, reverse);
        // Each base's mismatch penalty, then the same reversed.
        let pstart = self.penalties.len();
        self.penalties.resize(pstart + 2 * len, 0);
        let (forward, reverse) = self.penalties[pstart..].split_at_mut(len);
        match read.qualities {
            Some(q) => {
                for (penalty, &q) in forward.iter_mut().zip(q) {
                    *penalty = self.quality_penalties[q as usize];
                }
            }
            None => forward.fill(self.quality_penalties[usize::from(QUALITY_WITHOUT_QUALITIES)]),
        }
        for (penalty, &f) in reverse.iter_mut().zip(forward.iter().rev()) {
            *penalty = f;
        }
        self.prepared.push(Prepared {
            codes: start..start + 2 * len,
            penalties: pstart..pstart + 2 * len,
            strands,
            bowtie2_paired: paired,
            ..Prepared::default()
        });
    }

    /// The length of read `r` of the batch.
    fn read_len(&self, r: usize) -> usize {
        let p = &self.prepared[r];
        (p.codes.end - p.codes.start) / 2
    }

    /// The oriented codes and penalties of read `r`.
    fn oriented(&self, r: usize, reverse: bool) -> (&[u8], &[i16]) {
        oriented_in(&self.prepared[r], reverse, &self.codes, &self.penalties)
    }

    /// Seeds, regions and extensions for reads `which`; fills their results.
    fn align_round(
        &mut self,
        reads: &[ReadInput<'_>],
        which: &[usize],
        round: Round,
        results: &mut [ReadResult],
    ) {
        self.candidates.clear();
        self.windows.clear();
        self.job_specs.clear();
        let fast_path =
            round == Round::First && self.params.fast_seed_len > 0 && self.params.report == 1;
        if fast_path {
            self.seed_tilings(which);
        }
        let mut searched = Vec::with_capacity(which.len());
        for (n, &r) in which.iter().enumerate() {
            self.prepared[r].second_bound = None;
            self.prepared[r].other_offsets = 0..0;
            if !(fast_path && self.fast_candidate(r, n)) {
                searched.push(r);
            }
        }
        let smem_search: Vec<usize> = searched
            .iter()
            .copied()
            .filter(|&r| !self.prepared[r].runner_ups_only)
            .collect();
        self.seed_all(&smem_search);
        let min_len = match round {
            Round::Rescue => self.params.rescue_seed_len,
            _ => self.params.min_seed_len,
        };
        self.find_candidates(&searched, min_len);
        self.run_jobs();
        if self.bowtie2_runner_ups() || self.params.report > 1 {
            self.align_other_offsets(which);
        }
        for &r in which {
            let mut met = std::mem::take(&mut self.prepared[r].met);
            met.clear();
            results[r] = self.conclude(r, &reads[r], &mut met);
            self.prepared[r].met = met;
        }
    }
}

/// The oriented codes and penalties of the read `p` describes, in the batch arenas
/// `codes` and `penalties`.
fn oriented_in<'a>(
    p: &Prepared,
    reverse: bool,
    codes: &'a [u8],
    penalties: &'a [i16],
) -> (&'a [u8], &'a [i16]) {
    let len = (p.codes.end - p.codes.start) / 2;
    let (c, q) = if reverse {
        (p.codes.start + len, p.penalties.start + len)
    } else {
        (p.codes.start, p.penalties.start)
    };
    (&codes[c..c + len], &penalties[q..q + len])
}

/// A hash of the read (FNV-1a of name and bases, from `seed`): picks among equally
/// good placements the same way at any thread count.
fn read_hash(read: &ReadInput<'_>, seed: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for &b in read.name.iter().chain(read.bases) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use seqfarm_fmindex::{build, BuildOptions, FmIndex, ReferenceBuilder};

    use super::fast::tests::next;
    use super::{Aligner, ReadInput, ReadResult, Unaligned};
    use crate::params::AlignParams;

    /// A read a filter drops is not prepared for a search at all, even one that would
    /// align if searched (genome bases with Ns over the ceiling).
    #[test]
    fn filtered_reads_are_not_searched() {
        let mut state = 17u64;
        let contig: Vec<u8> = (0..5000)
            .map(|_| b"ACGT"[next(&mut state, 4) as usize])
            .collect();
        let mut reference = ReferenceBuilder::new();
        reference.add_contig("c", &contig).unwrap();
        let options = BuildOptions {
            threads: 1,
            ..BuildOptions::default()
        };
        let index = FmIndex::from_image(&build(reference, &options, &mut |_| {}).unwrap()).unwrap();
        let good = contig[1000..1150].to_vec();
        let mut many_ns = contig[2000..2150].to_vec();
        many_ns[100..130].fill(b'N');
        let reads = [good, many_ns, b"A".to_vec()];
        let inputs: Vec<ReadInput> = reads
            .iter()
            .map(|bases| ReadInput {
                name: b"r",
                bases,
                qualities: None,
            })
            .collect();
        let mut aligner = Aligner::new(&index, AlignParams::default()).unwrap();
        let mut results = Vec::new();
        aligner.align_batch(&inputs, &mut results);
        assert!(matches!(results[0], ReadResult::Aligned { .. }));
        assert_eq!(results[1], ReadResult::Unaligned(Unaligned::TooManyNs));
        assert_eq!(results[2], ReadResult::Unaligned(Unaligned::TooShort));
        assert!(!aligner.prepared[0].codes.is_empty());
        assert!(aligner.prepared[1].codes.is_empty() && aligner.prepared[2].codes.is_empty());
    }
}
