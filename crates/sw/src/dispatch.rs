//! Picks the kernel variant for this CPU: AVX-512BW, else AVX2, else the scalar
//! reference. The CPU is examined once and the choice cached; `SEQFARM_SIMD=scalar`,
//! `avx2` or `avx512` forces a path (for tests and bug reports), and an unknown name or
//! a path the CPU lacks is an error rather than a crash ([`SimdLevel::from_env`], the
//! rule the aligner follows too).

use seqfarm_core::SimdLevel;

use crate::inter::{Results, Scratch, StreamJob};
use crate::Error;

/// An instruction-set level with a kernel variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Isa {
    /// The scalar reference, one cell at a time (any CPU).
    Scalar,
    /// 256-bit AVX2.
    Avx2,
    /// 512-bit AVX-512F + AVX-512BW.
    Avx512,
}

/// Lane width of an inter-sequence pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Width {
    /// 8-bit lanes: exact up to score 254.
    I8,
    /// 16-bit lanes: exact up to score 65534.
    I16,
    /// 32-bit lanes: exact.
    I32,
}

impl Width {
    /// The next wider width, if any.
    pub fn wider(self) -> Option<Width> {
        match self {
            Width::I8 => Some(Width::I16),
            Width::I16 => Some(Width::I32),
            Width::I32 => None,
        }
    }

    /// The largest gap cost a lane's saturating subtraction takes in one step.
    pub(crate) fn max_cost(self) -> i32 {
        match self {
            Width::I8 => i8::MAX as i32,
            Width::I16 => i16::MAX as i32,
            Width::I32 => i32::MAX,
        }
    }
}

impl Isa {
    /// The best variant this CPU runs (detected once, then cached).
    pub fn detect() -> Isa {
        SimdLevel::best_supported().into()
    }

    /// The variant `SEQFARM_SIMD` asks for, or [`Isa::detect`] when it is unset or empty;
    /// an unknown name or a variant this CPU lacks is an error (the rule of
    /// [`SimdLevel::from_env`], which the aligner follows too).
    pub fn from_env() -> Result<Isa, Error> {
        SimdLevel::from_env()
            .map(Isa::from)
            .map_err(|e| Error::Simd(e.to_string()))
    }

    /// Whether this CPU runs the variant.
    pub fn is_supported(self) -> bool {
        SimdLevel::from(self).is_supported()
    }

    /// The name `SEQFARM_SIMD` takes.
    pub fn name(self) -> &'static str {
        SimdLevel::from(self).name()
    }

    /// Lanes per vector at `width` (1 for the scalar path).
    pub fn lanes(self, width: Width) -> usize {
        let bits = match self {
            Isa::Scalar => return 1,
            Isa::Avx2 => 256,
            Isa::Avx512 => 512,
        };
        bits / match width {
            Width::I8 => 8,
            Width::I16 => 16,
            Width::I32 => 32,
        }
    }
}

impl std::str::FromStr for Isa {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        s.parse::<SimdLevel>()
            .map(Isa::from)
            .map_err(|e| Error::Simd(e.to_string()))
    }
}

impl From<SimdLevel> for Isa {
    fn from(level: SimdLevel) -> Isa {
        match level {
            SimdLevel::Scalar => Isa::Scalar,
            SimdLevel::Avx2 => Isa::Avx2,
            SimdLevel::Avx512 => Isa::Avx512,
        }
    }
}

impl From<Isa> for SimdLevel {
    fn from(isa: Isa) -> SimdLevel {
        match isa {
            Isa::Scalar => SimdLevel::Scalar,
            Isa::Avx2 => SimdLevel::Avx2,
            Isa::Avx512 => SimdLevel::Avx512,
        }
    }
}

impl std::fmt::Display for Isa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Scores a query against lane streams with the `isa` kernel at `width`.
///
/// # Safety
/// `isa` must be supported by this CPU and not [`Isa::Scalar`]; the arguments must
/// satisfy [`crate::inter::score_streams`]'s contract for `isa.lanes(width)` lanes.
pub(crate) unsafe fn score_streams(
    isa: Isa,
    width: Width,
    job: &StreamJob<'_>,
    scratch: &mut Scratch,
    results: &mut Results<'_>,
) {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::x86::{avx2, avx512};
        match (isa, width) {
            (Isa::Avx2, Width::I8) => avx2::score_streams_i8(job, scratch, results),
            (Isa::Avx2, Width::I16) => avx2::score_streams_i16(job, scratch, results),
            (Isa::Avx2, Width::I32) => avx2::score_streams_i32(job, scratch, results),
            (Isa::Avx512, Width::I8) => avx512::score_streams_i8(job, scratch, results),
            (Isa::Avx512, Width::I16) => avx512::score_streams_i16(job, scratch, results),
            (Isa::Avx512, Width::I32) => avx512::score_streams_i32(job, scratch, results),
            (Isa::Scalar, _) => unreachable!("the scalar path has no lane streams"),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, width, job, scratch, results);
        unreachable!("SIMD paths exist only on x86_64")
    }
}
