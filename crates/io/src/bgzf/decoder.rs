//! The deflate libraries behind [`Inflater`](super::Inflater): libdeflate, and with the
//! `isal` feature ISA-L and the adaptive choice between the two.

/// The deflate library that inflates BGZF blocks. Which one inflates a block never
/// changes its bytes (each output is checked against the block's CRC32 and size); it
/// changes only the speed, and which is faster depends on the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InflateBackend {
    /// libdeflate (always built in).
    Libdeflate,
    /// ISA-L (with the `isal` feature).
    #[cfg(feature = "isal")]
    Isal,
    /// Both, each block going to whichever has lately been the faster on this data (with
    /// the `isal` feature; see [`Inflater`](super::Inflater)).
    #[cfg(feature = "isal")]
    Adaptive,
}

impl Default for InflateBackend {
    /// Adaptive where ISA-L is built in, otherwise libdeflate.
    fn default() -> Self {
        #[cfg(feature = "isal")]
        return Self::Adaptive;
        #[cfg(not(feature = "isal"))]
        return Self::Libdeflate;
    }
}

/// One back end's decoder state.
pub(super) enum Decoder {
    Libdeflate(LibdeflateDecoder),
    #[cfg(feature = "isal")]
    Isal(IsalDecoder),
    #[cfg(feature = "isal")]
    Adaptive(Box<AdaptiveDecoder>),
}

impl Decoder {
    pub(super) fn new(backend: InflateBackend) -> Self {
        match backend {
            InflateBackend::Libdeflate => Self::Libdeflate(LibdeflateDecoder::new()),
            #[cfg(feature = "isal")]
            InflateBackend::Isal => Self::Isal(IsalDecoder::new()),
            #[cfg(feature = "isal")]
            InflateBackend::Adaptive => Self::Adaptive(Box::new(AdaptiveDecoder::new())),
        }
    }

    pub(super) fn decode(
        &mut self,
        cdata: &[u8],
        dest: &mut [u8],
    ) -> Result<(usize, u32), DecodeFailure> {
        match self {
            Self::Libdeflate(d) => d.decode(cdata, dest),
            #[cfg(feature = "isal")]
            Self::Isal(d) => d.decode(cdata, dest),
            #[cfg(feature = "isal")]
            Self::Adaptive(d) => d.decode(cdata, dest),
        }
    }
}

/// Timed pairs of neighbouring blocks (one per back end) in a trial.
#[cfg(feature = "isal")]
const TRIAL_PAIRS: usize = 12;
/// Blocks inflated by the trial's winner before the next trial.
#[cfg(feature = "isal")]
const SETTLED_BLOCKS: u32 = 2048;
/// Blocks inflating to fewer bytes are not timed (too short to time well).
#[cfg(feature = "isal")]
const TIMED_BLOCK_MIN: usize = 4096;

/// libdeflate and ISA-L side by side. Neither is faster on every BAM (ISA-L on our
/// sequencing BAMs, libdeflate by 15 % on one whose reads lack SEQ/QUAL; see
/// BENCHMARKS.md), so a trial inflates neighbouring blocks in pairs, one with each, and
/// times both per inflated byte; the one that wins the median pair takes the next
/// [`SETTLED_BLOCKS`] blocks, then another trial follows (the data can change along a
/// file). Comparing neighbours, whose data are alike, keeps the block-to-block spread of
/// speeds (about 15 % on one BAM) out of the comparison.
#[cfg(feature = "isal")]
pub(super) struct AdaptiveDecoder {
    libdeflate: LibdeflateDecoder,
    isal: IsalDecoder,
    /// Blocks left before the next trial; 0 while a trial runs.
    settled_left: u32,
    use_isal: bool,
    /// In a trial: libdeflate's nanoseconds per KiB on the block before, awaiting ISA-L's
    /// on this one.
    paired_with: Option<u64>,
    /// ISA-L's time over libdeflate's, in thousandths, for each pair of the trial.
    ratios: Vec<u64>,
}

#[cfg(feature = "isal")]
impl AdaptiveDecoder {
    fn new() -> Self {
        Self {
            libdeflate: LibdeflateDecoder::new(),
            isal: IsalDecoder::new(),
            settled_left: 0,
            use_isal: false,
            paired_with: None,
            ratios: Vec::with_capacity(TRIAL_PAIRS),
        }
    }

