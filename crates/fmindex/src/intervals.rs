//! Bidirectional intervals of many patterns, searched in lock step with prefetching
//! (as [`crate::batch`] does for counts): the seeding of a batch of reads asks for
//! dozens of short patterns at once, and their cache misses overlap.

use seqfarm_core::nucleotide::AMBIGUOUS;

use crate::search::{BiInterval, Searcher};

/// Searches in flight at once.
const LANES: usize = 16;

/// Search state of one pattern: its interval and the bases still to prepend.
#[derive(Clone, Copy)]
struct Lane {
    pattern: usize,
    interval: BiInterval,
    /// Bases not yet searched: `pattern[..left]`.
    left: usize,
}

/// The interval of each pattern into `out` (cleared first), as
/// [`Searcher::interval`] gives it.
pub(crate) fn intervals_many<P: AsRef<[u8]>>(
    searcher: &Searcher<'_>,
    patterns: &[P],
    out: &mut Vec<BiInterval>,
) {
    out.clear();
    out.resize(patterns.len(), BiInterval::default());
    let mut lanes: Vec<Lane> = Vec::with_capacity(LANES);
    let mut next = 0usize;
    let k_max = searcher.kmer_len as usize;
    loop {
        while lanes.len() < LANES && next < patterns.len() {
            let codes = patterns[next].as_ref();
            let pattern = next;
            next += 1;
            if codes.is_empty() || codes.iter().any(|&c| c >= AMBIGUOUS) {
                out[pattern] = searcher.interval(codes);
                continue;
            }
            let k = codes.len().min(k_max);
            let Some(interval) = searcher.table_interval(&codes[codes.len() - k..]) else {
                out[pattern] = searcher.interval(codes);
                continue;
            };
            searcher.bwt.prefetch(interval.fwd);
            searcher.bwt.prefetch(interval.fwd + interval.size);
            lanes.push(Lane {
                pattern,
                interval,
                left: codes.len() - k,
            });
        }
        if lanes.is_empty() {
            break;
        }
        let mut i = 0;
        while i < lanes.len() {
            let lane = &mut lanes[i];
            if lane.left == 0 || lane.interval.size == 0 {
                out[lane.pattern] = lane.interval;
                lanes.swap_remove(i);
                continue;
            }
            let c = patterns[lane.pattern].as_ref()[lane.left - 1];
            lane.interval = searcher.extend_left(lane.interval, c);
            lane.left -= 1;
            searcher.bwt.prefetch(lane.interval.fwd);
            searcher
                .bwt
                .prefetch(lane.interval.fwd + lane.interval.size);
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
            assert_eq!(*iv, index.interval(p), "{p:?}");
        }
    }
}
