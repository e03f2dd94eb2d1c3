//! Nucleotide letters and their 2-bit codes.
//!
//! Codes: `A=0, C=1, G=2, T=3`; [`AMBIGUOUS`] (`4`) stands for any other IUPAC letter
//! (N, R, Y, ...), which never matches anything in seqfarm's exact-match kernels.

/// The code of a base that is not A, C, G or T (N or another IUPAC ambiguity letter).
pub const AMBIGUOUS: u8 = 4;

/// Letter → code: `A/a=0, C/c=1, G/g=2, T/t=3` (`U/u` as T), IUPAC ambiguity letters
/// → [`AMBIGUOUS`], anything else → 255.
const CODE_OF: [u8; 256] = {
    let mut table = [255u8; 256];
    let iupac = b"NRYSWKMBDHVnryswkmbdhv";
    let mut i = 0;
    while i < iupac.len() {
        table[iupac[i] as usize] = AMBIGUOUS;
        i += 1;
    }
    table[b'A' as usize] = 0;
    table[b'a' as usize] = 0;
    table[b'C' as usize] = 1;
    table[b'c' as usize] = 1;
    table[b'G' as usize] = 2;
    table[b'g' as usize] = 2;
    table[b'T' as usize] = 3;
    table[b't' as usize] = 3;
    table[b'U' as usize] = 3;
    table[b'u' as usize] = 3;
    table
};

/// Letter → complementary letter (IUPAC-aware, case kept); other bytes map to themselves.
const COMPLEMENT_OF: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = i as u8;
        i += 1;
    }
    let pairs = b"ATCGRYKMBVDHSSWWNNUA";
    let mut p = 0;
    while p < pairs.len() {
        let (a, b) = (pairs[p], pairs[p + 1]);
        table[a as usize] = b;
        table[(a + 32) as usize] = b + 32;
        if a != b'U' {
            table[b as usize] = a;
            table[(b + 32) as usize] = a + 32;
        }
        p += 2;
    }
    table
};

/// The code of `letter`: `Some(0..=3)` for A/C/G/T (either case; U as T),
/// `Some(AMBIGUOUS)` for an IUPAC ambiguity letter, `None` for anything else.
#[inline]
pub fn encode(letter: u8) -> Option<u8> {
    match CODE_OF[letter as usize] {
        255 => None,
        code => Some(code),
    }
}

/// The upper-case letter of code `code` (`0..=3`); [`AMBIGUOUS`] and above give `N`.
#[inline]
pub fn decode(code: u8) -> u8 {
    match code {
        0 => b'A',
        1 => b'C',
        2 => b'G',
        3 => b'T',
        _ => b'N',
    }
}

/// The complement of a code: `3 - code` for A/C/G/T, [`AMBIGUOUS`] stays ambiguous.
#[inline]
pub fn complement_code(code: u8) -> u8 {
    if code < 4 {
        3 - code
    } else {
        code
    }
}

/// The complement of a letter (IUPAC-aware, case kept).
#[inline]
pub fn complement_letter(letter: u8) -> u8 {
    COMPLEMENT_OF[letter as usize]
}

/// Reverse complement of a letter sequence, in place.
pub fn reverse_complement_letters(seq: &mut [u8]) {
    seq.reverse();
    for b in seq.iter_mut() {
        *b = complement_letter(*b);
    }
}

/// Reverse complement of a code sequence, in place ([`AMBIGUOUS`] stays).
pub fn reverse_complement_codes(codes: &mut [u8]) {
    codes.reverse();
    for c in codes.iter_mut() {
        *c = complement_code(*c);
    }
}

/// Encodes `letters` into `out` (cleared first): A/C/G/T → `0..=3`, IUPAC ambiguity
/// letters → [`AMBIGUOUS`]. Returns the index of the first byte that is not a nucleotide
/// letter, if any (then `out` is incomplete).
pub fn encode_into(letters: &[u8], out: &mut Vec<u8>) -> Result<(), usize> {
    out.clear();
    out.reserve(letters.len());
    for (i, &b) in letters.iter().enumerate() {
        match CODE_OF[b as usize] {
            255 => return Err(i),
            code => out.push(code),
        }
    }
    Ok(())
}

/// A strand of the reference: forward (`+`) or reverse complement (`-`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Strand {
    /// The sequence as written in the reference (`+`).
    Forward,
    /// The reverse complement (`-`).
    Reverse,
}

impl Strand {
    /// `'+'` or `'-'`.
    pub fn symbol(self) -> char {
        match self {
            Strand::Forward => '+',
            Strand::Reverse => '-',
        }
    }
}

impl std::fmt::Display for Strand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.symbol())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_letters_round_trip() {
        for (letter, code) in [(b'A', 0), (b'c', 1), (b'G', 2), (b't', 3), (b'U', 3)] {
            assert_eq!(encode(letter), Some(code));
        }
        assert_eq!(encode(b'N'), Some(AMBIGUOUS));
        assert_eq!(encode(b'r'), Some(AMBIGUOUS));
        assert_eq!(encode(b'X'), None);
        assert_eq!(encode(b'-'), None);
        assert_eq!(decode(2), b'G');
        assert_eq!(decode(AMBIGUOUS), b'N');
    }

    #[test]
    fn reverse_complement_is_iupac_aware() {
        let mut s = b"ACGTNRYKMacgtn".to_vec();
        reverse_complement_letters(&mut s);
        assert_eq!(&s, b"nacgtKMRYNACGT");
        let mut c = vec![0, 1, 2, 3, AMBIGUOUS];
        reverse_complement_codes(&mut c);
        assert_eq!(c, vec![AMBIGUOUS, 0, 1, 2, 3]);
        for b in 0..=255u8 {
            if b.is_ascii_alphabetic() && b != b'U' && b != b'u' {
                assert_eq!(complement_letter(complement_letter(b)), b, "{}", b as char);
            }
        }
    }

    #[test]
    fn encode_into_reports_first_bad_byte() {
        let mut out = Vec::new();
        assert_eq!(encode_into(b"ACgtN", &mut out), Ok(()));
        assert_eq!(out, vec![0, 1, 2, 3, AMBIGUOUS]);
        assert_eq!(encode_into(b"AC1T", &mut out), Err(2));
    }
}
