//! Smith-Waterman local alignment for protein (and DNA) database search.
//!
//! The layers, from the inside out:
//!
//! * [`ScoreMatrix`] and [`Scoring`]: substitution matrices (the classic NCBI BLOSUM and
//!   PAM files built in, any NCBI-format file, DNA match/mismatch) and affine gaps in
//!   BLAST's convention;
//! * [`scalar::score`]: the plain Gotoh reference every other path is tested against;
//! * the inter-sequence SIMD kernel (SWIPE style: each vector lane a different database
//!   sequence, scores looked up with byte shuffles), written once over a lane trait and
//!   instantiated for AVX2 and AVX-512BW at 8, 16 and 32 bits (`x86/avx2.rs`,
//!   `x86/avx512.rs`), chosen at run time by [`Isa`] (`dispatch.rs`);
//! * [`Searcher`]: a worker's engine that scores a query against a [`SequenceBlock`] of
//!   database sequences with 8-bit lanes, rescoring only overflowed sequences at 16 and
//!   then 32 bits;
//! * [`gpu`]: the same scores on an NVIDIA GPU (CUDA loaded at run time), a
//!   [`gpu::GpuSearcher`] per worker;
//! * [`align()`]: the traceback for reported hits (coordinates, identities, gaps), its
//!   end and start found by a striped (Farrar) AVX2 kernel (`striped.rs`), and
//!   [`stats`]: bit scores and E-values from BLAST's Karlin-Altschul tables.
//!
//! Kernels take slices and plain types; reading files and running threads is the
//! caller's business.

// The SIMD kernels and the buffers and constants they alone use are x86-64 code; on
// other CPUs the scalar reference scores everything and they are never called.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

pub mod align;
mod block;
mod buffers;
pub mod dispatch;
pub mod gpu;
mod inter;
pub mod matrix;
pub mod scalar;
mod scoring;
mod search;
pub mod stats;
mod striped;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use align::{align, align_on, Alignment};
pub use block::SequenceBlock;
pub use dispatch::{Isa, Width};
pub use matrix::ScoreMatrix;
pub use scoring::Scoring;
pub use search::{PassCounts, Searcher};

/// `line N: `, or nothing for line 0 (a problem of the whole matrix).
fn line_prefix(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!("line {line}: ")
    }
}

/// What can go wrong in this crate: bad parameters, never bad sequences (every byte
/// scores as some matrix symbol).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A substitution matrix could not be read or parsed.
    #[error("matrix {name}: {}{message}", line_prefix(*line))]
    Matrix {
        /// The matrix name or file.
        name: String,
        /// 1-based line (0 when the problem is not on one line).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Gap costs or scores out of range.
    #[error("{0}")]
    Scoring(String),
    /// A SIMD path was asked for that this CPU lacks, or was misnamed.
    #[error("{0}")]
    Simd(String),
}
