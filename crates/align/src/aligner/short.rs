//! Reads too short for their seeds to survive a mismatch: bowtie2 looks up the whole
//! read first, exactly and with any one base substituted, before its seeds (which for
//! a read shorter than `-L` are the read itself). seqfarm does the same for a read
//! shorter than [`SHORT_READ_SEEDS`] seeds, so that reads of 4 to 40 bases (trimmed
//! reads, k-mers, small RNA) align where bowtie2 aligns them; the longer ones keep an
//! exact seed on one side of any single mismatch, which the seed searches find.

use crate::scoring::AlignMode;
use seqfarm_core::nucleotide::AMBIGUOUS;
use seqfarm_fmindex::{BiInterval, Smem};

use super::Aligner;

/// A read shorter than this many of its longest seeds (an SMEM of the shortest length
/// used, or bowtie2's seed) is looked up whole, exactly and with one mismatch.
const SHORT_READ_SEEDS: usize = 2;

impl Aligner<'_> {
    /// Whether read `r` is looked up whole ([`SHORT_READ_SEEDS`]).
    pub(super) fn is_short(&self, r: usize) -> bool {
        let longest_seed = (self.params.min_seed_len as usize).max(self.params.bowtie2_seeding.len);
        let len = self.read_len(r);
        len > 0 && len < SHORT_READ_SEEDS * longest_seed
    }

    /// The whole-read matches of read `r`, as seeds spanning the read: its exact
    /// occurrences, and, when the minimum score leaves room for a mismatch, those of
    /// every pattern that differs from it at one base (an N in the read is such a base
    /// whatever it is replaced by). Occurrences on either strand, as the index holds
    /// both.
    pub(super) fn whole_read_seeds(&self, r: usize, out: &mut Vec<Smem>) {
        let (read, penalties) = self.oriented(r, false);
        let len = read.len();
        let scoring = &self.params.scoring;
        let budget = scoring.perfect_score(len) - scoring.min_score(len);
        let cost = |i: usize| {
            if read[i] >= AMBIGUOUS {
                scoring.n_penalty
            } else {
                i32::from(penalties[i])
            }
        };
        // The cheapest single substitution, its lost match bonus included.
        let cheapest = (0..len)
            .map(|i| cost(i) + scoring.match_bonus)
            .min()
            .unwrap_or(i32::MAX);
        // In local mode bowtie2 keeps a one-mismatch hit only when it is a proper local
        // alignment: the matches on either side of the mismatch outscore it.
        let local = scoring.mode == AlignMode::Local;
        let legal = |i: usize| {
            let side = |bases: usize| bases as i32 * scoring.match_bonus - cost(i) > 0;
            !local || (side(i) && side(len - 1 - i))
        };
        let as_seed = |interval: BiInterval| Smem {
            start: 0,
            end: len as u32,
            interval,
        };
        // Intervals of every suffix: suffixes[i] is that of read[i..].
        let mut suffixes = vec![BiInterval::default(); len + 1];
        suffixes[len] = self.index.interval(&[]);
        for i in (0..len).rev() {
            suffixes[i] = if read[i] < AMBIGUOUS && suffixes[i + 1].size > 0 {
                self.index.extend_left(suffixes[i + 1], read[i])
            } else {
                BiInterval::default()
            };
        }
        if suffixes[0].size > 0 {
            out.push(as_seed(suffixes[0]));
        }
        if cheapest > budget {
            return;
        }
        for i in 0..len {
            if suffixes[i + 1].size == 0 || !legal(i) {
                continue;
            }
            for base in 0..4u8 {
                if base == read[i] {
                    continue;
                }
                let mut iv = self.index.extend_left(suffixes[i + 1], base);
                for &c in read[..i].iter().rev() {
                    if iv.size == 0 || c >= AMBIGUOUS {
                        iv = BiInterval::default();
                        break;
                    }
                    iv = self.index.extend_left(iv, c);
                }
                if iv.size > 0 {
                    out.push(as_seed(iv));
                }
            }
        }
    }
}