    fn decode(&mut self, cdata: &[u8], dest: &mut [u8]) -> Result<(usize, u32), DecodeFailure> {
        if self.settled_left > 0 {
            self.settled_left -= 1;
            return if self.use_isal {
                self.isal.decode(cdata, dest)
            } else {
                self.libdeflate.decode(cdata, dest)
            };
        }
        let isal_turn = self.paired_with.is_some();
        let start = std::time::Instant::now();
        let result = if isal_turn {
            self.isal.decode(cdata, dest)
        } else {
            self.libdeflate.decode(cdata, dest)
        };
        let nanos = start.elapsed().as_nanos();
        let per_kib = match result {
            Ok((n, _)) if n >= TIMED_BLOCK_MIN => u64::try_from(nanos * 1024 / n as u128)
                .unwrap_or(u64::MAX)
                .max(1),
            // Untimed: a pair must be two timed neighbours, so start the pair again.
            _ => {
                self.paired_with = None;
                return result;
            }
        };
        match self.paired_with.take() {
            None => self.paired_with = Some(per_kib),
            Some(libdeflate) => {
                self.ratios.push(per_kib.saturating_mul(1000) / libdeflate);
                if self.ratios.len() == TRIAL_PAIRS {
                    self.settle();
                }
            }
        }
        result
    }

    /// Ends a trial: ISA-L takes over if it was the faster in the median pair.
    fn settle(&mut self) {
        self.ratios.sort_unstable();
        self.use_isal = self.ratios[self.ratios.len() / 2] < 1000;
        self.ratios.clear();
        self.settled_left = SETTLED_BLOCKS;
    }
}

/// Why a block's deflate stream did not decode into its stated size.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum DecodeFailure {
    /// More output than the footer's ISIZE.
    TooLong,
    /// Not a valid deflate stream.
    Corrupt,
}

/// libdeflate's whole-buffer decoder. Also the CRC32 of both decoders: libdeflate's uses
/// VPCLMULQDQ where the CPU has it, twice as fast here as ISA-L's own.
pub(super) struct LibdeflateDecoder(libdeflater::Decompressor);

impl LibdeflateDecoder {
    fn new() -> Self {
        Self(libdeflater::Decompressor::new())
    }

    /// Inflates `cdata` into `dest`; returns the output length and its CRC32.
    fn decode(&mut self, cdata: &[u8], dest: &mut [u8]) -> Result<(usize, u32), DecodeFailure> {
        let n = self
            .0
            .deflate_decompress(cdata, dest)
            .map_err(|e| match e {
                libdeflater::DecompressionError::InsufficientSpace => DecodeFailure::TooLong,
                libdeflater::DecompressionError::BadData => DecodeFailure::Corrupt,
            })?;
        Ok((n, libdeflater::crc32(&dest[..n])))
    }
}

/// ISA-L's stateless decoder (Debian's libisal; its `inflate_state` layout is checked
/// against the bindings in `isal_state_layout_matches_the_library`).
#[cfg(feature = "isal")]
pub(super) struct IsalDecoder(Box<isal::isal_sys::igzip_lib::inflate_state>);

// SAFETY: the state holds raw pointers only while `decode` runs; between calls it is
// plain data owned by this value.
#[cfg(feature = "isal")]
#[allow(unsafe_code)]
unsafe impl Send for IsalDecoder {}

#[cfg(feature = "isal")]
#[allow(unsafe_code)]
impl IsalDecoder {
    fn new() -> Self {
        use isal::isal_sys::igzip_lib as ffi;
        let mut state = Box::new(std::mem::MaybeUninit::<ffi::inflate_state>::uninit());
        // SAFETY: isal_inflate_init writes every field ISA-L reads; the pointer is to a
        // live, aligned allocation of the right type, which is then owned as initialised.
        let state = unsafe {
            ffi::isal_inflate_init(state.as_mut_ptr());
            Box::from_raw(Box::into_raw(state).cast::<ffi::inflate_state>())
        };
        Self(state)
    }

    /// Inflates `cdata` into `dest`; returns the output length and its CRC32.
    fn decode(&mut self, cdata: &[u8], dest: &mut [u8]) -> Result<(usize, u32), DecodeFailure> {
        use isal::isal_sys::igzip_lib as ffi;
        let state = &mut *self.0;
        // SAFETY: the state was initialised by isal_inflate_init; reset keeps it valid.
        unsafe { ffi::isal_inflate_reset(state) };
        state.crc_flag = 0;
        state.next_in = cdata.as_ptr().cast_mut();
        state.avail_in = u32::try_from(cdata.len()).map_err(|_| DecodeFailure::Corrupt)?;
        state.next_out = dest.as_mut_ptr();
        state.avail_out = u32::try_from(dest.len()).map_err(|_| DecodeFailure::TooLong)?;
        // SAFETY: next_in/avail_in describe `cdata` (only read) and next_out/avail_out
        // describe `dest`; both outlive the call, after which ISA-L keeps no pointer used.
        let ret = unsafe { ffi::isal_inflate_stateless(state) };
        match ret {
            r if r == ffi::ISAL_DECOMP_OK as i32 => {
                let n = state.total_out as usize;
                Ok((n, libdeflater::crc32(&dest[..n])))
            }
            r if r == ffi::ISAL_OUT_OVERFLOW as i32 => Err(DecodeFailure::TooLong),
            _ => Err(DecodeFailure::Corrupt),
        }
    }
}

#[cfg(test)]
#[cfg(feature = "isal")]
mod tests {
    use super::*;
    use crate::bgzf::tests::bgzf;
    use crate::bgzf::{InflateBuffer, Inflater};
    use proptest::prelude::*;
    use std::io::Write;

