//! 2-bit packed sequences and the mask of ambiguous positions they cannot hold.
//!
//! A genome is stored as [`PackedSeq`] (32 bases per `u64`, base `i` in bits
//! `2*(i%32)..2*(i%32)+2` of word `i/32`) plus an [`AmbiguityMask`] listing the runs of
//! positions whose letter is not A/C/G/T (they are packed as `A` and masked). Together,
//! as a [`Reference`], they give back every letter of the FASTA (upper-cased) at a
//! quarter of the memory, and answer "which codes lie in this window" for extension.

use crate::nucleotide::{decode, AMBIGUOUS};

/// Bases per packed word.
const BASES_PER_WORD: u64 = 32;

/// An owned 2-bit packed sequence of codes `0..=3`, grown with [`PackedSeq::push`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackedSeq {
    words: Vec<u64>,
    len: u64,
}

impl PackedSeq {
    /// An empty sequence.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends code `code` (only its low two bits are kept).
    #[inline]
    pub fn push(&mut self, code: u8) {
        let shift = 2 * (self.len % BASES_PER_WORD);
        if shift == 0 {
            self.words.push(0);
        }
        if let Some(last) = self.words.last_mut() {
            *last |= u64::from(code & 3) << shift;
        }
        self.len += 1;
    }

    /// Number of bases.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no bases.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The packed words (the last one padded with zero bits).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// A borrowed view.
    pub fn as_bases(&self) -> PackedBases<'_> {
        PackedBases {
            words: &self.words,
            len: self.len,
        }
    }
}

/// A borrowed 2-bit packed sequence (for instance inside a memory-mapped index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedBases<'a> {
    words: &'a [u64],
    len: u64,
}

impl<'a> PackedBases<'a> {
    /// Views `words` as `len` packed bases; `None` if `words` is too short for `len`.
    pub fn new(words: &'a [u64], len: u64) -> Option<Self> {
        (len.div_ceil(BASES_PER_WORD) <= words.len() as u64).then_some(Self { words, len })
    }

    /// Number of bases.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no bases.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The code at `pos` (`pos < len`, else panics like slice indexing).
    #[inline]
    pub fn code_at(&self, pos: u64) -> u8 {
        assert!(pos < self.len, "position {pos} past the end ({})", self.len);
        let word = self.words[(pos / BASES_PER_WORD) as usize];
        ((word >> (2 * (pos % BASES_PER_WORD))) & 3) as u8
    }

    /// Appends the codes of `start..end` to `out` (`end <= len`). Whole words are
    /// unpacked a byte (four codes) at a time through `BYTE_CODES`: the aligner fetches
    /// a reference window for every candidate place.
    pub fn extend_codes(&self, start: u64, end: u64, out: &mut Vec<u8>) {
        assert!(
            start <= end && end <= self.len,
            "range {start}..{end} outside 0..{}",
            self.len
        );
        let from = out.len();
        out.resize(from + (end - start) as usize, 0);
        let mut dst = &mut out[from..];
        let mut pos = start;
        // The first word's codes from `start`, when it does not start a word.
        let first = pos % BASES_PER_WORD;
        if first != 0 {
            let word = self.words[(pos / BASES_PER_WORD) as usize];
            let take = ((BASES_PER_WORD - first) as usize).min(dst.len());
            for (i, code) in dst[..take].iter_mut().enumerate() {
                *code = ((word >> (2 * (first as usize + i))) & 3) as u8;
            }
            dst = &mut dst[take..];
            pos += take as u64;
        }
        let mut words = self.words[(pos / BASES_PER_WORD) as usize..].iter();
        let mut whole = dst.chunks_exact_mut(BASES_PER_WORD as usize);
        for (codes, &word) in whole.by_ref().zip(words.by_ref()) {
            for (four, byte) in codes.chunks_exact_mut(4).zip(word.to_le_bytes()) {
                four.copy_from_slice(&BYTE_CODES[byte as usize]);
            }
        }
        // The last word's first codes.
        let rest = whole.into_remainder();
        if let Some(&word) = words.next().filter(|_| !rest.is_empty()) {
            for (i, code) in rest.iter_mut().enumerate() {
                *code = ((word >> (2 * i)) & 3) as u8;
            }
        }
    }
}

