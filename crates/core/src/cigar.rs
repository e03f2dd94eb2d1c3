//! CIGAR operations in SAM's letters and BAM's codes, one vocabulary for every crate:
//!
//! * [`CigarOp`]: the nine operations of the SAM specification, with their letter
//!   (`MIDNSHP=X`) and BAM code (`0..=8`);
//! * [`BamCigar`]: a borrowed CIGAR as a BAM record stores it, little-endian
//!   `length << 4 | code` words;
//! * [`Cigar`]: an owned CIGAR in the same encoding, built one operation at a time (as
//!   an aligner's traceback does), adjacent equal operations merged.

use std::fmt;

/// The SAM letters of the CIGAR operations, in BAM code order.
pub const LETTERS: &[u8; 9] = b"MIDNSHP=X";

/// A CIGAR operation; its discriminant is its BAM code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum CigarOp {
    /// `M`: alignment match or mismatch.
    Match = 0,
    /// `I`: insertion to the reference.
    Insertion = 1,
    /// `D`: deletion from the reference.
    Deletion = 2,
    /// `N`: skipped reference region (intron).
    Skip = 3,
    /// `S`: soft clip (read bases left unaligned).
    SoftClip = 4,
    /// `H`: hard clip.
    HardClip = 5,
    /// `P`: padding.
    Pad = 6,
    /// `=`: sequence match.
    SeqMatch = 7,
    /// `X`: sequence mismatch.
    SeqMismatch = 8,
}

impl CigarOp {
    /// Every operation, in code order.
    pub const ALL: [CigarOp; 9] = [
        CigarOp::Match,
        CigarOp::Insertion,
        CigarOp::Deletion,
        CigarOp::Skip,
        CigarOp::SoftClip,
        CigarOp::HardClip,
        CigarOp::Pad,
        CigarOp::SeqMatch,
        CigarOp::SeqMismatch,
    ];

    /// The BAM code (`0..=8`).
    #[inline(always)]
    pub const fn code(self) -> u32 {
        self as u32
    }

    /// The operation of a BAM code; `None` for a code above 8.
    #[inline(always)]
    pub const fn from_code(code: u32) -> Option<Self> {
        Some(match code {
            0 => CigarOp::Match,
            1 => CigarOp::Insertion,
            2 => CigarOp::Deletion,
            3 => CigarOp::Skip,
            4 => CigarOp::SoftClip,
            5 => CigarOp::HardClip,
            6 => CigarOp::Pad,
            7 => CigarOp::SeqMatch,
            8 => CigarOp::SeqMismatch,
            _ => return None,
        })
    }

    /// The SAM letter.
    #[inline]
    pub const fn letter(self) -> u8 {
        LETTERS[self as usize]
    }

    /// The operation of a SAM letter; `None` for any other byte.
    pub fn from_letter(letter: u8) -> Option<Self> {
        LETTERS
            .iter()
            .position(|&l| l == letter)
            .map(|code| CigarOp::ALL[code])
    }

    /// Whether the operation consumes query (read) bases: `M`, `I`, `S`, `=`, `X`.
    #[inline(always)]
    pub const fn consumes_query(self) -> bool {
        has_code(QUERY_CODES, self as u32)
    }

    /// Whether the operation consumes reference bases: `M`, `D`, `N`, `=`, `X`.
    #[inline(always)]
    pub const fn consumes_reference(self) -> bool {
        has_code(REFERENCE_CODES, self as u32)
    }

    /// Whether the operation aligns a read base to a reference base: `M`, `=`, `X`.
    #[inline(always)]
    pub const fn is_aligned(self) -> bool {
        has_code(ALIGNED_CODES, self as u32)
    }

    /// The BAM word of `len` bases of this operation: `len << 4 | code`.
    #[inline(always)]
    pub const fn word(self, len: u32) -> u32 {
        len << 4 | self as u32
    }
}

