//! Plain genomics types shared by seqfarm's kernels (index, aligner, ...).
//!
//! * [`nucleotide`]: the 2-bit code of A/C/G/T (`A=0, C=1, G=2, T=3`, so the complement
//!   of `c` is `3 - c`), IUPAC letters, reverse complement of letters and of codes;
//! * [`packed`]: [`PackedSeq`] (owned) and [`PackedBases`] (borrowed), 2 bits per base,
//!   32 bases per little-endian `u64`; [`AmbiguityMask`], the sorted runs of positions
//!   holding a letter other than A/C/G/T (N runs, IUPAC codes), which the packed bases
//!   cannot represent; [`Reference`], both together: what an aligner reads a reference
//!   window from.
//! * [`Strand`]: forward or reverse complement;
//! * [`cigar`]: [`CigarOp`] (SAM letters, BAM codes), [`BamCigar`] (a CIGAR as BAM
//!   stores it, borrowed) and [`Cigar`] (owned, built by the aligner);
//! * [`flags`]: the SAM FLAG bits;
//! * [`simd`]: [`SimdLevel`], the kernels' instruction-set level, detected once or forced
//!   with `SEQFARM_SIMD` (one rule for every kernel crate).
//!
//! Nothing here allocates behind the caller's back or touches a file.
#![forbid(unsafe_code)]

pub mod cigar;
pub mod flags;
pub mod nucleotide;
pub mod packed;
pub mod simd;

pub use cigar::{BamCigar, Cigar, CigarOp};
pub use nucleotide::{Strand, AMBIGUOUS};
pub use packed::{AmbiguityMask, AmbiguityRun, PackedBases, PackedSeq, Reference};
pub use simd::{SimdError, SimdLevel};
