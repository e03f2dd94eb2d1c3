//! bowtie2's seeds: the fixed-length substrings of the read that bowtie2's multiseed
//! search looks up, every `interval` bases from the read's first, each as it is and
//! reverse-complemented (so on both strands). An alignment elsewhere that holds none of them exactly is one bowtie2 does not
//! find, so its second-best score (`XS`, the MAPQ's runner-up) never counts it; one that
//! holds one it finds when it extends that seed's hits. seqfarm searches these seeds
//! too when it reports bowtie2's mapping quality, and counts as runner-up only the
//! alignments that hold one ([`Bowtie2Seeding::holds_seed`]).

use crate::cigar::CigarOp;
use crate::dp::Extension;
use crate::params::Preset;
use crate::scoring::{AlignMode, LengthFunction};

/// bowtie2's seed length (`-L`) and interval (`-i`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bowtie2Seeding {
    /// Seed length (`-L`, 1 to 32).
    pub len: usize,
    /// Interval between seed starts as a function of the read length (`-i`).
    pub interval: LengthFunction,
}

impl Bowtie2Seeding {
    /// bowtie2's `-L` and `-i` for a preset in `mode` (its `--sensitive` end to end:
    /// 22 and `S,1,1.15`; `--sensitive-local`: 20 and `S,1,0.75`).
    pub fn for_preset(mode: AlignMode, preset: Preset) -> Self {
        let sqrt = |constant, coefficient| LengthFunction::Sqrt {
            constant,
            coefficient,
        };
        let (len, interval) = match (mode, preset) {
            (AlignMode::EndToEnd, Preset::VeryFast | Preset::Fast) => (22, sqrt(0.0, 2.5)),
            (AlignMode::EndToEnd, Preset::Sensitive) => (22, sqrt(1.0, 1.15)),
            (AlignMode::EndToEnd, Preset::VerySensitive) => (20, sqrt(1.0, 0.5)),
            (AlignMode::Local, Preset::VeryFast) => (25, sqrt(1.0, 2.0)),
            (AlignMode::Local, Preset::Fast) => (22, sqrt(1.0, 1.75)),
            (AlignMode::Local, Preset::Sensitive) => (20, sqrt(1.0, 0.75)),
            (AlignMode::Local, Preset::VerySensitive) => (20, sqrt(1.0, 0.5)),
        };
        Self { len, interval }
    }

    /// The seeds of a `read_len`-base read: their length (the read's, when shorter than
    /// `-L`) and the interval between their starts. `paired`: the read is a mate whose
    /// partner passed the read filters too, for which bowtie2 widens the interval by
    /// a fifth.
    pub fn layout(&self, read_len: usize, paired: bool) -> (usize, usize) {
        // bowtie2 truncates the function's value (at least 1) to an integer.
        let mut interval = self.interval.at(read_len).max(1.0) as usize;
        if paired {
            interval = (interval as f64 * 1.2 + 0.5) as usize;
        }
        (self.len.min(read_len), interval.max(1))
    }

    /// The starts of the seeds of a `read_len`-base read, in the read as given: every
    /// `interval` bases from 0 while a whole seed fits (at least one).
    pub fn starts(&self, read_len: usize, paired: bool) -> impl Iterator<Item = usize> {
        let (len, interval) = self.layout(read_len, paired);
        let count = 1 + read_len.saturating_sub(len) / interval;
        (0..count).map(move |i| i * interval)
    }

    /// Whether the alignment `ext` of the oriented read `read` (codes; the reverse
    /// complement when `reverse`) to `window` matches one of the seeds exactly: every
    /// base of the seed aligned to an equal reference base, with no gap inside.
    pub fn holds_seed(
        &self,
        read: &[u8],
        window: &[u8],
        ext: &Extension,
        paired: bool,
        reverse: bool,
    ) -> bool {
        let mut held = false;
        self.held_seeds(read, window, ext, paired, reverse, |_| held = true);
        held
    }

