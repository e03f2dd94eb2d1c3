//! Building the index: text, suffix array (libsais), BWT blocks and samples, k-mer table.
//!
//! Memory is the constraint (`n` = indexed bases, the text has `2n` characters):
//! 1. the text `X · revcomp(X)`, one byte per character (`2n`), is built from the packed
//!    reference and handed to libsais, which writes the suffix array (`8n` with 32-bit
//!    values, `16n` with 64-bit ones, needed past 2^31 characters);
//! 2. the text is dropped and replaced by `X` alone at 4 bits per character (`n/2`): the
//!    symbol before a suffix is read from it (the second half is its mirror image);
//! 3. one pass over the suffix array, split between threads at block boundaries, writes
//!    the BWT blocks (`2n/3`), the samples (`8n/rate`) and the separator rows;
//! 4. the suffix array is dropped, block counts are summed, the k-mer table is filled.
//!
//! Peak: about `10.25n` bytes (32-bit) plus the packed reference (`n/4`).

use seqfarm_core::{AmbiguityMask, PackedSeq};

use crate::error::BuildError;
use crate::kmer::{self, MAX_KMER_LEN};
use crate::occ::{finish_counts, BlockWriter, Bwt, DollarRow, OccBlock, ROWS_PER_BLOCK};
use crate::reference::{Layout, ReferenceBuilder};
use crate::sa::Sample;

/// Default suffix-array sampling rate (see BENCHMARKS.md for the measurement).
pub const DEFAULT_SA_RATE: u32 = 16;

/// Parameters of an index build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildOptions {
    /// Keep `SA[i]` for every `sa_rate`-th row (a power of two, 1..=256).
    pub sa_rate: u32,
    /// Length of the k-mer table's strings (`1..=13`); `None` picks one from the
    /// genome size ([`kmer::default_kmer_len`]).
    pub kmer_len: Option<u32>,
    /// Threads for the passes after the suffix sort (the sort itself is sequential).
    pub threads: usize,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            sa_rate: DEFAULT_SA_RATE,
            kmer_len: None,
            threads: 1,
        }
    }
}

/// The build steps, reported to a progress callback as each one starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildStage {
    /// Laying out the text.
    Text,
    /// Sorting suffixes.
    SuffixArray,
    /// Writing the BWT and samples.
    Bwt,
    /// Filling the k-mer table.
    KmerTable,
}

impl BuildStage {
    /// A short description for progress displays.
    pub fn describe(self) -> &'static str {
        match self {
            BuildStage::Text => "laying out the text",
            BuildStage::SuffixArray => "sorting suffixes",
            BuildStage::Bwt => "writing the BWT and suffix-array samples",
            BuildStage::KmerTable => "filling the k-mer table",
        }
    }
}

