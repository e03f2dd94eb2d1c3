//! The search's results before traceback: per query, the best database sequences (hits)
//! kept across database chunks, each with its best alignment score on each strand.

/// The best alignment found on one strand of a subject: its score and the fragment of
/// the subject where it lies (kept for the traceback).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StrandHit {
    /// Local alignment score (0: nothing found on this strand).
    pub score: i32,
    /// Offset of `codes` in the subject.
    pub offset: u64,
    /// The subject's residues from `offset` (all of them, or the fragment of a long
    /// subject whose best alignment comes first), encoded for the matrix.
    pub codes: Vec<u8>,
}

/// The better score of a plus- and a minus-strand alignment.
pub fn better_score(strands: &[StrandHit; 2]) -> i32 {
    strands[0].score.max(strands[1].score)
}

/// Which strand of a DNA subject a query aligns to (protein searches use `Plus`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strand {
    /// As written.
    #[default]
    Plus = 0,
    /// The reverse complement.
    Minus = 1,
}

impl Strand {
    /// Both, plus first.
    pub const BOTH: [Strand; 2] = [Strand::Plus, Strand::Minus];
}

/// A database sequence that may be reported for a query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hit {
    /// 0-based position of the sequence in the database (the tie-breaker).
    pub ordinal: u64,
    /// FASTA name.
    pub name: String,
    /// Residues of the whole sequence.
    pub length: u64,
    /// The best alignment on the plus and on the minus strand.
    pub strands: [StrandHit; 2],
}

impl Hit {
    /// The better of the two strands' scores: what hits are ranked by.
    pub fn score(&self) -> i32 {
        better_score(&self.strands)
    }

    /// Hits sort best first: higher score, then earlier in the database. A total order
    /// on data that does not depend on threads, so output is identical at any count.
    pub fn better_than(&self, score: i32, ordinal: u64) -> bool {
        (self.score(), std::cmp::Reverse(self.ordinal)) > (score, std::cmp::Reverse(ordinal))
    }

    /// The strands with an alignment, best first (plus first on equal scores).
    pub fn ranked_strands(&self) -> impl Iterator<Item = (Strand, &StrandHit)> {
        let mut order = Strand::BOTH;
        if self.strands[1].score > self.strands[0].score {
            order.reverse();
        }
        order
            .into_iter()
            .map(|s| (s, &self.strands[s as usize]))
            .filter(|(_, h)| h.score > 0)
    }
}

/// How many hits a query keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    /// The number asked for (`--top`).
    pub top: usize,
    /// Exactly `top` (`--top-strict`); otherwise every hit tied with the `top`-th too.
    pub strict: bool,
}

/// The best hits seen so far for one query, best first.
#[derive(Debug, Clone)]
pub struct TopHits {
    capacity: Capacity,
    hits: Vec<Hit>,
}

impl TopHits {
    /// An empty list.
    pub fn new(capacity: Capacity) -> Self {
        Self {
            capacity,
            hits: Vec::new(),
        }
    }

    /// Whether a hit with this score and ordinal would be kept.
    pub fn wants(&self, score: i32, ordinal: u64) -> bool {
        let top = self.capacity.top;
        if score <= 0 || top == 0 {
            return false;
        }
        match self.hits.get(top - 1) {
            None => true,
            Some(last) if self.capacity.strict => !last.better_than(score, ordinal),
            Some(last) => score >= last.score(),
        }
    }

    /// Offers a hit; `make` builds it (copying name and residues) only if it is kept.
    pub fn offer(&mut self, score: i32, ordinal: u64, make: impl FnOnce() -> Hit) {
        if !self.wants(score, ordinal) {
            return;
        }
        let position = self
            .hits
            .iter()
            .position(|h| !h.better_than(score, ordinal))
            .unwrap_or(self.hits.len());
        self.hits.insert(position, make());
        let top = self.capacity.top;
        if self.hits.len() > top {
            let keep = if self.capacity.strict {
                top
            } else {
                let last = self.hits[top - 1].score();
                top + self.hits[top..]
                    .iter()
                    .take_while(|h| h.score() == last)
                    .count()
            };
            self.hits.truncate(keep);
        }
    }

    /// The hits, best first.
    pub fn into_hits(self) -> Vec<Hit> {
        self.hits
    }
}

/// Cuts `candidates` (in any order) to those a [`TopHits`] of `capacity` could keep,
/// sorted best first by `key` (score, then position); what one chunk passes on.
pub fn cut_to_capacity<T>(
    candidates: &mut Vec<T>,
    capacity: Capacity,
    key: impl Fn(&T) -> (i32, u64),
) {
    let order = |c: &T| {
        let (score, position) = key(c);
        (std::cmp::Reverse(score), position)
    };
    let top = capacity.top;
    if top > 0 && candidates.len() > top {
        candidates.select_nth_unstable_by_key(top - 1, order);
        let last = key(&candidates[top - 1]).0;
        if capacity.strict {
            candidates.truncate(top);
        } else {
            candidates.retain(|c| key(c).0 >= last);
        }
    }
    candidates.sort_unstable_by_key(order);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(score: i32, ordinal: u64) -> Hit {
        let mut hit = Hit {
            ordinal,
            ..Hit::default()
        };
        hit.strands[(ordinal % 2) as usize].score = score;
        hit
    }

    fn kept(capacity: Capacity, offers: &[(i32, u64)]) -> Vec<(i32, u64)> {
        let mut top = TopHits::new(capacity);
        for &(score, ordinal) in offers {
            top.offer(score, ordinal, || hit(score, ordinal));
        }
        top.into_hits()
            .iter()
            .map(|h| (h.score(), h.ordinal))
            .collect()
    }

    #[test]
    fn top_hits_keep_the_best_with_earlier_first_on_ties() {
        let offers = [(10, 5), (0, 1), (10, 2), (10, 9), (3, 0), (12, 7)];
        let strict = Capacity {
            top: 2,
            strict: true,
        };
        assert_eq!(kept(strict, &offers), [(12, 7), (10, 2)]);
        let ties = Capacity {
            top: 2,
            strict: false,
        };
        assert_eq!(kept(ties, &offers), [(12, 7), (10, 2), (10, 5), (10, 9)]);
        // A better hit pushes the tied ones out.
        let more = [&offers[..], &[(11, 4)]].concat();
        assert_eq!(kept(ties, &more), [(12, 7), (11, 4)]);
    }

    #[test]
    fn chunk_candidates_are_cut_like_top_hits() {
        let offers = [(10, 5), (10, 2), (10, 9), (3, 0), (12, 7), (11, 4)];
        for strict in [false, true] {
            for top in 1..=6 {
                let capacity = Capacity { top, strict };
                let mut candidates = offers.to_vec();
                cut_to_capacity(&mut candidates, capacity, |&(s, o)| (s, o));
                assert_eq!(kept(capacity, &candidates), kept(capacity, &offers));
            }
        }
    }

    #[test]
    fn strands_rank_best_first_plus_on_ties() {
        let mut h = Hit::default();
        h.strands[0].score = 5;
        h.strands[1].score = 9;
        let order: Vec<Strand> = h.ranked_strands().map(|(s, _)| s).collect();
        assert_eq!(order, [Strand::Minus, Strand::Plus]);
        h.strands[0].score = 9;
        let order: Vec<Strand> = h.ranked_strands().map(|(s, _)| s).collect();
        assert_eq!(order, [Strand::Plus, Strand::Minus]);
        h.strands[1].score = 0;
        assert_eq!(h.ranked_strands().count(), 1);
    }
}