/// Bit `code` set for each operation that consumes query bases (`M`, `I`, `S`, `=`, `X`).
const QUERY_CODES: u16 = 0b1_1001_0011;
/// Bit `code` set for each operation that consumes reference bases (`M`, `D`, `N`, `=`,
/// `X`).
const REFERENCE_CODES: u16 = 0b1_1000_1101;
/// Bit `code` set for each operation that aligns a read base (`M`, `=`, `X`).
const ALIGNED_CODES: u16 = 0b1_1000_0001;

/// Whether bit `code` (`0..=15`; no set holds a code above 8) of `set` is set: one
/// shift instead of a match.
#[inline(always)]
const fn has_code(set: u16, code: u32) -> bool {
    set >> code & 1 != 0
}

/// The operation of each 4-bit code; codes above 8 (never written by [`Cigar::push`])
/// read as `M`.
const OP_OF_CODE: [CigarOp; 16] = {
    let mut table = [CigarOp::Match; 16];
    let mut code = 0;
    while code < CigarOp::ALL.len() {
        table[code] = CigarOp::ALL[code];
        code += 1;
    }
    table
};

/// A BAM CIGAR word split into its code (any of `0..=15`) and its length.
#[inline(always)]
pub const fn split_word(word: u32) -> (u32, u32) {
    (word & 0xf, word >> 4)
}

/// A CIGAR as a BAM record stores it: little-endian `length << 4 | code` words,
/// borrowed. Operations with a code above 8 are kept as stored; [`BamCigar::ops`]
/// passes over them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BamCigar<'a>(&'a [u8]);

impl<'a> BamCigar<'a> {
    /// Views `bytes` (four per operation) as a CIGAR.
    #[inline]
    pub const fn new(bytes: &'a [u8]) -> Self {
        Self(bytes)
    }

    /// The operations as stored.
    #[inline]
    pub const fn as_bytes(self) -> &'a [u8] {
        self.0
    }

    /// Number of operations.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.len() / 4
    }

    /// Whether there is no operation (`*`).
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0.is_empty()
    }

    /// The words as `(code, length)`, unknown codes included.
    #[inline]
    pub fn codes(self) -> impl DoubleEndedIterator<Item = (u32, u32)> + 'a {
        self.0
            .chunks_exact(4)
            .map(|c| split_word(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
    }

    /// The operations as `(op, length)`; a code above 8 is passed over.
    #[inline]
    pub fn ops(self) -> impl Iterator<Item = (CigarOp, u32)> + 'a {
        self.codes()
            .filter_map(|(code, len)| CigarOp::from_code(code).map(|op| (op, len)))
    }

    /// Whether an operation code is outside the nine the SAM specification defines.
    #[inline]
    pub fn has_unknown_op(self) -> bool {
        self.codes()
            .any(|(code, _)| code > CigarOp::SeqMismatch.code())
    }

    /// Reference bases covered (`M`, `D`, `N`, `=`, `X`), as htslib's `bam_cigar2rlen`.
    #[inline]
    pub fn reference_span(self) -> i64 {
        self.sum_of(REFERENCE_CODES)
    }

    /// Query bases covered (`M`, `I`, `S`, `=`, `X`), as htslib's `bam_cigar2qlen`.
    #[inline]
    pub fn query_len(self) -> i64 {
        self.sum_of(QUERY_CODES)
    }

    /// The summed lengths of the operations whose code is in `set` (no unknown code is).
    #[inline]
    fn sum_of(self, set: u16) -> i64 {
        let mut sum = 0;
        for (code, len) in self.codes() {
            if has_code(set, code) {
                sum += i64::from(len);
            }
        }
        sum
    }
}

/// An owned CIGAR: BAM words in read order, adjacent equal operations merged.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Cigar {
    words: Vec<u32>,
}

impl Clone for Cigar {
    fn clone(&self) -> Self {
        Self {
            words: self.words.clone(),
        }
    }

    /// Copies `source`'s operations into this CIGAR's allocation.
    #[inline]
    fn clone_from(&mut self, source: &Self) {
        self.words.clone_from(&source.words);
    }
}