/// Samples as built.
pub(crate) enum OwnedSamples {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

/// A built index, in memory, before it is written or loaded.
pub struct IndexImage {
    pub(crate) layout: Layout,
    pub(crate) bases: PackedSeq,
    pub(crate) mask: AmbiguityMask,
    pub(crate) blocks: Vec<OccBlock>,
    pub(crate) supers: Vec<u64>,
    pub(crate) dollars: Vec<DollarRow>,
    pub(crate) c: [u64; 5],
    pub(crate) samples: OwnedSamples,
    pub(crate) sa_rate: u32,
    pub(crate) kmers: Vec<u64>,
    pub(crate) kmer_len: u32,
}

/// Builds the index of `reference`; `progress` hears of each stage as it starts.
pub fn build(
    reference: ReferenceBuilder,
    options: &BuildOptions,
    progress: &mut dyn FnMut(BuildStage),
) -> Result<IndexImage, BuildError> {
    let rate = options.sa_rate;
    if !(1..=256).contains(&rate) || !rate.is_power_of_two() {
        return Err(BuildError::Option(format!(
            "suffix-array sampling rate {rate} is not a power of two in 1..=256"
        )));
    }
    let ReferenceBuilder {
        layout,
        bases,
        mask,
        ..
    } = reference;
    if layout.fragments.is_empty() {
        return Err(BuildError::NoBases);
    }
    let n = layout.text_len();
    let kmer_len = options
        .kmer_len
        .unwrap_or_else(|| kmer::default_kmer_len(n));
    if !(1..=MAX_KMER_LEN).contains(&kmer_len) {
        return Err(BuildError::Option(format!(
            "k-mer table length {kmer_len} is not in 1..={MAX_KMER_LEN}"
        )));
    }
    if n >= 1 << 40 || usize::try_from(n).is_err() {
        return Err(BuildError::TooLarge(n));
    }
    let threads = options.threads.clamp(1, 256);
    progress(BuildStage::Text);
    let text = full_text(&layout, &bases);
    progress(BuildStage::SuffixArray);
    let (blocks, dollars, samples) = if n <= i32::MAX as u64 {
        let sa = suffix_array::<i32>(text)?;
        progress(BuildStage::Bwt);
        let x = forward_nibbles(&layout, &bases);
        bwt_pass::<i32, u32>(&sa, &x, layout.half_len, u64::from(rate), threads)
            .map_samples(OwnedSamples::Narrow)
    } else {
        let sa = suffix_array::<i64>(text)?;
        progress(BuildStage::Bwt);
        let x = forward_nibbles(&layout, &bases);
        if n < u64::from(u32::MAX) {
            bwt_pass::<i64, u32>(&sa, &x, layout.half_len, u64::from(rate), threads)
                .map_samples(OwnedSamples::Narrow)
        } else {
            bwt_pass::<i64, u64>(&sa, &x, layout.half_len, u64::from(rate), threads)
                .map_samples(OwnedSamples::Wide)
        }
    };
    let mut blocks = blocks;
    let (supers, totals) = finish_counts(&mut blocks);
    let mut c = [0u64; 5];
    // Rows before the A suffixes: the empty suffix and the 2m separator suffixes.
    c[0] = 1 + 2 * layout.fragments.len() as u64;
    for k in 0..4 {
        c[k + 1] = c[k] + totals[k];
    }
    debug_assert_eq!(c[4], n + 1);
    progress(BuildStage::KmerTable);
    let bwt = Bwt {
        blocks: &blocks,
        supers: &supers,
        dollars: &dollars,
        c,
    };
    let kmers = kmer::build_table(&bwt, kmer_len);
    Ok(IndexImage {
        layout,
        bases,
        mask,
        blocks,
        supers,
        dollars,
        c,
        samples,
        sa_rate: rate,
        kmers,
        kmer_len,
    })
}

/// Calls `f(position, symbol)` for the forward half `X` (0 = separator, 1..=4 = A..T).
fn for_each_forward_symbol(layout: &Layout, bases: &PackedSeq, mut f: impl FnMut(u64, u8)) {
    let packed = bases.as_bases();
    let mut codes = Vec::new();
    for fragment in &layout.fragments {
        codes.clear();
        packed.extend_codes(
            fragment.global_start,
            fragment.global_start + fragment.len,
            &mut codes,
        );
        for (i, &code) in codes.iter().enumerate() {
            f(fragment.text_start + i as u64, code + 1);
        }
        f(fragment.text_start + fragment.len, 0);
    }
}

/// The text `X · revcomp(X)`, one byte per character (0 = separator, 1..=4 = A..T).
fn full_text(layout: &Layout, bases: &PackedSeq) -> Vec<u8> {
    let half = layout.half_len as usize;
    let mut text = vec![0u8; 2 * half];
    for_each_forward_symbol(layout, bases, |t, s| text[t as usize] = s);
    let (x, mirror) = text.split_at_mut(half);
    for (out, &s) in mirror.iter_mut().zip(x.iter().rev()) {
        *out = complement_symbol(s);
    }
    text
}

/// The complement of a text symbol (separators stay separators).
#[inline(always)]
fn complement_symbol(s: u8) -> u8 {
    if s == 0 {
        0
    } else {
        5 - s
    }
}

/// `X` at 4 bits per symbol.
fn forward_nibbles(layout: &Layout, bases: &PackedSeq) -> Vec<u8> {
    let mut x = vec![0u8; (layout.half_len as usize).div_ceil(2)];
    for_each_forward_symbol(layout, bases, |t, s| {
        x[(t / 2) as usize] |= s << (4 * (t % 2))
    });
    x
}

/// The position in `X` (`half` = its length) that text position `p < 2 * half` mirrors,
/// and whether `p` lies in the reverse-complement half.
#[inline(always)]
fn forward_position(half: u64, p: u64) -> (u64, bool) {
    if p < half {
        (p, false)
    } else {
        (2 * half - 1 - p, true)
    }
}

/// Symbol `p` of the text, read from `X` (`half` = its length).
#[inline(always)]
fn text_symbol(x: &[u8], half: u64, p: u64) -> u8 {
    let (q, mirrored) = forward_position(half, p);
    let s = (x[(q / 2) as usize] >> (4 * (q % 2))) & 15;
    if mirrored {
        complement_symbol(s)
    } else {
        s
    }
}

/// A suffix-array value as libsais writes it.
trait SaValue: Copy + Send + Sync {
    fn get(self) -> u64;
}
impl SaValue for i32 {
    #[inline(always)]
    fn get(self) -> u64 {
        self as u64
    }
}
impl SaValue for i64 {
    #[inline(always)]
    fn get(self) -> u64 {
        self as u64
    }
}

/// Runs libsais on `text` (consumed, so it is freed as soon as the sort is done).
///
/// libsais runs single-threaded: its OpenMP build made the sort 7x slower on a busy
/// 2-core machine (the threads spin at every barrier while a core is taken), and
/// leaving it out keeps the OpenMP runtime out of the binary. `-t` speeds up the passes
/// that follow instead.
fn suffix_array<O>(text: Vec<u8>) -> Result<Vec<O>, BuildError>
where
    O: libsais::OutputElement + libsais::IsValidOutputFor<u8>,
{
    libsais::SuffixArrayConstruction::for_text(&text)
        .in_owned_buffer::<O>()
        .single_threaded()
        .run()
        .map(|sa| sa.into_vec())
        .map_err(|e| BuildError::SuffixArray(e.to_string()))
}

struct PassOutput<S> {
    blocks: Vec<OccBlock>,
    dollars: Vec<DollarRow>,
    samples: Vec<S>,
}

impl<S> PassOutput<S> {
    fn map_samples(
        self,
        f: impl FnOnce(Vec<S>) -> OwnedSamples,
    ) -> (Vec<OccBlock>, Vec<DollarRow>, OwnedSamples) {
        (self.blocks, self.dollars, f(self.samples))
    }
}

/// One pass over the rows writing BWT blocks, samples and separator rows, split into
/// `threads` contiguous row ranges. Row 0 is the empty suffix (text position `n`, whose
/// BWT symbol is the text's last character); row `i > 0` is `sa[i - 1]`.
fn bwt_pass<V: SaValue, S: Sample>(
    sa: &[V],
    x: &[u8],
    half: u64,
    rate: u64,
    threads: usize,
) -> PassOutput<S> {
    let n = sa.len() as u64;
    let rows = n + 1;
    let mut blocks = vec![OccBlock::default(); (rows / ROWS_PER_BLOCK + 1) as usize];
    let mut samples = vec![S::default(); rows.div_ceil(rate) as usize];
    let unit = ROWS_PER_BLOCK * rate;
    let chunk_rows = (rows.div_ceil(threads as u64)).div_ceil(unit).max(1) * unit;
    let mut dollars = Vec::new();
    std::thread::scope(|scope| {
        let handles: Vec<_> = blocks
            .chunks_mut((chunk_rows / ROWS_PER_BLOCK) as usize)
            .zip(samples.chunks_mut((chunk_rows / rate) as usize))
            .enumerate()
            .map(|(k, (blocks, samples))| {
                let first = k as u64 * chunk_rows;
                let last = rows.min(first + chunk_rows);
                scope.spawn(move || pass_chunk(sa, first..last, x, half, rate, blocks, samples))
            })
            .collect();
        for handle in handles {
            match handle.join() {
                Ok(found) => dollars.extend(found),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    PassOutput {
        blocks,
        dollars,
        samples,
    }
}

fn pass_chunk<V: SaValue, S: Sample>(
    sa: &[V],
    rows: std::ops::Range<u64>,
    x: &[u8],
    half: u64,
    rate: u64,
    blocks: &mut [OccBlock],
    samples: &mut [S],
) -> Vec<DollarRow> {
    let n = sa.len() as u64;
    let first = rows.start;
    let mut writer = BlockWriter::new(blocks, first);
    let mut dollars = Vec::new();
    // Rows are visited in order but the symbols before their suffixes are scattered
    // over `x`: ask for them this many rows ahead.
    const AHEAD: u64 = 32;
    let end = rows.end;
    for row in rows {
        if row + AHEAD < end {
            let p = sa[(row + AHEAD - 1) as usize].get().saturating_sub(1);
            let (q, _) = forward_position(half, p);
            if let Some(byte) = x.get((q / 2) as usize) {
                crate::occ::prefetch(byte);
            }
        }
        let p = if row == 0 {
            n
        } else {
            sa[(row - 1) as usize].get()
        };
        let symbol = if p == 0 {
            0
        } else {
            text_symbol(x, half, p - 1)
        };
        if symbol == 0 {
            writer.put(row, None);
            dollars.push(DollarRow { row, sa: p });
        } else {
            writer.put(row, Some(symbol - 1));
        }
        if row % rate == 0 {
            samples[((row - first) / rate) as usize] = S::from_u64(p);
        }
    }
    dollars
}
