//! Region statistics kernels: the per-record work of BAM analytics, free of IO.
//!
//! Kernels take plain fields (a FLAG, reference indices, a mapping quality) and keep
//! their totals in plain structs that each worker owns and the collector adds up
//! (`AddAssign`): no shared counters, no atomics on the hot path. Readers, rings and
//! files stay in `seqfarm-io` and the command library (`seqfarm`).
//!
//! * [`flagstat`]: [`FlagCounts`], the counts of `samtools flagstat` (1.13 and later)
//!   split by QC pass/fail, and its three output formats byte for byte.
//! * [`pileup`]: FACETS snp-pileup's allele counts on htslib 1.16's pileup, replayed
//!   range by range with the same results.
//! * [`count`]: reads per region as bedtools multicov counts them.
//! * [`depth`]: per-base depth and its region statistics as mosdepth 0.3 computes them.
//! * [`markdup`]: duplicate marking and its metrics as Picard MarkDuplicates 2.27 does it.
#![forbid(unsafe_code)]

pub mod count;
pub mod depth;
pub mod flagstat;
pub mod markdup;
pub mod pileup;

pub use flagstat::{FlagCounts, FlagstatFormat};
/// SAM FLAG bits the kernels look at.
pub use seqfarm_core::flags;
