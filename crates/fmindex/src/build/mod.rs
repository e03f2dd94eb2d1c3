//! Building the index in a memory budget: text, suffix array in buckets, BWT blocks and
//! samples written as the rows come, k-mer table.
//!
//! `n` = text length (twice the indexed bases), `b` = bytes per suffix of a bucket (12:
//! position, next 20 characters and BWT symbol; 16 past 2^32 characters):
//! 1. the text `X · revcomp(X)` is packed at 2 bits per character (`n/4` bytes); the
//!    packed reference (`n/8`) goes to the spill directory until the file is written;
//! 2. one pass, the threads each scanning a chunk of the text, counts the suffixes of
//!    every `P`-character prefix per chunk (`8 · 4^P` bytes per thread and as much for
//!    the totals, 512 KiB each at the largest `P = 8`), and consecutive prefixes are
//!    grouped into buckets that fit what the budget leaves (see `suffix_sort` for the
//!    sort and its costs);
//! 3. each bucket is sorted by every thread and its rows are streamed at once into the
//!    BWT blocks (`n/3` bytes), the samples (`4n/rate`, `8n/rate` past 2^32 characters)
//!    and the separator rows; with a
//!    spill directory these go to anonymous files there and cost no memory;
//! 4. the text and bucket are dropped and the k-mer table is filled from the blocks.
//!
//! Peak: `n/4 + 8·4^P·(t + 1)` (`t` threads) plus one bucket (`b` times its suffixes),
//! plus the keys the sorting threads read into their sweeps (24 bytes per suffix of the
//! `t` largest prefix groups and of `t` sweeps: `suffix_sort::sweep_key_bytes`), plus
//! the blocks and samples when they stay in memory. The index is the same, byte for
//! byte, whatever the budget and the thread count: only the number of buckets changes.

mod huge;
pub(crate) mod sections;
mod suffix_sort;
mod text;

use std::path::PathBuf;

use seqfarm_core::AmbiguityMask;

use crate::error::BuildError;
use crate::kmer::{self, MAX_KMER_LEN};
use crate::occ::{
    hardware_popcount, Bwt, DollarDirectory, DollarRow, OccBlock, BLOCKS_PER_SUPER_SHIFT,
};
use crate::reference::{Layout, ReferenceBuilder};
use crate::sa::Sample;
use huge::HugeArray;
pub(crate) use sections::Stored;
use sections::{OccStream, StoreWriter};
use suffix_sort::{
    plan_buckets, prefix_len, sort_bucket, sweep_key_bytes, CodeCounts, Entry, Position,
};
use text::PackedText;

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
    /// Threads for every pass.
    pub threads: usize,
    /// Memory budget in bytes: the suffix sort splits its work into as many buckets as
    /// it takes to stay within it. `None`: no limit (one bucket).
    pub memory: Option<u64>,
    /// Directory for the finished BWT and samples while the build runs (anonymous files,
    /// gone when the build ends); `None` keeps them in memory.
    pub spill_dir: Option<PathBuf>,
    /// Texts of at least this many characters use 64-bit positions and samples (the
    /// default, 2^32 - 1, is where 32 bits stop sufficing; tests lower it).
    #[doc(hidden)]
    pub wide_from: u64,
    /// `2^super_shift` occurrence blocks per superblock (at most the default, 22; tests
    /// lower it to cross superblock boundaries on small texts).
    #[doc(hidden)]
    pub super_shift: u32,
    /// k-mer table intervals of at least this many rows are stored as "recompute" (the
    /// default is the most the table can hold; tests lower it).
    #[doc(hidden)]
    pub kmer_saturation: u64,
}

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            sa_rate: DEFAULT_SA_RATE,
            kmer_len: None,
            threads: 1,
            memory: None,
            spill_dir: None,
            wide_from: u64::from(u32::MAX),
            super_shift: BLOCKS_PER_SUPER_SHIFT,
            kmer_saturation: kmer::SATURATED,
        }
    }
}

/// The build steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildStage {
    /// Laying out the text.
    Text,
    /// Counting suffixes by prefix to plan the buckets.
    Counting,
    /// Sorting suffixes, bucket by bucket, and writing the BWT and samples.
    SuffixArray,
    /// Filling the k-mer table.
    KmerTable,
}

impl BuildStage {
    /// A short description for progress displays.
    pub fn describe(self) -> &'static str {
        match self {
            BuildStage::Text => "laying out the text",
            BuildStage::Counting => "counting prefixes",
            BuildStage::SuffixArray => "sorting suffixes and writing the BWT",
            BuildStage::KmerTable => "filling the k-mer table",
        }
    }
}

/// What a progress callback hears: the stage, and how far into it (`done` of `total`
/// units; both 0 when a stage has no measure).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildProgress {
    /// The current stage.
    pub stage: BuildStage,
    /// Units done (rows for the suffix sort).
    pub done: u64,
    /// Units in all.
    pub total: u64,
}

