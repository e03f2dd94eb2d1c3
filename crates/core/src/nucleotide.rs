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

/// The complement of a code: `3 - code` for A/C/G/T (`0..=3`); [`AMBIGUOUS`] and any
/// other value stay as they are, so complementing twice gives back any byte.
#[inline]
pub fn complement_code(code: u8) -> u8 {
    if code < 4 {
        3 - code
    } else {
        code
    }
}

/// The complement of a letter, case kept: `A<->T`, `C<->G`, and the IUPAC ambiguity
/// letters `R<->Y`, `K<->M`, `B<->V`, `D<->H`, `S`, `W` and `N` to themselves; `U` (RNA)
/// gives `A`. Any other byte (digits, `-`, `*`, other letters) is left as it is, so
/// complementing twice gives back every byte except `U`/`u`.
#[inline]
pub fn complement_letter(letter: u8) -> u8 {
    COMPLEMENT_OF[letter as usize]
}

/// Reverse complement of a letter sequence, in place: the order reversed and each byte
/// replaced by [`complement_letter`] (IUPAC-aware, case kept, other bytes unchanged).
pub fn reverse_complement_letters(seq: &mut [u8]) {
    seq.reverse();
    for b in seq.iter_mut() {
        *b = complement_letter(*b);
    }
}

/// Reverse complement of a code sequence, in place: the order reversed and each code
/// replaced by [`complement_code`] ([`AMBIGUOUS`] stays).
pub fn reverse_complement_codes(codes: &mut [u8]) {
    codes.reverse();
    for c in codes.iter_mut() {
        *c = complement_code(*c);
    }
}

/// Reverse complement of `codes` written to `out`, which has the same length (the codes
/// of [`reverse_complement_codes`], without touching `codes` and without allocating):
/// `out[i]` is the [`complement_code`] of `codes[len - 1 - i]`.
///
/// # Panics
/// If `out.len() != codes.len()`.
#[inline]
pub fn reverse_complement_codes_into(codes: &[u8], out: &mut [u8]) {
    assert_eq!(
        codes.len(),
        out.len(),
        "reverse complement into a slice of another length"
    );
    for (o, &c) in out.iter_mut().zip(codes.iter().rev()) {
        *o = complement_code(c);
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
    fn complement_letter_pairs() {
        let pairs = [
            (b'A', b'T'),
            (b'C', b'G'),
            (b'R', b'Y'),
            (b'K', b'M'),
            (b'B', b'V'),
            (b'D', b'H'),
            (b'S', b'S'),
            (b'W', b'W'),
            (b'N', b'N'),
        ];
        for (a, b) in pairs {
            for (x, y) in [(a, b), (b, a)] {
                assert_eq!(complement_letter(x), y);
                assert_eq!(
                    complement_letter(x.to_ascii_lowercase()),
                    y.to_ascii_lowercase()
                );
            }
        }
        assert_eq!(complement_letter(b'U'), b'A');
        assert_eq!(complement_letter(b'u'), b'a');
        for b in [b'-', b'*', b'X', b'x', b'E', b'0', b' ', b'\n', 0, 255] {
            assert_eq!(complement_letter(b), b, "{b}");
        }
    }

    #[test]
    fn complement_code_pairs() {
        assert_eq!(
            [0, 1, 2, 3, AMBIGUOUS, 255].map(complement_code),
            [3, 2, 1, 0, AMBIGUOUS, 255]
        );
    }

    #[test]
    fn reverse_complements_into_match_in_place() {
        let mut letters = b"ACGTNRYKMBVDHSWUacgtnu-*x".to_vec();
        reverse_complement_letters(&mut letters);
        assert_eq!(&letters, b"x*-anacgtAWSDHBVKMRYNACGT");
        let codes = [0, 0, 1, 2, 3, AMBIGUOUS, 3];
        let mut in_place = codes.to_vec();
        reverse_complement_codes(&mut in_place);
        let mut out = [9; 7];
        reverse_complement_codes_into(&codes, &mut out);
        assert_eq!(out.as_slice(), in_place.as_slice());
        assert_eq!(out, [0, AMBIGUOUS, 0, 1, 2, 3, 3]);
        reverse_complement_codes_into(&[], &mut []);
    }

    #[test]
    #[should_panic(expected = "another length")]
    fn reverse_complement_into_needs_the_same_length() {
        reverse_complement_codes_into(&[0, 1, 2], &mut [0; 2]);
    }

    #[test]
    fn encode_into_reports_first_bad_byte() {
        let mut out = Vec::new();
        assert_eq!(encode_into(b"ACgtN", &mut out), Ok(()));
        assert_eq!(out, vec![0, 1, 2, 3, AMBIGUOUS]);
        assert_eq!(encode_into(b"AC1T", &mut out), Err(2));
    }

    mod properties {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            /// Every byte but `U`/`u` is its complement's complement, so twice gives back
            /// any such sequence.
            #[test]
            fn letters_twice_give_back_the_input(
                seq in proptest::collection::vec(any::<u8>().prop_filter("not U", |b| !matches!(b, b'U' | b'u')), 0..200)
            ) {
                let mut twice = seq.clone();
                reverse_complement_letters(&mut twice);
                reverse_complement_letters(&mut twice);
                prop_assert_eq!(twice, seq);
            }

            #[test]
            fn codes_twice_give_back_the_input(seq in proptest::collection::vec(0u8..=AMBIGUOUS, 0..200)) {
                let mut twice = seq.clone();
                reverse_complement_codes(&mut twice);
                let mut into = vec![0; seq.len()];
                reverse_complement_codes_into(&seq, &mut into);
                prop_assert_eq!(&into, &twice);
                reverse_complement_codes(&mut twice);
                prop_assert_eq!(twice, seq);
            }

            /// The complement of a letter's code is the code of its complement.
            #[test]
            fn codes_follow_letters(letter in prop::sample::select(b"ACGTUacgtuNRYnry".to_vec())) {
                prop_assert_eq!(
                    encode(complement_letter(letter)).map(complement_code),
                    encode(letter)
                );
            }
        }
    }
}