/// The four codes a byte of a packed word holds, first base in its low bits.
const BYTE_CODES: [[u8; 4]; 256] = {
    let mut table = [[0u8; 4]; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = [
            (b & 3) as u8,
            ((b >> 2) & 3) as u8,
            ((b >> 4) & 3) as u8,
            (b >> 6) as u8,
        ];
        b += 1;
    }
    table
};

/// A run of consecutive positions holding the same non-ACGT letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AmbiguityRun {
    /// First position.
    pub start: u64,
    /// Number of positions (at least 1).
    pub len: u64,
    /// The upper-case letter (N or another IUPAC code).
    pub letter: u8,
}

impl AmbiguityRun {
    /// One past the last position.
    pub fn end(&self) -> u64 {
        self.start + self.len
    }
}

/// The sorted, non-overlapping runs of ambiguous positions of a sequence.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AmbiguityMask {
    runs: Vec<AmbiguityRun>,
}

impl AmbiguityMask {
    /// An empty mask.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builds a mask from runs; `None` unless they are sorted, non-empty and disjoint.
    pub fn from_runs(runs: Vec<AmbiguityRun>) -> Option<Self> {
        let sorted = runs.windows(2).all(|w| w[0].end() <= w[1].start);
        let valid = runs
            .iter()
            .all(|r| r.len > 0 && r.start.checked_add(r.len).is_some());
        (sorted && valid).then_some(Self { runs })
    }

    /// Records that `pos` holds `letter` (upper-cased), extending the last run when
    /// `pos` follows it with the same letter. Positions must come in increasing order.
    pub fn push(&mut self, pos: u64, letter: u8) {
        let letter = letter.to_ascii_uppercase();
        if let Some(last) = self.runs.last_mut() {
            if last.end() == pos && last.letter == letter {
                last.len += 1;
                return;
            }
        }
        self.runs.push(AmbiguityRun {
            start: pos,
            len: 1,
            letter,
        });
    }

    /// The runs, sorted by position.
    pub fn runs(&self) -> &[AmbiguityRun] {
        &self.runs
    }

    /// The runs overlapping `start..end`.
    pub fn runs_in(&self, start: u64, end: u64) -> &[AmbiguityRun] {
        let first = self.runs.partition_point(|r| r.end() <= start);
        let last = first + self.runs[first..].partition_point(|r| r.start < end);
        &self.runs[first..last]
    }

    /// The ambiguous letter at `pos`, if `pos` is masked.
    pub fn letter_at(&self, pos: u64) -> Option<u8> {
        self.runs_in(pos, pos + 1).first().map(|r| r.letter)
    }

    /// Number of masked positions.
    pub fn masked_len(&self) -> u64 {
        self.runs.iter().map(|r| r.len).sum()
    }
}

/// A reference sequence: packed bases plus the mask of ambiguous positions.
#[derive(Debug, Clone, Copy)]
pub struct Reference<'a> {
    bases: PackedBases<'a>,
    mask: &'a AmbiguityMask,
}

impl<'a> Reference<'a> {
    /// Puts packed bases and their mask together.
    pub fn new(bases: PackedBases<'a>, mask: &'a AmbiguityMask) -> Self {
        Self { bases, mask }
    }

    /// Number of positions.
    pub fn len(&self) -> u64 {
        self.bases.len()
    }

    /// Whether the sequence is empty.
    pub fn is_empty(&self) -> bool {
        self.bases.is_empty()
    }