/// Samples as built.
pub(crate) enum OwnedSamples {
    Narrow(Stored<u32>),
    Wide(Stored<u64>),
}

/// A built index, before it is written or loaded; its big sections may live in
/// anonymous files (see [`BuildOptions::spill_dir`]).
pub struct IndexImage {
    pub(crate) layout: Layout,
    /// The packed reference's words.
    pub(crate) bases: Stored<u64>,
    pub(crate) mask: AmbiguityMask,
    pub(crate) blocks: Stored<OccBlock>,
    pub(crate) supers: Vec<u64>,
    pub(crate) dollars: Vec<DollarRow>,
    pub(crate) c: [u64; 5],
    pub(crate) samples: OwnedSamples,
    pub(crate) sa_rate: u32,
    pub(crate) kmers: Vec<u64>,
    pub(crate) kmer_len: u32,
    pub(crate) super_shift: u32,
    /// Number of buckets the suffix sort used.
    pub(crate) buckets: usize,
}

impl IndexImage {
    /// Number of buckets the suffix sort was split into.
    pub fn buckets(&self) -> usize {
        self.buckets
    }
}

/// Builds the index of `reference`; `progress` hears of each stage and of the suffix
/// sort's advance.
pub fn build(
    reference: ReferenceBuilder,
    options: &BuildOptions,
    progress: &mut dyn FnMut(BuildProgress),
) -> Result<IndexImage, BuildError> {
    let rate = options.sa_rate;
    if !(1..=256).contains(&rate) || !rate.is_power_of_two() {
        return Err(BuildError::Option(format!(
            "suffix-array sampling rate {rate} is not a power of two in 1..=256"
        )));
    }
    let ReferenceBuilder {
        layout,
        bases: packed,
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
    if options.super_shift > BLOCKS_PER_SUPER_SHIFT
        || !(1..=kmer::SATURATED).contains(&options.kmer_saturation)
    {
        return Err(BuildError::Option(format!(
            "superblock shift {} or k-mer saturation {} out of range",
            options.super_shift, options.kmer_saturation
        )));
    }
    if n >= 1 << 40 || usize::try_from(n).is_err() {
        return Err(BuildError::TooLarge(n));
    }
    let stage = |stage| BuildProgress {
        stage,
        done: 0,
        total: 0,
    };
    progress(stage(BuildStage::Text));
    let text = PackedText::new(&layout, &packed).map_err(BuildError::Allocation)?;
    // The packed reference is not read again: with a spill directory it waits on disk.
    let mut words = StoreWriter::new(options.spill_dir.as_deref()).map_err(BuildError::Spill)?;
    words.extend(packed.words()).map_err(BuildError::Spill)?;
    drop(packed);
    let bases = words.finish().map_err(BuildError::Spill)?;
    let mut fixed = text.heap_bytes();
    if options.spill_dir.is_none() {
        fixed += bases.byte_len();
    }
    let sorted = if n < options.wide_from {
        sort_and_stream::<u32, u32>(&text, fixed, options, progress)?
            .with_samples(OwnedSamples::Narrow)
    } else {
        sort_and_stream::<u64, u64>(&text, fixed, options, progress)?
            .with_samples(OwnedSamples::Wide)
    };
    drop(text);
    let mut c = [0u64; 5];
    // Rows before the A suffixes: the empty suffix and the 2m separator suffixes.
    c[0] = 1 + 2 * layout.fragments.len() as u64;
    for k in 0..4 {
        c[k + 1] = c[k] + sorted.totals[k];
    }
    debug_assert_eq!(c[4], n + 1);
    progress(stage(BuildStage::KmerTable));
    let view = sorted.blocks.view().map_err(BuildError::Spill)?;
    let directory = DollarDirectory::new(&sorted.dollars, c[4]);
    let bwt = Bwt {
        blocks: view.items(),
        supers: &sorted.supers,
        dollars: &sorted.dollars,
        directory: directory.view(),
        super_shift: options.super_shift,
        c,
        popcnt: hardware_popcount(),
    };
    let kmers = kmer::build_table(&bwt, kmer_len, options.kmer_saturation);
    drop(view);
    Ok(IndexImage {
        layout,
        bases,
        mask,
        blocks: sorted.blocks,
        supers: sorted.supers,
        dollars: sorted.dollars,
        c,
        samples: sorted.samples,
        sa_rate: rate,
        kmers,
        kmer_len,
        super_shift: options.super_shift,
        buckets: sorted.buckets,
    })
}

/// What the sort-and-stream pass produced.
struct Streamed<S> {
    blocks: Stored<OccBlock>,
    supers: Vec<u64>,
    totals: [u64; 4],
    dollars: Vec<DollarRow>,
    samples: S,
    buckets: usize,
}

impl<T> Streamed<T> {
    fn with_samples<S>(self, f: impl FnOnce(T) -> S) -> Streamed<S> {
        Streamed {
            blocks: self.blocks,
            supers: self.supers,
            totals: self.totals,
            dollars: self.dollars,
            samples: f(self.samples),
            buckets: self.buckets,
        }
    }
}

/// Sorts the suffixes bucket by bucket and streams each row's BWT symbol, sample and
/// separator entry out as it comes. Row 0 is the empty suffix (text position `n`, whose
/// BWT symbol is the text's last character).
fn sort_and_stream<P: Position, S: Sample + bytemuck::Pod>(
    text: &PackedText,
    fixed: u64,
    options: &BuildOptions,
    progress: &mut dyn FnMut(BuildProgress),
) -> Result<Streamed<Stored<S>>, BuildError> {
    let n = text.len();
    let rows = n + 1;
    let rate = u64::from(options.sa_rate);
    let threads = options.threads.clamp(1, 256);
    let spill = options.spill_dir.as_deref();
    let spill_error = BuildError::Spill;
    progress(BuildProgress {
        stage: BuildStage::Counting,
        done: 0,
        total: 0,
    });
    let plen = prefix_len(n);
    let counts = CodeCounts::new(text, plen, threads).map_err(BuildError::Allocation)?;
    let largest = counts.totals().iter().copied().max().unwrap_or(0);
    // A bucket's suffix costs its entry and its share of the bucket's samples, buffered
    // until the bucket is written.
    let entry_bytes = size_of::<Entry<P>>() as u64 + size_of::<S>() as u64 / rate + 1;
    // Besides the text and the prefix table: write buffers, the threads' sweep keys and
    // run lists, and the separator table.
    let scratch = (12 << 20)
        + threads as u64 * (2 << 20)
        + sweep_key_bytes::<P>(counts.totals(), threads)
        + 32 * text.separators().len() as u64;
    let mut held = fixed + counts.heap_bytes() + scratch;
    if spill.is_none() {
        held += rows / 3 + rows.div_ceil(rate) * size_of::<S>() as u64;
    }
    let capacity = match options.memory {
        None => u64::MAX,
        Some(budget) => {
            let needed = held + largest * entry_bytes;
            if budget < needed {
                return Err(BuildError::Budget { budget, needed });
            }
            (budget - held) / entry_bytes
        }
    };
    let buckets = plan_buckets(counts.totals(), capacity);
    let mut occ = OccStream::new(
        StoreWriter::new(spill).map_err(spill_error)?,
        options.super_shift,
    );
    let mut samples = StoreWriter::<S>::new(spill).map_err(spill_error)?;
    let mut dollars = Vec::new();
    let mut bucket_samples = Vec::new();
    let largest_planned = buckets
        .iter()
        .map(|codes| counts.totals()[codes.clone()].iter().sum::<u64>())
        .max()
        .unwrap_or(0);
    let mut slots =
        HugeArray::<Entry<P>>::zeroed(largest_planned as usize).map_err(BuildError::Allocation)?;
    progress(BuildProgress {
        stage: BuildStage::SuffixArray,
        done: 0,
        total: rows,
    });
    let mut row = 0u64;
    let mut emit = |row: u64, p: u64, symbol: Option<u8>, occ: &mut OccStream, out: &mut Vec<S>| {
        if symbol.is_none() {
            dollars.push(DollarRow { row, sa: p });
        }
        if row.is_multiple_of(rate) {
            out.push(S::from_u64(p));
        }
        occ.push(symbol)
    };
    emit(row, n, text.symbol(n - 1), &mut occ, &mut bucket_samples).map_err(spill_error)?;
    row += 1;
    for codes in &buckets {
        let size: u64 = counts.totals()[codes.clone()].iter().sum();
        let slots = &mut slots[..size as usize];
        sort_bucket(text, plen, &counts, codes.clone(), slots, threads);
        for entry in slots.iter() {
            emit(
                row,
                entry.pos(),
                entry.bwt_symbol(),
                &mut occ,
                &mut bucket_samples,
            )
            .map_err(spill_error)?;
            row += 1;
        }
        samples.extend(&bucket_samples).map_err(spill_error)?;
        bucket_samples.clear();
        progress(BuildProgress {
            stage: BuildStage::SuffixArray,
            done: row,
            total: rows,
        });
    }
    samples.extend(&bucket_samples).map_err(spill_error)?;
    debug_assert_eq!(row, rows);
    let (blocks, supers, totals) = occ.finish().map_err(spill_error)?;
    Ok(Streamed {
        blocks,
        supers,
        totals,
        dollars,
        samples: samples.finish().map_err(spill_error)?,
        buckets: buckets.len(),
    })
}
