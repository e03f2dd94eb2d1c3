//! Alignment parameters: the scoring scheme plus how hard to search, with bowtie2-style
//! presets. The CLI takes its defaults from here.

use crate::mapq::MapqModel;
use crate::scoring::{AlignMode, Scoring};
use crate::seed::Bowtie2Seeding;

/// How hard to look for alignments (bowtie2's `--very-fast` … `--very-sensitive`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Preset {
    /// Fewest seeds and candidates.
    VeryFast,
    /// Fewer candidates.
    Fast,
    /// The default.
    #[default]
    Sensitive,
    /// Shorter seeds, more candidates, a third seeding round.
    VerySensitive,
}

/// Everything that decides an alignment.
#[derive(Debug, Clone, PartialEq)]
pub struct AlignParams {
    /// The scoring scheme (end-to-end or local).
    pub scoring: Scoring,
    /// Shortest SMEM used as a seed.
    pub min_seed_len: u32,
    /// SMEMs at least this long with at most [`AlignParams::reseed_max_occ`]
    /// occurrences are re-seeded from their middle, to find the shorter matches they
    /// hide (the paralogs a unique SMEM masks).
    pub reseed_len: u32,
    /// See [`AlignParams::reseed_len`].
    pub reseed_max_occ: u64,
    /// Most occurrences located per seed (evenly sampled beyond).
    pub max_occ: usize,
    /// Most candidate regions extended per read.
    pub max_candidates: usize,
    /// Candidate regions whose seed coverage is below this fraction of the best one's
    /// are not extended.
    pub drop_ratio: f32,
    /// When no candidate aligns, seed again with SMEMs this short.
    pub rescue_seed_len: u32,
    /// Length of the fast path's fixed seeds (0: no fast path). A read whose tiling
    /// seeds of this length each occur at most once, and whose unique ones all lie on
    /// one diagonal, is extended there alone (see docs/ALIGNER.md).
    pub fast_seed_len: usize,
    /// Alignments reported per read (`-k`); 1 reports the best only.
    pub report: usize,
    /// Try the read as given (`--nofw` clears it; for pairs, the fragment's forward
    /// strand, as bowtie2 defines it).
    pub align_forward: bool,
    /// Try the read's reverse complement (`--norc` clears it).
    pub align_reverse: bool,
    /// Seed of the choice among equally good alignments (bowtie2's `--seed`); the
    /// choice for a read depends on this seed and the read alone, so output stays
    /// the same at any thread count.
    pub tie_seed: u64,
    /// The mapping quality reported (`--mapq`): bowtie2's, or seqfarm's calibrated one.
    pub mapq: MapqModel,
    /// bowtie2's seeds (`-L`, `-i`): searched, with bowtie2's mapping quality, for the
    /// runner-ups bowtie2 finds, and the only ones such a runner-up may be found by.
    pub bowtie2_seeding: Bowtie2Seeding,
}

impl Default for AlignParams {
    fn default() -> Self {
        Self::new(AlignMode::EndToEnd, Preset::Sensitive)
    }
}

impl AlignParams {
    /// The parameters of `mode` with `preset`.
    pub fn new(mode: AlignMode, preset: Preset) -> Self {
        let base = Self {
            scoring: Scoring::for_mode(mode),
            min_seed_len: 19,
            reseed_len: 28,
            reseed_max_occ: 10,
            max_occ: 200,
            max_candidates: 24,
            drop_ratio: 0.5,
            rescue_seed_len: 15,
            fast_seed_len: 20,
            report: 1,
            align_forward: true,
            align_reverse: true,
            tie_seed: 0,
            mapq: MapqModel::default(),
            bowtie2_seeding: Bowtie2Seeding::for_preset(mode, preset),
        };
        match preset {
            Preset::VeryFast => Self {
                min_seed_len: 22,
                reseed_max_occ: 4,
                max_occ: 64,
                max_candidates: 8,
                drop_ratio: 0.6,
                ..base
            },
            Preset::Fast => Self {
                min_seed_len: 20,
                max_occ: 100,
                max_candidates: 16,
                ..base
            },
            Preset::Sensitive => base,
            Preset::VerySensitive => Self {
                min_seed_len: 17,
                reseed_len: 24,
                reseed_max_occ: 20,
                max_occ: 500,
                max_candidates: 48,
                drop_ratio: 0.4,
                rescue_seed_len: 13,
                ..base
            },
        }
    }
}