    /// The packed bases (ambiguous positions read as `A`).
    pub fn bases(&self) -> PackedBases<'a> {
        self.bases
    }

    /// The ambiguity mask.
    pub fn mask(&self) -> &'a AmbiguityMask {
        self.mask
    }

    /// The code at `pos`: `0..=3`, or [`AMBIGUOUS`] where masked. `O(log runs)`.
    pub fn code_at(&self, pos: u64) -> u8 {
        if self.mask.letter_at(pos).is_some() {
            AMBIGUOUS
        } else {
            self.bases.code_at(pos)
        }
    }

    /// The upper-case letter at `pos` as written in the FASTA (`N`, `R`, ... where masked).
    pub fn letter_at(&self, pos: u64) -> u8 {
        self.mask
            .letter_at(pos)
            .unwrap_or_else(|| decode(self.bases.code_at(pos)))
    }

    /// Writes the codes of `start..end` into `out` (cleared first), [`AMBIGUOUS`] where
    /// masked. `O(end - start + log runs)`.
    pub fn fetch_codes(&self, start: u64, end: u64, out: &mut Vec<u8>) {
        out.clear();
        self.bases.extend_codes(start, end, out);
        for run in self.mask.runs_in(start, end) {
            let from = run.start.max(start) - start;
            let to = run.end().min(end) - start;
            out[from as usize..to as usize].fill(AMBIGUOUS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nucleotide::encode;
    use proptest::prelude::*;

    fn pack(letters: &[u8]) -> (PackedSeq, AmbiguityMask) {
        let mut seq = PackedSeq::new();
        let mut mask = AmbiguityMask::new();
        for (i, &b) in letters.iter().enumerate() {
            match encode(b) {
                Some(c) if c < 4 => seq.push(c),
                _ => {
                    seq.push(0);
                    mask.push(i as u64, b);
                }
            }
        }
        (seq, mask)
    }

    proptest! {
        #[test]
        fn fetch_matches_letters(
            letters in proptest::collection::vec(prop::sample::select(b"ACGTNNRacgtn".to_vec()), 0..300),
            a in 0usize..300, b in 0usize..300,
        ) {
            let (seq, mask) = pack(&letters);
            let reference = Reference::new(seq.as_bases(), &mask);
            prop_assert_eq!(reference.len(), letters.len() as u64);
            let (start, end) = (a.min(b).min(letters.len()), a.max(b).min(letters.len()));
            let mut out = Vec::new();
            reference.fetch_codes(start as u64, end as u64, &mut out);
            let expected: Vec<u8> = letters[start..end].iter().map(|&b| encode(b).unwrap_or(AMBIGUOUS)).collect();
            prop_assert_eq!(out, expected);
            for (i, &b) in letters.iter().enumerate() {
                prop_assert_eq!(reference.letter_at(i as u64), b.to_ascii_uppercase());
            }
        }
    }

    proptest! {
        #[test]
        fn extended_codes_are_the_codes_at_each_position(
            codes in proptest::collection::vec(0u8..4, 0..400),
            a in 0usize..400, b in 0usize..400,
            before in proptest::collection::vec(0u8..4, 0..3),
        ) {
            let mut seq = PackedSeq::new();
            for &c in &codes {
                seq.push(c);
            }
            let bases = seq.as_bases();
            let (start, end) = (a.min(b).min(codes.len()), a.max(b).min(codes.len()));
            let mut out = before.clone();
            bases.extend_codes(start as u64, end as u64, &mut out);
            let mut expected = before;
            expected.extend((start..end).map(|p| bases.code_at(p as u64)));
            prop_assert_eq!(out, expected);
        }
    }

    #[test]
    fn runs_merge_and_validate() {
        let (_, mask) = pack(b"ANNNRRAN");
        assert_eq!(mask.runs().len(), 3);
        assert_eq!(
            mask.runs()[0],
            AmbiguityRun {
                start: 1,
                len: 3,
                letter: b'N'
            }
        );
        assert_eq!(mask.masked_len(), 6);
        assert!(!mask.runs_in(0, 2).is_empty() && mask.runs_in(6, 7).is_empty());
        let bad = vec![
            AmbiguityRun {
                start: 5,
                len: 2,
                letter: b'N',
            },
            AmbiguityRun {
                start: 6,
                len: 1,
                letter: b'N',
            },
        ];
        assert!(AmbiguityMask::from_runs(bad).is_none());
        assert!(PackedBases::new(&[0], 33).is_none());
    }
}
