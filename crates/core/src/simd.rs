//! The SIMD level of the kernels (`sw`'s search, `align`'s extension), one rule for
//! both: the best level this CPU runs, or the one `SEQFARM_SIMD=scalar|avx2|avx512`
//! names. An unknown name, or a level this CPU lacks, is an error (never a silent
//! fallback: a bug report or a test that forces a path must get that path).

use std::fmt;
use std::sync::OnceLock;

/// The environment variable that forces a level.
pub const SIMD_ENV: &str = "SEQFARM_SIMD";

/// An instruction-set level with kernel variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SimdLevel {
    /// The scalar reference (any CPU).
    Scalar,
    /// 256-bit AVX2.
    Avx2,
    /// 512-bit AVX-512F + AVX-512BW.
    Avx512,
}

/// A `SEQFARM_SIMD` value that names no level, or a level this CPU lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimdError(String);

impl fmt::Display for SimdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SimdError {}

impl SimdLevel {
    /// The most capable level this CPU runs (detected once, then cached).
    pub fn best_supported() -> SimdLevel {
        static BEST: OnceLock<SimdLevel> = OnceLock::new();
        *BEST.get_or_init(|| {
            if SimdLevel::Avx512.is_supported() {
                SimdLevel::Avx512
            } else if SimdLevel::Avx2.is_supported() {
                SimdLevel::Avx2
            } else {
                SimdLevel::Scalar
            }
        })
    }

    /// The level `SEQFARM_SIMD` asks for, or [`SimdLevel::best_supported`] when it is
    /// unset or empty. Fails on an unknown name and on a level this CPU lacks.
    pub fn from_env() -> Result<SimdLevel, SimdError> {
        match std::env::var(SIMD_ENV) {
            Ok(value) if !value.trim().is_empty() => SimdLevel::checked(&value),
            _ => Ok(SimdLevel::best_supported()),
        }
    }

    /// The level `name` names, if this CPU runs it.
    pub fn checked(name: &str) -> Result<SimdLevel, SimdError> {
        let level = name.parse::<SimdLevel>()?;
        if level.is_supported() {
            Ok(level)
        } else {
            Err(SimdError(format!(
                "{SIMD_ENV}={name} asks for {}, which this CPU lacks",
                level.describe()
            )))
        }
    }

    /// Whether this CPU runs the level.
    pub fn is_supported(self) -> bool {
        match self {
            SimdLevel::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            SimdLevel::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
            }
            #[cfg(not(target_arch = "x86_64"))]
            SimdLevel::Avx2 | SimdLevel::Avx512 => false,
        }
    }

    /// The name `SEQFARM_SIMD` takes.
    pub fn name(self) -> &'static str {
        match self {
            SimdLevel::Scalar => "scalar",
            SimdLevel::Avx2 => "avx2",
            SimdLevel::Avx512 => "avx512",
        }
    }

    /// The instruction set, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            SimdLevel::Scalar => "the scalar kernel",
            SimdLevel::Avx2 => "AVX2",
            SimdLevel::Avx512 => "AVX-512F/BW",
        }
    }
}

impl std::str::FromStr for SimdLevel {
    type Err = SimdError;

    fn from_str(s: &str) -> Result<Self, SimdError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "scalar" => Ok(SimdLevel::Scalar),
            "avx2" => Ok(SimdLevel::Avx2),
            "avx512" | "avx512bw" | "avx-512" => Ok(SimdLevel::Avx512),
            other => Err(SimdError(format!(
                "unknown {SIMD_ENV} value '{other}' (expected scalar, avx2 or avx512)"
            ))),
        }
    }
}

impl fmt::Display for SimdLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknown_names_are_errors() {
        for level in [SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512] {
            assert_eq!(level.name().parse::<SimdLevel>(), Ok(level));
        }
        assert_eq!(" AVX-512 ".parse::<SimdLevel>(), Ok(SimdLevel::Avx512));
        let e = "sse9".parse::<SimdLevel>().unwrap_err().to_string();
        assert!(e.contains("unknown SEQFARM_SIMD value 'sse9'"), "{e}");
        assert!(SimdLevel::checked("nonsense").is_err());
    }

    #[test]
    fn a_level_the_cpu_lacks_is_an_error_and_one_it_has_is_given() {
        assert_eq!(SimdLevel::checked("scalar"), Ok(SimdLevel::Scalar));
        assert!(SimdLevel::best_supported().is_supported());
        for level in [SimdLevel::Avx2, SimdLevel::Avx512] {
            let got = SimdLevel::checked(level.name());
            if level.is_supported() {
                assert_eq!(got, Ok(level));
            } else {
                let e = got.unwrap_err().to_string();
                assert!(e.contains("which this CPU lacks"), "{e}");
            }
        }
    }
}