impl Cigar {
    /// An empty CIGAR.
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }

    /// Removes every operation (keeps the allocation).
    #[inline]
    pub fn clear(&mut self) {
        self.words.clear();
    }

    /// Appends `len` bases of `op`, merging with the last operation when it is the same.
    #[inline]
    pub fn push(&mut self, op: CigarOp, len: u32) {
        if len == 0 {
            return;
        }
        if let Some(last) = self.words.last_mut() {
            if *last & 0xf == op.code() {
                *last += len << 4;
                return;
            }
        }
        self.words.push(op.word(len));
    }

    /// Reverses the order of the operations (tracebacks produce them backwards).
    #[inline]
    pub fn reverse(&mut self) {
        self.words.reverse();
    }

    /// The operations in BAM's encoding.
    #[inline]
    pub fn encoded(&self) -> &[u32] {
        &self.words
    }

    /// The operations as `(op, length)`.
    #[inline]
    pub fn ops(&self) -> impl Iterator<Item = (CigarOp, u32)> + '_ {
        self.words
            .iter()
            .map(|&word| (OP_OF_CODE[(word & 0xf) as usize], word >> 4))
    }

    /// Whether there are no operations.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Read bases the CIGAR covers (soft clips included).
    #[inline]
    pub fn read_len(&self) -> usize {
        self.sum_of(QUERY_CODES)
    }

    /// Reference bases the CIGAR covers.
    #[inline]
    pub fn reference_len(&self) -> usize {
        self.sum_of(REFERENCE_CODES)
    }

    /// The summed lengths of the operations whose code is in `set`.
    #[inline]
    fn sum_of(&self, set: u16) -> usize {
        self.words
            .iter()
            .filter(|&&word| has_code(set, word & 0xf))
            .map(|&word| (word >> 4) as usize)
            .sum()
    }

    /// The packed form of the operations, as a BAM record stores them.
    pub fn to_bam_bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

impl From<BamCigar<'_>> for Cigar {
    /// The operations of `cigar` (a code above 8 is passed over), merged as
    /// [`Cigar::push`] merges them.
    fn from(cigar: BamCigar<'_>) -> Self {
        let mut owned = Cigar::new();
        for (op, len) in cigar.ops() {
            owned.push(op, len);
        }
        owned
    }
}

