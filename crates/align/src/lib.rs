//! The alignment kernel of `seqfarm align`: short reads against an FM-indexed genome,
//! scored exactly as bowtie2 scores them.
//!
//! * [`scoring`]: bowtie2's scoring scheme (quality-aware mismatches, N, affine gaps,
//!   local match bonus, minimum-score functions);
//! * [`dp`]: banded end-to-end and local extension with a traceback, one job per SIMD
//!   lane (AVX-512BW, AVX2) or the scalar reference;
//! * [`cigar`]: CIGAR operations, the `MD` tag and edit distance.

pub mod cigar;
pub mod dp;
pub mod scoring;
