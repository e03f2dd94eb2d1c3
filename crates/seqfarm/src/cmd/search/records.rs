//! A scan task's database records as the kernel sees them: long records cut into
//! overlapping fragments, so that SIMD lanes (one database sequence each) stay busy and
//! equally long; the scores of a record's fragments are folded back into the record's.
//!
//! A record's best local alignment score is the best of its fragments' as long as
//! consecutive fragments overlap by at least the longest subject span of any alignment
//! with a positive score ([`alignment_span`]): every such alignment then lies whole in
//! some fragment, and no fragment (a substring) scores more than the record. The first
//! fragment reaching the best score also holds the leftmost-ending best alignment, which
//! is the one the traceback reports (it breaks ties subject-major), so reports do not
//! depend on where fragments start.

use std::path::Path;

use anyhow::Result;
use seqfarm_io::fasta_chunks::{FastaChunk, ResidueMap};
use seqfarm_sw::{Scoring, SequenceBlock};

/// The most subject residues an alignment of a `query_len`-residue query scoring above 0
/// can span (`None` when gaps cost nothing to extend, so spans are unbounded): at most
/// `query_len` residues face the query, and each subject residue facing a gap costs at
/// least `extend` of a score of at most `max_score x query_len`.
pub fn alignment_span(scoring: &Scoring, query_len: usize) -> Option<u64> {
    let extend = scoring.gap_extend() as u64;
    if extend == 0 {
        return None;
    }
    let best = scoring.matrix().max_score().max(0) as u64 * query_len as u64;
    Some(query_len as u64 + best / extend + 1)
}

/// How database records are cut for a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fragmenting {
    /// Residues of a fragment (records up to this length stay whole).
    pub length: usize,
    /// Residues shared by consecutive fragments.
    pub overlap: usize,
}

impl Fragmenting {
    /// Fragments for queries up to `longest_query` residues: 16 overlaps long (so the
    /// repeated residues cost at most 1/16 of the work), at least 16 Ki residues.
    pub fn for_queries(scoring: &Scoring, longest_query: usize) -> Option<Self> {
        let overlap = usize::try_from(alignment_span(scoring, longest_query)?).ok()?;
        Some(Self {
            length: overlap.saturating_mul(16).max(1 << 14),
            overlap,
        })
    }

    /// Input bytes of a piece of a long record (the bytes each piece adds after the
    /// `overlap` residues it repeats) for a kernel of `streams` lanes: whole rounds of
    /// `streams` fragments, as many as make at least `at_least` bytes, and at most
    /// `at_most` bytes (one round larger than that: `at_most`). The lanes take the
    /// fragments longest first, so a piece of `streams + 1` equal fragments would keep
    /// one lane working alone through a second round, and take twice the time. Line ends
    /// make a piece's residues fewer than its bytes: its last fragment is then short,
    /// and never one too many.
    pub fn piece_bytes(&self, streams: usize, at_least: usize, at_most: usize) -> usize {
        let round = streams * (self.length - self.overlap);
        let rounds = at_least.div_ceil(round).max(1).min(at_most / round);
        if rounds == 0 {
            at_most
        } else {
            rounds * round
        }
    }

    /// The fragments of a task whose records are `lengths` residues long, for a kernel of
    /// `streams` lanes: these when they make at least `streams` entries (records up to a
    /// fragment count one each); otherwise shorter ones, as short as leaves no more
    /// entries than lanes, but at least twice the overlap. The lanes take the entries
    /// longest first, one each here, so the kernel runs as long as the longest: the last
    /// piece of a long record (a few fragments) or a chunk of a few records of 100 kb
    /// kept most lanes empty for a whole fragment length. Any alignment still lies whole
    /// in some fragment: the overlap is the same.
    pub fn fitted(&self, lengths: impl Iterator<Item = usize> + Clone, streams: usize) -> Self {
        let overlap = self.overlap;
        let entries = |stride: usize| -> usize {
            let fragmenting = Self {
                length: stride + overlap,
                overlap,
            };
            lengths.clone().map(|len| fragmenting.count(len)).sum()
        };
        let full = self.length - overlap;
        let least = overlap.max(1);
        if least >= full || entries(full) >= streams {
            return *self;
        }
        // The shortest stride whose entries fit the lanes (entries fall as it grows).
        let (mut low, mut high) = (least, full);
        while low < high {
            let mid = low + (high - low) / 2;
            if entries(mid) <= streams {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        Self {
            length: low + overlap,
            overlap,
        }
    }

    /// Start offsets of the fragments of a record of `len` residues.
    pub fn starts(&self, len: usize) -> impl Iterator<Item = usize> {
        let step = self.length - self.overlap;
        (0..self.count(len)).map(move |k| k * step)
    }

    /// The number of fragments of a record of `len` residues.
    pub fn count(&self, len: usize) -> usize {
        if len <= self.length {
            1
        } else {
            (len - self.overlap - 1) / (self.length - self.overlap) + 1
        }
    }
}

/// A block entry: which record and where in it a fragment starts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fragment {
    /// Index of the record in the task.
    pub record: u32,
    /// Offset of the fragment's first residue in the record (in the piece, for a piece
    /// of a record).
    pub offset: usize,
}

/// A task's records, encoded and cut into the fragments the kernel scores.
#[derive(Debug, Default)]
pub struct RecordBlock {
    /// The fragments, encoded.
    pub block: SequenceBlock,
    /// What each entry of `block` is.
    pub fragments: Vec<Fragment>,
    /// The records' names, back to back.
    names: String,
    name_ends: Vec<usize>,
    /// The records' residues.
    pub lengths: Vec<u64>,
    /// One record's codes, before cutting.
    scratch: Vec<u8>,
}

impl RecordBlock {
    /// Number of records.
    pub fn records(&self) -> usize {
        self.lengths.len()
    }