    fn deflate(data: &[u8], level: u32) -> Vec<u8> {
        let mut enc =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(level));
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    proptest! {
        #[test]
        fn agrees_with_libdeflate(
            data in proptest::collection::vec(0u8..6, 0..=65_536),
            level in 0u32..=9,
            damage in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 0..3),
        ) {
            let mut cdata = deflate(&data, level);
            for (at, flip) in damage {
                let k = at.index(cdata.len());
                cdata[k] ^= flip;
            }
            // What a BGZF reader accepts: the footer's size and CRC32 (of the
            // undamaged data) must match. On damaged streams the two libraries may
            // stop at different points, but never may one accept what the other
            // rejects, nor accept anything but the original bytes.
            let crc = libdeflater::crc32(&data);
            let accepts = |r: Result<(usize, u32), DecodeFailure>| {
                matches!(r, Ok((n, c)) if n == data.len() && c == crc)
            };
            let mut a = vec![0; data.len()];
            let mut b = vec![0; data.len()];
            let by_libdeflate = accepts(LibdeflateDecoder::new().decode(&cdata, &mut a));
            let by_isal = accepts(IsalDecoder::new().decode(&cdata, &mut b));
            prop_assert_eq!(by_libdeflate, by_isal);
            if by_isal {
                prop_assert_eq!(&a, &data);
                prop_assert_eq!(&b, &data);
            }
        }
    }

    /// The adaptive inflater gives the file's bytes through trials and settled runs
    /// alike, on blocks of two kinds of data.
    #[test]
    fn adaptive_inflates_every_block() {
        let blocks = 2 * (2 * TRIAL_PAIRS + SETTLED_BLOCKS as usize) + 5;
        let data: Vec<u8> = (0..blocks * TIMED_BLOCK_MIN)
            .map(|i| {
                let x = (i as u32).wrapping_mul(2_654_435_761) >> 7;
                if (i / 100_000) % 2 == 0 {
                    b"ACGT"[(x & 3) as usize]
                } else {
                    x as u8
                }
            })
            .collect();
        let file = bgzf(&data, TIMED_BLOCK_MIN);
        let mut inflater = Inflater::with_backend(InflateBackend::Adaptive);
        let mut out = InflateBuffer::new();
        let n = inflater.inflate_blocks(&file, 0, &mut out).unwrap();
        assert_eq!(n, blocks + 1);
        assert!(out.as_slice() == data.as_slice());
    }

    /// A trial goes by its median pair: one slow outlier does not decide it.
    #[test]
    fn trial_goes_by_the_median_pair() {
        let mut d = AdaptiveDecoder::new();
        d.ratios = vec![930; TRIAL_PAIRS];
        d.ratios[0] = 5000;
        d.settle();
        assert!(d.use_isal);
        assert_eq!(d.settled_left, SETTLED_BLOCKS);
        assert!(d.ratios.is_empty());
        d.ratios = vec![1200; TRIAL_PAIRS];
        d.ratios[3] = 100;
        d.settle();
        assert!(!d.use_isal);
    }

    /// The bindings' `inflate_state` must be the installed library's: ISA-L writes
    /// the whole struct, so a larger C struct would overrun the allocation.
    #[test]
    fn isal_state_layout_matches_the_library() {
        use isal::isal_sys::igzip_lib::inflate_state;
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("layout.c");
        std::fs::write(
            &src,
            r#"#include <stdio.h>
#include <stddef.h>
#include <isa-l/igzip_lib.h>
#define F(f) (unsigned long) offsetof(struct inflate_state, f)
int main(void) {
  printf("%lu %lu %lu %lu %lu %lu %lu %lu\n", (unsigned long) sizeof(struct inflate_state),
     F(next_out), F(avail_out), F(total_out), F(next_in), F(avail_in), F(crc_flag), F(crc));
  return 0;
}
"#,
        )
        .unwrap();
        let exe = dir.path().join("layout");
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let built = std::process::Command::new(&cc)
            .arg(&src)
            .arg("-o")
            .arg(&exe)
            .status()
            .unwrap();
        assert!(
            built.success(),
            "{cc} could not compile against isa-l/igzip_lib.h"
        );
        let out = std::process::Command::new(&exe).output().unwrap();
        let c: Vec<usize> = String::from_utf8(out.stdout)
            .unwrap()
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        let rust = vec![
            std::mem::size_of::<inflate_state>(),
            std::mem::offset_of!(inflate_state, next_out),
            std::mem::offset_of!(inflate_state, avail_out),
            std::mem::offset_of!(inflate_state, total_out),
            std::mem::offset_of!(inflate_state, next_in),
            std::mem::offset_of!(inflate_state, avail_in),
            std::mem::offset_of!(inflate_state, crc_flag),
            std::mem::offset_of!(inflate_state, crc),
        ];
        assert_eq!(c, rust);
    }
}
