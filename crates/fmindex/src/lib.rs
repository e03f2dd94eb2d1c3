//! An FMD-index of a reference genome, as BWA builds it, made to be shared read-only by
//! every worker of a seqfarm farm.
//!
//! ## What is indexed
//! The reference's contigs are cut at every non-ACGT letter into *fragments* (maximal
//! A/C/G/T runs). The text is `X · revcomp(X)` with `X = F1 $ F2 $ … Fm $`: a pattern's
//! suffix-array interval holds its occurrences on both strands, no match spans two
//! contigs, and N or IUPAC letters are never matched. The exact reference (2-bit packed
//! plus an ambiguity mask, [`seqfarm_core::Reference`]) is kept for extension and MD/NM.
//!
//! ## Structures and costs (`n` = text length = 2 × indexed bases, `r` = sampling rate)
//! | structure | size | operation | cost |
//! |---|---|---|---|
//! | BWT in 64-byte blocks of 192 rows, 4 counts + 2 bit planes | `n/3` bytes | `Occ(c, i)`, `Occ4(i)` | O(1), one cache line, 3 or 9 bit counts (the CPU's POPCNT where it has one); a backward step is two `Occ`, a bidirectional one two `Occ4` |
//! | k-mer table, strings of length `1..=K` | `8·4^K·4/3` bytes | interval of a string of length ≤ K | O(1), two lookups |
//! | — | — | [`FmIndex::count`] of a pattern of length `m` | O(m − K) backward steps |
//! | — | — | [`FmIndex::intervals_many`] (rows to locate) | the same, 16 patterns in lock step |
//! | — | — | [`FmIndex::extend_left`] / [`FmIndex::extend_right`] | O(1), two `Occ4` |
//! | — | — | [`FmIndex::smems`] of length ≥ `l` | O(m) extensions per SMEM; a stretch with no match of `l` bases costs about `log₄ n` extensions per `l − log₄ n` bases (windows skipped) |
//! | — | — | [`FmIndex::smems_many`] | the same for 16 reads in lock step, their cache misses overlapped |
//! | sampled suffix array, every `r`-th row | `4n/r` bytes (`8n/r` past 2^32) | [`FmIndex::locate`] | O(r) per occurrence |
//! | packed reference + mask | `n/8` bytes + runs | [`seqfarm_core::Reference::fetch_codes`] | O(window) |
//!
//! ## Building and loading
//! [`ReferenceBuilder`] collects contigs, [`build()`] sorts the suffixes in buckets that
//! fit a memory budget ([`BuildOptions::memory`]) on every thread it is given, streams
//! the blocks and samples as the rows come (to anonymous files with
//! [`BuildOptions::spill_dir`]), and fills the k-mer table; see [`mod@build`] for the
//! cost model. The file is the same whatever the budget and thread count. [`IndexImage::write_to`]
//! writes one versioned file (magic, version, parameters, per-section xxh3 checksums,
//! page-aligned sections, see [`mod@format`]); [`FmIndex::open`] maps it (or copies it into
//! anonymous memory, [`LoadMode::Copy`]) and uses it in place, with no rebuilding.
//! [`FmIndex::check`] verifies every invariant.
//!
//! Global coordinates number the bases of all contigs in FASTA order from 0;
//! [`FmIndex::contig_of`] and [`FmIndex::global_of`] convert.
//!
//! ```
//! use seqfarm_core::Strand;
//! use seqfarm_fmindex::{build, BuildOptions, FmIndex, ReferenceBuilder, SmemScratch};
//!
//! let mut reference = ReferenceBuilder::new();
//! reference.add_contig("chrA", b"GATTACAGATTACANNNNCCTTGGAAT")?;
//! reference.add_contig("chrB", b"ttccaaggtaatctgtaatc")?;
//! let image = build(reference, &BuildOptions::default(), &mut |_stage| {})?;
//! // `image.write_to(file)` writes PREFIX.sfi; `FmIndex::open` maps it. Here: in memory.
//! let index = FmIndex::from_image(&image)?;
//!
//! // GATTACA (codes A=0 C=1 G=2 T=3): twice on chrA +, once on chrB - (as TGTAATC).
//! let gattaca = [2, 0, 3, 3, 0, 1, 0];
//! let interval = index.interval(&gattaca);
//! assert_eq!(interval.size, 3);
//! let mut hits = Vec::new();
//! index.locate(interval, 7, 100, &mut hits);
//! hits.sort();
//! let (contig, offset) = index.contig_of(hits[2].pos).unwrap();
//! assert_eq!((index.contigs()[contig].name.as_str(), offset, hits[2].strand), ("chrB", 13, Strand::Reverse));
//!
//! // SMEMs of a read: both strands at once; the N run never matches.
//! let mut scratch = SmemScratch::default();
//! let mut smems = Vec::new();
//! index.smems(&[2, 0, 3, 3, 0, 1, 0, 2, 0, 3, 3, 0, 1, 0, 0], 5, &mut scratch, &mut smems);
//! assert_eq!((smems[0].start, smems[0].end), (0, 14));
//!
//! // Reference windows for extension and MD tags (4 = ambiguous).
//! let mut window = Vec::new();
//! index.reference().fetch_codes(12, 20, &mut window);
//! assert_eq!(window, [1, 0, 4, 4, 4, 4, 1, 1]);
//! assert!(!index.within_one_contig(20, 10));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod batch;
pub mod build;
mod check;
mod error;
pub mod format;
mod index;
mod intervals;
mod kmer;
mod occ;
mod reference;
mod sa;
mod search;
mod smems;

pub use build::{build, BuildOptions, BuildProgress, BuildStage, IndexImage, DEFAULT_SA_RATE};
pub use check::CheckReport;
pub use error::{BuildError, LoadError};
pub use index::{index_path, FmIndex, Hit, LoadMode, LoadOptions, LocateScratch};
pub use kmer::{default_kmer_len, MAX_KMER_LEN};
pub use reference::{Contig, ReferenceBuilder};
pub use search::{BiInterval, SaInterval};
pub use smems::{Smem, SmemBatchScratch, SmemScratch};
