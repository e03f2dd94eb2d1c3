//! The indexed text `X · revcomp(X)` at 2 bits per character, as the suffix sort reads it.
//!
//! Separators are stored as `A` in the packed words and listed beside them (sorted, with
//! a bit per 32-character word that holds one), so the common case of a window without a
//! separator costs one bit test. Suffixes are compared through [`PackedText::key`]: 21
//! characters as 3-bit values whose integer order is the text order (end of text <
//! separator < A < C < G < T), so a key comparison compares 21 characters at once.

use seqfarm_core::PackedSeq;

use super::huge::HugeArray;
use crate::occ::prefetch;
use crate::reference::Layout;

/// Characters per comparison key.
pub(crate) const KEY_CHARS: u64 = 21;

/// Four 2-bit codes (first in the low bits) → four 3-bit key characters (first in the
/// high bits), each code `c` as `c + 2`.
const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let mut v = 0u64;
        let mut k = 0;
        while k < 4 {
            v = (v << 3) | (((b >> (2 * k)) & 3) as u64 + 2);
            k += 1;
        }
        table[b] = v;
        b += 1;
    }
    table
};

/// The text `X · revcomp(X)`, 2 bits per character, with its separators.
pub(crate) struct PackedText {
    /// 32 characters per word, character `i` at bits `2 * (i % 32)`; two zero words of
    /// padding so that windows past the end read zeros.
    words: HugeArray<u64>,
    len: u64,
    /// Sorted positions of the separators.
    separators: Vec<u64>,
    /// Bit `w` set when word `w` holds a separator.
    separator_words: Vec<u64>,
}

impl PackedText {
    /// Lays out the text of `layout` from the packed reference.
    pub fn new(layout: &Layout, bases: &PackedSeq) -> std::io::Result<Self> {
        let half = layout.half_len;
        let len = 2 * half;
        let mut words = HugeArray::zeroed((len.div_ceil(32) + 2) as usize)?;
        let mut separators = Vec::with_capacity(2 * layout.fragments.len());
        let packed = bases.as_bases();
        let mut codes = Vec::new();
        const CHUNK: u64 = 1 << 20;
        for fragment in &layout.fragments {
            let mut done = 0;
            while done < fragment.len {
                let take = CHUNK.min(fragment.len - done);
                codes.clear();
                let from = fragment.global_start + done;
                packed.extend_codes(from, from + take, &mut codes);
                let at = fragment.text_start + done;
                for (i, &code) in codes.iter().enumerate() {
                    set(&mut words, at + i as u64, code);
                    // The mirror image: position 2h-1-p holds the complement.
                    set(&mut words, len - 1 - (at + i as u64), 3 - code);
                }
                done += take;
            }
            separators.push(fragment.text_start + fragment.len);
        }
        let mirrored: Vec<u64> = separators.iter().rev().map(|&s| len - 1 - s).collect();
        separators.extend(mirrored);
        let mut separator_words = vec![0u64; (len.div_ceil(32) as usize).div_ceil(64) + 1];
        for &s in &separators {
            let w = s / 32;
            separator_words[(w / 64) as usize] |= 1 << (w % 64);
        }
        Ok(Self {
            words,
            len,
            separators,
            separator_words,
        })
    }

