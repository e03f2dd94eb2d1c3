//! What bowtie2's mapping quality needs of the search: bowtie2's own seeds searched
//! beside the SMEMs, so that the runner-ups bowtie2 finds are found, and the test of
//! whether an alignment holds one of them, so that those bowtie2 cannot find are not
//! counted (see [`crate::seed::Bowtie2Seeding`]).

use std::ops::Range;

use seqfarm_fmindex::{BiInterval, Smem};

use super::{oriented_in, Aligner, Candidate, Outcome};
use crate::mapq::MapqModel;

impl Aligner<'_> {
    /// Whether the runner-ups follow bowtie2's (its mapping quality is reported).
    pub(super) fn bowtie2_runner_ups(&self) -> bool {
        matches!(self.params.mapq, MapqModel::Bowtie2(_))
    }

    /// bowtie2's seeds of each read of `which` that hold no N, searched all at once,
    /// into `self.bowtie2_seeds`; read `which[i]`'s are `self.bowtie2_seeds[ranges[i]]`.
    /// The index holds both strands, so one search finds a seed's occurrences as it is
    /// and reverse-complemented, as bowtie2 looks both up.
    pub(super) fn search_bowtie2_seeds(&mut self, which: &[usize], ranges: &mut Vec<Range<usize>>) {
        let seeding = self.params.bowtie2_seeding;
        self.bowtie2_seeds.clear();
        ranges.clear();
        let mut patterns: Vec<&[u8]> = Vec::new();
        for &r in which {
            let p = &self.prepared[r];
            let read = oriented_in(p, false, &self.codes, &self.penalties).0;
            let first = self.bowtie2_seeds.len();
            let (len, _) = seeding.layout(read.len(), p.bowtie2_paired);
            for s in seeding.starts(read.len(), p.bowtie2_paired) {
                let seed = &read[s..s + len];
                if len > 0 && seed.iter().all(|&c| c < 4) {
                    patterns.push(seed);
                    self.bowtie2_seeds.push(Smem {
                        start: s as u32,
                        end: (s + len) as u32,
                        interval: BiInterval::default(),
                    });
                }
            }
            ranges.push(first..self.bowtie2_seeds.len());
        }
        let mut intervals = Vec::with_capacity(patterns.len());
        self.index.intervals_many(&patterns, &mut intervals);
        for (seed, iv) in self.bowtie2_seeds.iter_mut().zip(intervals) {
            seed.interval = BiInterval {
                fwd: iv.start,
                rev: iv.start,
                size: iv.size,
            };
        }
    }

    /// Whether candidate `cand`'s extension holds one of bowtie2's seeds of its read.
    pub(super) fn holds_bowtie2_seed(&self, cand: &Candidate) -> bool {
        let Outcome::Done(Some(ext)) = &cand.outcome else {
            return false;
        };
        let p = &self.prepared[cand.read];
        let read = oriented_in(p, cand.reverse, &self.codes, &self.penalties).0;
        let window = &self.windows[cand.window.clone()];
        self.params
            .bowtie2_seeding
            .holds_seed(read, window, ext, p.bowtie2_paired, cand.reverse)
    }
}
