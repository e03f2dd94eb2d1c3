//! Suffix-array intervals of many patterns, searched in lock step with prefetching (as
//! [`crate::batch`] does for counts): the seeding of a batch of reads asks for dozens
//! of short patterns at once, and their cache misses overlap. Backward search alone
//! (two `Occ` per base, three bit counts each) gives what seeds need, the rows to count
//! and locate; a bidirectional step costs two `Occ4`, nine bit counts each.

use seqfarm_core::nucleotide::AMBIGUOUS;

use crate::kmer::SATURATED;
use crate::search::{SaInterval, Searcher};

/// Searches in flight at once.
const LANES: usize = 16;

/// Search state of one pattern: its interval and the bases still to prepend.
#[derive(Clone, Copy)]
struct Lane {
    pattern: usize,
    interval: SaInterval,
    /// Bases not yet searched: `pattern[..left]`.
    left: usize,
}

/// How far each search of [`intervals_many`] goes, and where it starts.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Search {
    /// From the k-mer table to the whole pattern or an empty interval: the exact
    /// interval.
    Whole,
    /// As [`Search::Whole`], stopping as soon as the interval holds one row.
    UntilOneRow,
    /// On from where [`Search::UntilOneRow`] stopped, to the whole pattern.
    Resume,
}

/// The interval of each pattern into `out`, as [`Searcher::interval`] gives it,
/// searched from the pattern's end, and into `searched` the number of its last bases
/// that interval is for: the whole pattern's length unless [`Search::UntilOneRow`]
/// stopped the search at one row. Both are cleared first, except for
/// [`Search::Resume`], which continues from what they hold.
pub(crate) fn intervals_many<P: AsRef<[u8]>>(
    searcher: &Searcher<'_>,
    patterns: &[P],
    search: Search,
    out: &mut Vec<SaInterval>,
    searched: &mut Vec<u32>,
) {
    if search != Search::Resume {
        out.clear();
        out.resize(patterns.len(), SaInterval::default());
        searched.clear();
        searched.extend(patterns.iter().map(|p| p.as_ref().len() as u32));
    }
    let mut lanes: Vec<Lane> = Vec::with_capacity(LANES);
    let mut next = 0usize;
    let k_max = searcher.kmer_len as usize;
    loop {
        while lanes.len() < LANES && next < patterns.len() {
            let codes = patterns[next].as_ref();
            let pattern = next;
            next += 1;
            let (interval, searched) = if search == Search::Resume {
                (out[pattern], searched[pattern] as usize)
            } else if codes.is_empty() || codes.iter().any(|&c| c >= AMBIGUOUS) {
                out[pattern] = searcher.interval(codes).into();
                continue;
            } else {
                let k = codes.len().min(k_max);
                match searcher.table_entry(&codes[codes.len() - k..]) {
                    // Too many rows to store: the whole pattern is searched, from every row.
                    (_, SATURATED) => (
                        SaInterval {
                            start: 0,
                            size: searcher.bwt.len(),
                        },
                        0,
                    ),
                    (start, size) => (SaInterval { start, size }, k),
                }
            };
            searcher.bwt.prefetch(interval.start);
            searcher.bwt.prefetch(interval.start + interval.size);
            lanes.push(Lane {
                pattern,
                interval,
                left: codes.len() - searched,
            });
        }
        if lanes.is_empty() {
            break;
        }
        let mut i = 0;
        while i < lanes.len() {
            let lane = &mut lanes[i];
            let unique = search == Search::UntilOneRow && lane.interval.size == 1;
            if lane.left == 0 || lane.interval.size == 0 || unique {
                out[lane.pattern] = lane.interval;
                let len = patterns[lane.pattern].as_ref().len();
                searched[lane.pattern] = (len - if unique { lane.left } else { 0 }) as u32;
                lanes.swap_remove(i);
                continue;
            }
            let c = patterns[lane.pattern].as_ref()[lane.left - 1];
            let (start, size) =
                searcher
                    .bwt
                    .backward_step(lane.interval.start, lane.interval.size, c);
            lane.interval = SaInterval { start, size };
            lane.left -= 1;
            searcher.bwt.prefetch(start);
            searcher.bwt.prefetch(start + size);
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{build, BuildOptions, FmIndex, ReferenceBuilder};

    #[test]
    fn batched_intervals_equal_one_at_a_time() {
        let mut state = 11u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut reference = ReferenceBuilder::new();
        let seq: Vec<u8> = (0..5000)
            .map(|i| {
                if i % 997 == 3 {
                    b'N'
                } else {
                    b"ACGT"[(next() % 4) as usize]
                }
            })
            .collect();
        reference.add_contig("c", &seq).unwrap();
        let options = BuildOptions {
            sa_rate: 8,
            kmer_len: Some(5),
            threads: 1,
            ..BuildOptions::default()
        };
        let index = FmIndex::from_image(&build(reference, &options, &mut |_| {}).unwrap()).unwrap();
        let mut patterns: Vec<Vec<u8>> = (0..400)
            .map(|k| {
                let start = (next() % 4900) as usize;
                let len = 1 + k % 25;
                seq[start..start + len]
                    .iter()
                    .map(|&b| seqfarm_core::nucleotide::encode(b).unwrap_or(4))
                    .collect()
            })
            .collect();
        patterns.push(Vec::new());
        patterns.push(vec![0, 1, 4, 2]);
        let mut batched = Vec::new();
        index.intervals_many(&patterns, &mut batched);
        for (p, iv) in patterns.iter().zip(&batched) {
            assert_eq!(*iv, index.interval(p).into(), "{p:?}");
        }
        // Stopped at one row: the interval of the searched suffix, and the whole
        // pattern occurs at most once.
        let mut searched = Vec::new();
        index.intervals_until_unique_many(&patterns, &mut batched, &mut searched);
        let mut stopped = 0;
        for ((p, iv), &n) in patterns.iter().zip(&batched).zip(&searched) {
            let n = n as usize;
            assert_eq!(*iv, index.interval(&p[p.len() - n..]).into(), "{p:?}");
            if n < p.len() {
                stopped += 1;
                assert_eq!(iv.size, 1, "{p:?}");
                assert!(index.count(p) <= 1, "{p:?}");
            }
        }
        assert!(stopped > 50, "{stopped} searches stopped early");
        // Resumed, they end where one search to the end does.
        index.resume_intervals_many(&patterns, &mut batched, &mut searched);
        for ((p, iv), &n) in patterns.iter().zip(&batched).zip(&searched) {
            assert_eq!(*iv, index.interval(p).into(), "{p:?}");
            assert_eq!(n as usize, p.len());
        }
    }
}