    /// Number of characters.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> u64 {
        8 * (self.words.len() + self.separators.len() + self.separator_words.len()) as u64
    }

    /// The separators' positions, sorted.
    pub fn separators(&self) -> &[u64] {
        &self.separators
    }

    /// The 2-bit code at `p` (`A` for a separator, 0 past the end).
    #[inline(always)]
    pub fn code(&self, p: u64) -> u8 {
        ((self.words[(p / 32) as usize] >> (2 * (p % 32))) & 3) as u8
    }

    /// Whether word `w` (characters `32w..32w+32`) holds a separator.
    #[inline(always)]
    fn word_has_separator(&self, w: u64) -> bool {
        self.separator_words
            .get((w / 64) as usize)
            .is_some_and(|bits| bits >> (w % 64) & 1 != 0)
    }

    /// Whether a separator or the end of the text lies in `from..to`.
    #[inline]
    pub fn has_barrier(&self, from: u64, to: u64) -> bool {
        if to > self.len {
            return true;
        }
        if (from / 32..=(to.max(from + 1) - 1) / 32).all(|w| !self.word_has_separator(w)) {
            return false;
        }
        let i = self.separators.partition_point(|&s| s < from);
        self.separators.get(i).is_some_and(|&s| s < to)
    }

    /// The symbol at `p`: `None` for a separator, else the code.
    #[inline]
    pub fn symbol(&self, p: u64) -> Option<u8> {
        let code = self.code(p);
        if self.word_has_separator(p / 32) && code == 0 && self.separators.binary_search(&p).is_ok()
        {
            return None;
        }
        Some(code)
    }

    /// Starts loading the word holding character `p`.
    #[inline(always)]
    pub fn prefetch(&self, p: u64) {
        if let Some(w) = self.words.get((p / 32) as usize) {
            prefetch(w);
        }
    }

    /// The 32 codes at `p..p + 32`, character `p` in the low bits.
    #[inline(always)]
    fn raw(&self, p: u64) -> u64 {
        let w = (p / 32) as usize;
        let s = 2 * (p % 32);
        let lo = self.words[w] >> s;
        if s == 0 {
            lo
        } else {
            lo | (self.words[w + 1] << (64 - s))
        }
    }

    /// The comparison key of characters `p..p + 21`: 3 bits each, the first in the high
    /// bits, 0 past the end, 1 for a separator, 2..=5 for A..T. Keys order as the
    /// characters do; equal keys mean 21 equal characters.
    #[inline(always)]
    pub fn key(&self, p: u64) -> u64 {
        if p >= self.len {
            return 0;
        }
        let raw = self.raw(p);
        let mut key = (SPREAD[(raw & 255) as usize] << 51)
            | (SPREAD[(raw >> 8 & 255) as usize] << 39)
            | (SPREAD[(raw >> 16 & 255) as usize] << 27)
            | (SPREAD[(raw >> 24 & 255) as usize] << 15)
            | (SPREAD[(raw >> 32 & 255) as usize] << 3)
            | ((raw >> 40 & 3) + 2);
        let end = p + KEY_CHARS;
        if self.word_has_separator(p / 32) || self.word_has_separator((end - 1) / 32) {
            let first = self.separators.partition_point(|&s| s < p);
            for &s in self.separators[first..].iter().take_while(|&&s| s < end) {
                let shift = 3 * (end - 1 - s);
                key = (key & !(7 << shift)) | (1 << shift);
            }
        }
        if end > self.len {
            key &= !((1u64 << (3 * (end - self.len))) - 1);
        }
        key
    }

    /// Compares the suffixes at `a` and `b`, known to agree on their first `depth`
    /// characters.
    #[inline]
    pub fn compare_from(&self, a: u64, b: u64, mut depth: u64) -> std::cmp::Ordering {
        loop {
            let (ka, kb) = (self.key(a + depth), self.key(b + depth));
            if ka != kb {
                return ka.cmp(&kb);
            }
            if ka & 7 == 0 {
                // Both ended at the same place: only the same suffix does that.
                return a.cmp(&b);
            }
            depth += KEY_CHARS;
        }
    }
}

#[inline(always)]
fn set(words: &mut [u64], p: u64, code: u8) {
    words[(p / 32) as usize] |= u64::from(code) << (2 * (p % 32));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::ReferenceBuilder;

    fn naive_text(reference: &ReferenceBuilder) -> Vec<u8> {
        // 0 = separator, 1..=4 = A..T, as the key numbers them minus one.
        let layout = &reference.layout;
        let mut x = vec![0u8; layout.half_len as usize];
        for f in &layout.fragments {
            for i in 0..f.len {
                x[(f.text_start + i) as usize] =
                    reference.bases.as_bases().code_at(f.global_start + i) + 1;
            }
        }
        let mirror: Vec<u8> = x
            .iter()
            .rev()
            .map(|&s| if s == 0 { 0 } else { 5 - s })
            .collect();
        x.extend(mirror);
        x
    }

    #[test]
    fn keys_and_symbols_match_the_text() {
        let mut reference = ReferenceBuilder::new();
        reference
            .add_contig("a", b"ACGTTGCANNACGTAGGATTACAGGGATTTACCCAGT")
            .unwrap();
        reference.add_contig("b", b"TTTTNAAAAACGCGCG").unwrap();
        let text = PackedText::new(&reference.layout, &reference.bases).unwrap();
        let naive = naive_text(&reference);
        assert_eq!(text.len(), naive.len() as u64);
        for p in 0..naive.len() + 3 {
            let mut key = 0u64;
            for k in 0..KEY_CHARS as usize {
                let c = naive.get(p + k).map_or(0, |&s| u64::from(s) + 1);
                key = (key << 3) | c;
            }
            assert_eq!(text.key(p as u64), key, "key at {p}");
            if p < naive.len() {
                let s = naive[p];
                assert_eq!(text.symbol(p as u64), (s != 0).then(|| s - 1), "at {p}");
                for to in p..naive.len() + 2 {
                    let naive_barrier =
                        to > naive.len() || naive[p..to.min(naive.len())].contains(&0);
                    assert_eq!(text.has_barrier(p as u64, to as u64), naive_barrier);
                }
            }
        }
    }
}
