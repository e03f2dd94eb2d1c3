//! The sampled suffix array and the `LF` walk that recovers any suffix-array value.
//!
//! Rows `i` with `i % rate == 0` keep `SA[i]` (32-bit when the text is shorter than
//! 2^32, else 64-bit); separator rows keep theirs in the separator table. Any other row
//! walks `LF` until it reaches one of those: `SA[i] = SA[j] + steps`. The walk takes
//! `rate - 1` steps on average (one cache miss each), so locating one occurrence costs
//! O(rate) and the samples take `4·n/rate` (or `8·n/rate`) bytes.

use crate::occ::prefetch;
#[cfg(test)]
use crate::occ::Bwt;

/// A suffix-array value stored in the samples: `u32` for texts under 2^32, else `u64`.
pub(crate) trait Sample: Copy + Default + Send + Sync + bytemuck::Pod {
    /// Converts a value known to fit.
    fn from_u64(value: u64) -> Self;
}

impl Sample for u32 {
    #[inline]
    fn from_u64(value: u64) -> Self {
        value as u32
    }
}

impl Sample for u64 {
    #[inline]
    fn from_u64(value: u64) -> Self {
        value
    }
}

/// The samples, as stored.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Samples<'a> {
    /// 32-bit values.
    Narrow(&'a [u32]),
    /// 64-bit values.
    Wide(&'a [u64]),
}

impl Samples<'_> {
    /// Sample `k` (the value of row `k * rate`).
    #[inline]
    pub fn get(&self, k: usize) -> Option<u64> {
        match self {
            Samples::Narrow(s) => s.get(k).map(|&v| u64::from(v)),
            Samples::Wide(s) => s.get(k).copied(),
        }
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        match self {
            Samples::Narrow(s) => s.len(),
            Samples::Wide(s) => s.len(),
        }
    }

    /// Starts loading sample `k` (batched walks overlap their cache misses this way).
    #[inline(always)]
    pub fn prefetch(&self, k: usize) {
        match self {
            Samples::Narrow(s) => {
                if let Some(v) = s.get(k) {
                    prefetch(v)
                }
            }
            Samples::Wide(s) => {
                if let Some(v) = s.get(k) {
                    prefetch(v)
                }
            }
        }
    }
}

/// The sampled suffix array with its sampling rate.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SampledSa<'a> {
    pub samples: Samples<'a>,
    /// A power of two (the build and the load both check it).
    pub rate: u64,
}

impl SampledSa<'_> {
    /// The index of row `row`'s sample, if the row keeps one: a mask and a shift, as
    /// the rate is a power of two (a division by a rate known only at run time costs
    /// tens of cycles, and the suffix-array walk asks at every step).
    #[inline(always)]
    pub fn sample_at(&self, row: u64) -> Option<usize> {
        (row & (self.rate - 1) == 0).then(|| (row >> self.rate.trailing_zeros()) as usize)
    }

    /// `SA[row]`, the text position of row `row`'s suffix, one row at a time: the
    /// reference for the batched walk. O(rate) expected. `None` only for an inconsistent
    /// (damaged) index.
    #[cfg(test)]
    pub fn value(&self, bwt: &Bwt<'_>, mut row: u64) -> Option<u64> {
        let limit = bwt.len();
        let mut steps = 0u64;
        while steps <= limit {
            if row.is_multiple_of(self.rate) {
                return self
                    .samples
                    .get((row / self.rate) as usize)
                    .map(|v| v + steps);
            }
            match bwt.lf(row) {
                Some(next) => row = next,
                None => return bwt.dollar_sa(row).map(|v| v + steps),
            }
            steps += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rows_keeping_a_sample_are_the_multiples_of_the_rate() {
        for rate in [1u64, 2, 8, 32, 256] {
            let sa = SampledSa {
                samples: Samples::Narrow(&[]),
                rate,
            };
            for row in 0..2_000u64 {
                let expected = row.is_multiple_of(rate).then(|| (row / rate) as usize);
                assert_eq!(sa.sample_at(row), expected, "rate {rate}, row {row}");
            }
        }
    }
}