    /// Calls `found` with the start (in the read as given) of each seed the alignment
    /// `ext` holds exactly (see [`Bowtie2Seeding::holds_seed`]), in the oriented
    /// read's order.
    pub fn held_seeds(
        &self,
        read: &[u8],
        window: &[u8],
        ext: &Extension,
        paired: bool,
        reverse: bool,
        mut found: impl FnMut(usize),
    ) {
        let (len, _) = self.layout(read.len(), paired);
        // The seeds' starts in the oriented read, ascending.
        let mut oriented: Vec<usize> = self.starts(read.len(), paired).collect();
        if reverse {
            oriented.reverse();
            for s in &mut oriented {
                *s = read.len() - len - *s;
            }
        }
        let as_given = |s: usize| if reverse { read.len() - len - s } else { s };
        let mut starts = oriented.into_iter().peekable();
        // Walk the alignment's exact runs in read order; a seed inside one is held.
        let (mut i, mut j) = (ext.read_start, ext.window_start);
        let mut run_start = i;
        let mut close_run = |run: std::ops::Range<usize>, found: &mut dyn FnMut(usize)| {
            while let Some(&s) = starts.peek() {
                if s + len > run.end {
                    break;
                }
                if s >= run.start {
                    found(as_given(s));
                }
                starts.next();
            }
        };
        for (op, n) in ext.cigar.ops() {
            let n = n as usize;
            match op {
                CigarOp::Match => {
                    for _ in 0..n {
                        let same = read[i] < 4 && read[i] == window[j];
                        i += 1;
                        j += 1;
                        if !same {
                            close_run(run_start..i - 1, &mut found);
                            run_start = i;
                        }
                    }
                }
                CigarOp::Insertion => {
                    close_run(run_start..i, &mut found);
                    i += n;
                    run_start = i;
                }
                CigarOp::Deletion => {
                    close_run(run_start..i, &mut found);
                    j += n;
                    run_start = i;
                }
                _ => {}
            }
        }
        close_run(run_start..i, &mut found);
    }
}

#[cfg(test)]
mod tests {
    use super::Bowtie2Seeding;
    use crate::cigar::{Cigar, CigarOp};
    use crate::dp::Extension;
    use crate::params::Preset;
    use crate::scoring::AlignMode;

    #[test]
    fn seed_starts_as_bowtie2_places_them() {
        let e2e = Bowtie2Seeding::for_preset(AlignMode::EndToEnd, Preset::Sensitive);
        // 100 bp: 1 + 1.15·10 = 12.5, truncated to 12; a mate's 12·1.2 + 0.5 = 14.9 → 14.
        assert_eq!(e2e.layout(100, false), (22, 12));
        assert_eq!(e2e.layout(100, true), (22, 14));
        let unpaired: Vec<usize> = e2e.starts(100, false).collect();
        assert_eq!(unpaired, [0, 12, 24, 36, 48, 60, 72]);
        let mates: Vec<usize> = e2e.starts(100, true).collect();
        assert_eq!(mates, [0, 14, 28, 42, 56, 70]);
        // 150 bp: 1 + 1.15·12.25 = 15.08 → 15.
        assert_eq!(e2e.starts(150, false).count(), 9);
        // A read shorter than the seed is one seed, the whole read.
        assert_eq!(e2e.layout(12, false).0, 12);
        assert_eq!(e2e.starts(12, false).collect::<Vec<_>>(), [0]);
        let local = Bowtie2Seeding::for_preset(AlignMode::Local, Preset::Sensitive);
        assert_eq!(local.layout(100, false), (20, 8));
    }

    #[test]
    fn a_seed_is_held_only_when_matched_exactly() {
        let seeding = Bowtie2Seeding::for_preset(AlignMode::EndToEnd, Preset::Sensitive);
        let read: Vec<u8> = (0..100).map(|i| (i * 7 % 4) as u8).collect();
        let mut all = Cigar::new();
        all.push(CigarOp::Match, 100);
        let ext = Extension {
            score: 0,
            read_start: 0,
            read_end: 100,
            window_start: 0,
            window_end: 100,
            cigar: all,
        };
        let with_mismatches = |at: &[usize]| {
            let mut window = read.clone();
            for &k in at {
                window[k] = (window[k] + 1) % 4;
            }
            window
        };
        let held =
            |window: &[u8], reverse: bool| seeding.holds_seed(&read, window, &ext, false, reverse);
        // Seeds start at 0, 12, ..., 72 of the read: 6, 18, ..., 78 of its reverse
        // complement. A mismatch every 20 bases leaves no 22 bases exact.
        let none = with_mismatches(&[10, 30, 50, 70, 90]);
        assert!(!held(&none, false) && !held(&none, true));
        // 24..47 exact holds the read's seed at 24, none of the reverse complement's.
        let forward = with_mismatches(&[11, 23, 47, 69, 91]);
        assert!(held(&forward, false) && !held(&forward, true));
        // 18..41 exact holds the reverse complement's seed at 18 only.
        let reverse = with_mismatches(&[5, 17, 41, 63, 85]);
        assert!(!held(&reverse, false) && held(&reverse, true));
    }
}