impl fmt::Display for Cigar {
    /// The SAM text: `*` when empty.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.words.is_empty() {
            return f.write_str("*");
        }
        for (op, len) in self.ops() {
            write!(f, "{len}{}", char::from(op.letter()))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packs `(op, len)` operations as BAM stores them.
    fn pack(ops: &[(CigarOp, u32)]) -> Vec<u8> {
        ops.iter()
            .flat_map(|&(op, len)| op.word(len).to_le_bytes())
            .collect()
    }

    #[test]
    fn letters_and_codes_round_trip() {
        for (code, op) in CigarOp::ALL.into_iter().enumerate() {
            assert_eq!(op.code(), code as u32);
            assert_eq!(CigarOp::from_code(op.code()), Some(op));
            assert_eq!(CigarOp::from_letter(op.letter()), Some(op));
            assert_eq!(op.letter(), LETTERS[code]);
            assert_eq!(split_word(op.word(1234)), (op.code(), 1234));
        }
        assert_eq!(CigarOp::from_code(9), None);
        assert_eq!(CigarOp::from_code(15), None);
        assert_eq!(CigarOp::from_letter(b'B'), None);
        assert_eq!(CigarOp::from_letter(b'm'), None);
    }

    #[test]
    fn what_each_operation_consumes() {
        let query: Vec<u8> = CigarOp::ALL
            .into_iter()
            .filter(|op| op.consumes_query())
            .map(CigarOp::letter)
            .collect();
        let reference: Vec<u8> = CigarOp::ALL
            .into_iter()
            .filter(|op| op.consumes_reference())
            .map(CigarOp::letter)
            .collect();
        let aligned: Vec<u8> = CigarOp::ALL
            .into_iter()
            .filter(|op| op.is_aligned())
            .map(CigarOp::letter)
            .collect();
        assert_eq!((&query[..], &reference[..]), (&b"MIS=X"[..], &b"MDN=X"[..]));
        assert_eq!(aligned, b"M=X");
    }

    #[test]
    fn cigar_merges_and_prints() {
        let mut c = Cigar::new();
        c.push(CigarOp::SoftClip, 2);
        c.push(CigarOp::Match, 3);
        c.push(CigarOp::Match, 4);
        c.push(CigarOp::Deletion, 1);
        c.push(CigarOp::Insertion, 0);
        c.push(CigarOp::Match, 10);
        assert_eq!(c.to_string(), "2S7M1D10M");
        assert_eq!(c.read_len(), 19);
        assert_eq!(c.reference_len(), 18);
        assert_eq!(Cigar::new().to_string(), "*");
        let mut copy = Cigar::new();
        copy.push(CigarOp::Insertion, 5);
        copy.clone_from(&c);
        assert_eq!(copy, c);
    }

    #[test]
    fn bam_view_lengths_and_ops() {
        use CigarOp::*;
        let ops = [
            (HardClip, 2),
            (SoftClip, 3),
            (Match, 5),
            (Insertion, 2),
            (SeqMatch, 3),
            (Deletion, 2),
            (Skip, 100),
            (SeqMismatch, 1),
            (Pad, 4),
            (SoftClip, 1),
        ];
        let bytes = pack(&ops);
        let c = BamCigar::new(&bytes);
        assert_eq!((c.len(), c.is_empty()), (10, false));
        assert_eq!(c.ops().collect::<Vec<_>>(), ops);
        assert_eq!(c.reference_span(), 111);
        assert_eq!(c.query_len(), 15);
        assert!(!c.has_unknown_op());
        assert_eq!(c.as_bytes(), &bytes[..]);
        assert!(BamCigar::new(&[]).is_empty());
    }

    #[test]
    fn unknown_codes_are_kept_but_passed_over() {
        let mut bytes = pack(&[(CigarOp::Match, 4)]);
        bytes.extend_from_slice(&(7u32 << 4 | 9).to_le_bytes());
        bytes.extend(pack(&[(CigarOp::Deletion, 2)]));
        let c = BamCigar::new(&bytes);
        assert!(c.has_unknown_op());
        assert_eq!(c.len(), 3);
        assert_eq!(c.codes().collect::<Vec<_>>(), [(0, 4), (9, 7), (2, 2)]);
        assert_eq!(
            c.ops().collect::<Vec<_>>(),
            [(CigarOp::Match, 4), (CigarOp::Deletion, 2)]
        );
        assert_eq!(c.reference_span(), 6);
    }

    #[test]
    fn owned_and_packed_forms_round_trip() {
        let mut c = Cigar::new();
        c.push(CigarOp::SoftClip, 1);
        c.push(CigarOp::SeqMatch, 2);
        c.push(CigarOp::SeqMismatch, 2);
        c.push(CigarOp::Deletion, 3);
        c.push(CigarOp::Match, 5);
        let bytes = c.to_bam_bytes();
        let view = BamCigar::new(&bytes);
        assert_eq!(view.ops().collect::<Vec<_>>(), c.ops().collect::<Vec<_>>());
        assert_eq!(view.reference_span(), c.reference_len() as i64);
        assert_eq!(view.query_len(), c.read_len() as i64);
        assert_eq!(Cigar::from(view), c);
        assert_eq!(c.to_string(), "1S2=2X3D5M");
        // Equal neighbours in the packed form merge in the owned one.
        let split = pack(&[(CigarOp::Match, 2), (CigarOp::Match, 3)]);
        assert_eq!(Cigar::from(BamCigar::new(&split)).to_string(), "5M");
    }
}
