//! Batched queries: many independent searches advanced in lock step, each step's memory
//! accesses prefetched one round ahead, so the cache misses of a batch overlap instead
//! of adding up. Same answers as the one-at-a-time functions (tests compare them).

use crate::intervals::{intervals_many, Search};
use crate::occ::{with_popcount, Bwt};
use crate::sa::SampledSa;
use crate::search::Searcher;

/// Searches in flight at once.
const LANES: usize = 16;

/// Counts each pattern (codes; ambiguous → 0) into `out` (cleared first), as
/// `Searcher::count` would: the sizes of the intervals [`intervals_many`] finds.
pub(crate) fn count_many<P: AsRef<[u8]>>(
    searcher: &Searcher<'_>,
    patterns: &[P],
    out: &mut Vec<u64>,
) {
    let (mut intervals, mut searched) = (Vec::new(), Vec::new());
    intervals_many(
        searcher,
        patterns,
        Search::Whole,
        &mut intervals,
        &mut searched,
    );
    out.clear();
    out.extend(intervals.iter().map(|iv| iv.size));
}

/// `SA` of each row, into `out` (cleared first; `None` only in a damaged index), as
/// `SampledSa::value` would, walking up to [`LANES`] rows at once (their state on the
/// stack, so a call allocates nothing once `out` has grown). The walk's `LF` steps
/// inline into the one copy [`with_popcount`] picks.
pub(crate) fn sa_values(
    sa: &SampledSa<'_>,
    bwt: &Bwt<'_>,
    rows: &[u64],
    out: &mut Vec<Option<u64>>,
) {
    with_popcount!(sa: SampledSa<'_>, bwt.popcnt, sa_values_popcnt, values_counted(bwt: &Bwt<'_>, rows: &[u64], out: &mut Vec<Option<u64>>) -> ())
}

impl SampledSa<'_> {
    /// [`sa_values`] as the calling function is compiled.
    #[inline(always)]
    fn values_counted(&self, bwt: &Bwt<'_>, rows: &[u64], out: &mut Vec<Option<u64>>) {
        out.clear();
        out.resize(rows.len(), None);
        // (index into rows, current row, steps so far); the first `live` are walking.
        let mut lanes = [(0usize, 0u64, 0u64); LANES];
        let mut live = 0usize;
        let mut next = 0usize;
        let limit = bwt.len();
        loop {
            while live < LANES && next < rows.len() {
                bwt.prefetch(rows[next]);
                lanes[live] = (next, rows[next], 0);
                live += 1;
                next += 1;
            }
            if live == 0 {
                break;
            }
            let mut i = 0;
            while i < live {
                let (k, row, steps) = lanes[i];
                let finished = if let Some(sample) = self.sample_at(row) {
                    Some(self.samples.get(sample).map(|v| v + steps))
                } else if steps > limit {
                    Some(None)
                } else {
                    match bwt.lf_counted(row) {
                        Some(next_row) => {
                            bwt.prefetch(next_row);
                            if let Some(sample) = self.sample_at(next_row) {
                                self.samples.prefetch(sample);
                            }
                            lanes[i] = (k, next_row, steps + 1);
                            None
                        }
                        None => Some(bwt.dollar_sa(row).map(|v| v + steps)),
                    }
                };
                match finished {
                    Some(value) => {
                        out[k] = value;
                        live -= 1;
                        lanes[i] = lanes[live];
                    }
                    None => i += 1,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{build, BuildOptions, FmIndex, ReferenceBuilder};

    #[test]
    fn batched_answers_equal_one_at_a_time() {
        let mut state = 7u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut reference = ReferenceBuilder::new();
        for k in 0..3 {
            let seq: Vec<u8> = (0..3000)
                .map(|i| {
                    if i % 701 == 5 {
                        b'N'
                    } else {
                        b"ACGT"[(next() % 4) as usize]
                    }
                })
                .collect();
            reference.add_contig(&format!("c{k}"), &seq).unwrap();
        }
        let options = BuildOptions {
            sa_rate: 8,
            kmer_len: Some(4),
            threads: 2,
            ..BuildOptions::default()
        };
        let index = FmIndex::from_image(&build(reference, &options, &mut |_| {}).unwrap()).unwrap();
        let rows: Vec<u64> = (0..index.bwt.len()).collect();
        let mut batched = Vec::new();
        super::sa_values(&index.sa, &index.bwt, &rows, &mut batched);
        for (&row, value) in rows.iter().zip(&batched) {
            assert_eq!(*value, index.sa.value(&index.bwt, row), "row {row}");
        }
        let patterns: Vec<Vec<u8>> = (0..500)
            .map(|k| (0..1 + k % 12).map(|_| (next() % 4) as u8).collect())
            .collect();
        let mut counts = Vec::new();
        index.count_many(&patterns, &mut counts);
        for (p, &c) in patterns.iter().zip(&counts) {
            assert_eq!(c, index.count(p));
            assert_eq!(c, index.interval(p).size);
        }
    }
}
