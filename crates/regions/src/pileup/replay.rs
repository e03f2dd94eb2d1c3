//! Replaying the pileup over a task's sites from a little before them, widened until
//! nothing outside the replay can change its results.
//!
//! A task's sites are grouped into clusters (sites at most [`CLUSTER_GAP`] apart; with
//! pseudo-SNPs, the task's whole range). Each cluster is replayed from [`LOOKBACK`]
//! bases before it to [`MARGIN`] bases after it. If a read whose fate the replay cannot
//! know reaches into the cluster, or two reads of a name whose overlap rewrite is unknown
//! meet at a counted position, the replay starts again from further back (a contig start
//! leaves nothing unknown). If the covered position after a site lies beyond the replay,
//! the replay reads further forward (a contig end settles it).
//!
//! The reads come from a [`ReadSource`], the caller's indexed files: this module opens no
//! file. [`Replayer`] replays a task's sites and reports, per site, its counts and the
//! next covered positions ([`ReplayFindings`]); [`ContigProbe`] finds the first covered
//! position of the contigs after one, replaying each from its start.

use std::ops::ControlFlow;

use super::engine::EngineError;
use super::visit::Next;
use super::AlignedRead;

mod clusters;
mod contig;

pub use clusters::Replayer;
pub use contig::ContigProbe;

/// Sites further apart than this are replayed separately: reading the stretch between
/// them would cost more than starting a replay again.
pub const CLUSTER_GAP: i64 = 20_000;
/// Bases replayed before a cluster at first.
pub const LOOKBACK: i64 = 2_000;
/// Bases replayed after a cluster's last site at first.
pub const MARGIN: i64 = 512;
/// How far reads may reach past the end of their contig.
pub const OVERHANG: i64 = 1 << 20;

/// Where a replay gets its reads: coordinate-sorted, indexed alignment files over one
/// set of reference sequences, read through their indexes.
pub trait ReadSource {
    /// What reading a file fails with.
    type Error;

    /// The number of files.
    fn files(&self) -> usize;

    /// The number of reference sequences (contigs).
    fn contigs(&self) -> usize;

    /// The length of contig `ref_id` (0 when the files have no header).
    fn contig_len(&self, ref_id: i32) -> i64;

    /// Calls `visit` with the reads of file `file` that its index lists for the 1-based
    /// positions `first..=last` of contig `ref_id` (clamped to what the index can
    /// address), in file order, until `visit` breaks.
    fn for_each_read<F>(
        &mut self,
        file: usize,
        ref_id: i32,
        first: i64,
        last: i64,
        visit: F,
    ) -> Result<(), Self::Error>
    where
        F: FnMut(SourceRead<'_>) -> ControlFlow<()>;

    /// The error for a read of file `file` the pileup cannot take (out of order, or an
    /// overlap htslib stops at), naming the file.
    fn refused(&self, file: usize, error: EngineError) -> Self::Error;

    /// Says that every file's reads of contig `ref_id` between two 0-based positions are
    /// about to be read (a source may load them ahead). Does nothing by default.
    fn prefetch(&self, _ref_id: i32, _from: i64, _to: i64) {}

    /// Says that every file's reads of contig `ref_id` between two 0-based positions are
    /// done with (a source may drop them from memory). Does nothing by default.
    fn release(&self, _ref_id: i32, _from: i64, _to: i64) {}
}

/// One read as a [`ReadSource`] hands it over: its place and mapping quality, which the
/// read filter looks at, and the fields the pileup uses.
#[derive(Debug, Clone, Copy)]
pub struct SourceRead<'a> {
    /// Reference index (`-1`: unplaced).
    pub ref_id: i32,
    /// Mapping quality.
    pub mapq: u8,
    /// The fields the pileup uses.
    pub read: AlignedRead<'a>,
}

/// What a replay found about a task's sites on its files, for snp-pileup's walk: per site
/// on a contig of the files (in site order), the next covered positions and the counts,
/// and with pseudo-SNPs the covered pseudo-SNP positions.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ReplayFindings {
    /// Per site: the first covered position at or after it, and after it.
    pub nexts: Vec<(Next, Next)>,
    /// Per site and per file: `[R, A, E, D, depth]`.
    pub counts: Vec<[u32; 5]>,
    /// Covered pseudo-SNP positions found, in order.
    pub pseudo: Vec<i64>,
    /// Per position of `pseudo` and per file: `[counted, depth]`.
    pub pseudo_counts: Vec<[u32; 2]>,
}

impl ReplayFindings {
    /// Empties the findings, keeping the allocations.
    pub fn clear(&mut self) {
        self.nexts.clear();
        self.counts.clear();
        self.pseudo.clear();
        self.pseudo_counts.clear();
    }
}

/// A replayer's work, summed over its tasks (for a command's `--verbose`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ReplayStats {
    /// Clusters replayed.
    pub clusters: u64,
    /// Replays started again from further back.
    pub widened_back: u64,
    /// Replays continued further forward.
    pub widened_forward: u64,
}

impl std::ops::AddAssign for ReplayStats {
    fn add_assign(&mut self, other: Self) {
        self.clusters += other.clusters;
        self.widened_back += other.widened_back;
        self.widened_forward += other.widened_forward;
    }
}

#[cfg(test)]
mod tests;