    /// The name of record `index`.
    pub fn name(&self, index: usize) -> &str {
        let start = if index == 0 {
            0
        } else {
            self.name_ends[index - 1]
        };
        &self.names[start..self.name_ends[index]]
    }

    /// Parses and encodes the chunk's records (checking each with `check`), cutting
    /// those longer than a fragment when `fragmenting` is set, into fragments
    /// [`Fragmenting::fitted`] to a kernel of `streams` lanes.
    pub fn parse(
        &mut self,
        chunk: &FastaChunk,
        residue_map: &ResidueMap,
        fragmenting: Option<Fragmenting>,
        streams: usize,
        mut check: impl FnMut(&[u8], &str, &Path) -> Result<()>,
    ) -> Result<()> {
        // Residues by record, as many records as fill the lanes at most (bytes other
        // than blanks: a malformed record is reported below).
        let fragmenting = fragmenting.map(|f| {
            let lengths: Vec<usize> = chunk
                .records()
                .take(streams)
                .map(|record| {
                    record.map_or(0, |r| {
                        r.body.iter().filter(|b| !b.is_ascii_whitespace()).count()
                    })
                })
                .collect();
            f.fitted(lengths.iter().copied(), streams)
        });
        self.block.clear();
        self.fragments.clear();
        self.names.clear();
        self.name_ends.clear();
        self.lengths.clear();
        let path = &chunk.path;
        for record in chunk.records() {
            let record = record?;
            check(record.body, record.name, path)?;
            let index = self.lengths.len() as u32;
            self.names.push_str(record.name);
            self.name_ends.push(self.names.len());
            self.scratch.clear();
            record.translate(path, residue_map, &mut self.scratch)?;
            let codes = &self.scratch;
            self.lengths.push(codes.len() as u64);
            match fragmenting.filter(|f| codes.len() > f.length) {
                Some(f) => {
                    for start in f.starts(codes.len()) {
                        let end = (start + f.length).min(codes.len());
                        self.block.push_encoded(&codes[start..end]);
                        self.fragments.push(Fragment {
                            record: index,
                            offset: start,
                        });
                    }
                }
                None => {
                    self.block.push_encoded(codes);
                    self.fragments.push(Fragment {
                        record: index,
                        offset: 0,
                    });
                }
            }
        }
        Ok(())
    }
}

/// Random A/C/G/T from a linear congruential generator at `state` (for tests).
#[cfg(test)]
pub(crate) fn random_dna(state: &mut u64, n: usize) -> Vec<u8> {
    (0..n)
        .map(|_| {
            *state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            b"ACGT"[(*state >> 33) as usize % 4]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_are_fitted_to_the_lanes_of_a_task_of_few_records() {
        let default = Fragmenting {
            length: 32_016,
            overlap: 2_001,
        };
        let entries = |f: Fragmenting, lengths: &[usize]| -> usize {
            lengths.iter().map(|&len| f.count(len)).sum()
        };
        // Many records: the default fragments.
        let proteins = [300; 100];
        assert_eq!(default.fitted(proteins.iter().copied(), 64), default);
        // The last piece of a long record: 6 default fragments, now 64 short ones.
        let last_piece = [180_000];
        assert_eq!(entries(default, &last_piece), 6);
        let fitted = default.fitted(last_piece.iter().copied(), 64);
        assert_eq!((fitted.length, fitted.overlap), (2_782 + 2_001, 2_001));
        assert_eq!(entries(fitted, &last_piece), 64);
        // The shortest fragment: twice the overlap.
        let short = default.fitted([5_000].into_iter(), 64);
        assert_eq!(short.length, 4_002);
        // Ten records of 100 kb with a few short ones: no more entries than lanes.
        let mut contigs = vec![100_000; 10];
        contigs.extend([3_000, 500, 7_000]);
        let fitted = default.fitted(contigs.iter().copied(), 64);
        assert!(entries(fitted, &contigs) <= 64);
        assert!(fitted.length < 100_000 / 5 && fitted.length >= 4_002);
    }

    #[test]
    fn fitted_fragments_cover_every_record_and_fit_the_lanes() {
        let mut state = 7u64;
        let mut next = |below: usize| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            (state >> 33) as usize % below
        };
        for _ in 0..2000 {
            let overlap = 1 + next(3000);
            let default = Fragmenting {
                length: (overlap * 16).max(1 << 14),
                overlap,
            };
            let lengths: Vec<usize> = (0..1 + next(80)).map(|_| next(400_000)).collect();
            let fitted = default.fitted(lengths.iter().copied(), 64);
            assert_eq!(fitted.overlap, overlap);
            assert!(fitted.length <= default.length);
            let entries: usize = lengths.iter().map(|&len| fitted.count(len)).sum();
            let default_entries: usize = lengths.iter().map(|&len| default.count(len)).sum();
            if fitted != default {
                assert!(default_entries < 64 && entries <= 64, "{lengths:?}");
                assert!(fitted.length >= 2 * overlap, "{fitted:?}");
            }
            // The last fragment reaches the record's end, and consecutive ones share
            // the overlap: any stretch of `overlap` residues lies whole in one.
            for &len in &lengths {
                let last = fitted.starts(len).last().unwrap();
                assert!(last + fitted.length >= len, "{fitted:?} {len}");
                assert_eq!(fitted.starts(len).count(), fitted.count(len));
            }
        }
    }

    #[test]
    fn pieces_hold_whole_rounds_of_fragments() {
        let fragmenting = Fragmenting {
            length: 32_016,
            overlap: 2_001,
        };
        let stride = 32_016 - 2_001;
        let piece = fragmenting.piece_bytes(64, 1 << 20, 1 << 24);
        assert_eq!(piece, 64 * stride);
        // The first piece, and each later one with the overlap it repeats.
        assert_eq!(fragmenting.starts(piece).count(), 64);
        assert_eq!(fragmenting.starts(piece + 2_001).count(), 64);
        // Line ends: fewer residues, a fragment short of a round, never one over.
        assert_eq!(fragmenting.starts(piece * 60 / 61 + 2_001).count(), 63);
        // At least a chunk of 16 MiB: whole rounds; at most 16 MiB.
        let large = fragmenting.piece_bytes(64, 1 << 24, 1 << 24);
        assert_eq!(large, 8 * 64 * stride);
        assert_eq!(fragmenting.starts(large + 2_001).count(), 8 * 64);
        assert_eq!(fragmenting.piece_bytes(64, 1 << 20, 1 << 20), 1 << 20);
    }
    use seqfarm_sw::{scalar, ScoreMatrix};

    #[test]
    fn fragments_cover_the_record_with_the_overlap() {
        let f = Fragmenting {
            length: 10,
            overlap: 3,
        };
        for len in 0..60 {
            let starts: Vec<usize> = f.starts(len).collect();
            assert_eq!(starts[0], 0);
            let last = *starts.last().unwrap();
            assert!(last + f.length >= len, "{len}: {starts:?}");
            if len > f.length {
                assert!(last + f.overlap < len, "{len}: the last adds residues");
            }
            for w in starts.windows(2) {
                assert_eq!(w[0] + f.length - w[1], f.overlap);
            }
        }
    }

    #[test]
    fn the_best_of_the_fragments_is_the_records_score() {
        let scoring = Scoring::new(ScoreMatrix::dna(2, -3).unwrap(), 5, 2).unwrap();
        let m = scoring.matrix();
        let mut state = 7u64;
        let mut random = |n: usize| random_dna(&mut state, n);
        let subject = random(3000);
        for (from, len) in [(100, 60), (1200, 200), (2950, 50)] {
            let mut query = subject[from..from + len].to_vec();
            query[len / 2] = b'A';
            query.splice(len / 3..len / 3, random(4));
            let (q, s) = (m.encode(&query), m.encode(&subject));
            let span = alignment_span(&scoring, q.len()).unwrap() as usize;
            let f = Fragmenting {
                length: span * 2,
                overlap: span,
            };
            let best = f
                .starts(s.len())
                .map(|start| {
                    scalar::score(&scoring, &q, &s[start..(start + f.length).min(s.len())])
                })
                .max()
                .unwrap();
            assert_eq!(best, scalar::score(&scoring, &q, &s), "{from} {len}");
        }
    }
}
