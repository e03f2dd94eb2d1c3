//! The alignment kernel of `seqfarm align`: short reads against an FM-indexed genome,
//! scored exactly as bowtie2 scores them.
//!
//! * [`scoring`]: bowtie2's scoring scheme (quality-aware mismatches, N, affine gaps,
//!   local match bonus, minimum-score functions);
//! * [`dp`]: banded end-to-end and local extension with a traceback, one job per SIMD
//!   lane (AVX-512BW, AVX2) or the scalar reference;
//! * [`cigar`]: CIGAR operations, the `MD` tag and edit distance;
//! * [`seed`], [`chain`]: SMEM seeds with re-seeding, located as anchors and grouped
//!   into candidate regions;
//! * [`candidate`]: a region's reference window, the ungapped shortcut, the placement;
//! * [`mapq`]: mapping quality;
//! * [`aligner`]: a batch of reads end to end ([`Aligner::align_batch`]);
//! * [`pair`]: paired-end alignment (concordance, mate rescue, pair choice);
//! * [`params`]: parameters and presets.

pub mod aligner;
pub mod candidate;
pub mod chain;
pub mod cigar;
pub mod dp;
pub mod mapq;
pub mod pair;
pub mod params;
pub mod scoring;
pub mod seed;

pub use aligner::{
    Aligner, ReadInput, ReadResult, Unaligned, MAX_READ_LEN, QUALITY_WITHOUT_QUALITIES,
};
pub use candidate::Placement;
pub use pair::{MateOrientation, PairClass, PairInput, PairParams, PairResult};
pub use params::{AlignParams, Preset};
pub use scoring::{AlignMode, Scoring};
