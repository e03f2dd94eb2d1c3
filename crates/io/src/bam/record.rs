//! A BAM record read in place: fixed fields by offset, variable fields on demand.

use std::fmt;

pub use seqfarm_core::cigar::{BamCigar, CigarOp};
/// FLAG bits (SAM specification, section 1.4).
pub use seqfarm_core::flags;

/// Bytes of a record's fixed part (after its 4-byte length).
pub const FIXED_SIZE: usize = 32;

/// Why a record's bytes are not a record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed BAM record: {0}")]
pub struct RecordError(pub String);

/// One alignment record over its bytes (without the leading `block_size`), as found in
/// inflated BAM data. Fixed fields are read by offset; name, CIGAR, sequence, qualities
/// and tags are sliced only when asked for.
#[derive(Clone, Copy)]
pub struct Record<'a> {
    data: &'a [u8],
}

#[inline(always)]
fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

#[inline(always)]
fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

impl<'a> Record<'a> {
    /// Views `data` (one record's bytes after its length) as a record, checking that the
    /// variable-length fields fit and the read name is NUL-terminated.
    pub fn new(data: &'a [u8]) -> Result<Self, RecordError> {
        if data.len() < FIXED_SIZE {
            return Err(RecordError(format!(
                "{} bytes, shorter than the {FIXED_SIZE}-byte fixed part",
                data.len()
            )));
        }
        let record = Self { data };
        let l_seq = record.l_seq_raw();
        if l_seq < 0 {
            return Err(RecordError(format!("negative sequence length {l_seq}")));
        }
        let needed = FIXED_SIZE
            + record.l_read_name() as usize
            + 4 * record.n_cigar() as usize
            + (l_seq as usize).div_ceil(2)
            + l_seq as usize;
        if needed > data.len() {
            return Err(RecordError(format!(
                "fields need {needed} bytes, the record has {}",
                data.len()
            )));
        }
        let name_end = FIXED_SIZE + record.l_read_name() as usize;
        if record.l_read_name() == 0 || data[name_end - 1] != 0 {
            return Err(RecordError("read name is not NUL-terminated".into()));
        }
        Ok(record)
    }

    /// The record's bytes (after its length).
    pub fn as_bytes(&self) -> &'a [u8] {
        self.data
    }

    /// Reference sequence index (`-1`: none).
    #[inline]
    pub fn ref_id(&self) -> i32 {
        i32_at(self.data, 0)
    }

    /// 0-based leftmost position (`-1`: none).
    #[inline]
    pub fn pos(&self) -> i32 {
        i32_at(self.data, 4)
    }

    /// Length of the read name including its NUL.
    #[inline]
    pub fn l_read_name(&self) -> u8 {
        self.data[8]
    }

    /// Mapping quality.
    #[inline]
    pub fn mapq(&self) -> u8 {
        self.data[9]
    }

    /// BAI bin.
    #[inline]
    pub fn bin(&self) -> u16 {
        u16_at(self.data, 10)
    }

    /// Number of CIGAR operations.
    #[inline]
    pub fn n_cigar(&self) -> u16 {
        u16_at(self.data, 12)
    }

    /// FLAG bits (see [`flags`]).
    #[inline]
    pub fn flag(&self) -> u16 {
        u16_at(self.data, 14)
    }

    fn l_seq_raw(&self) -> i32 {
        i32_at(self.data, 16)
    }

    /// Sequence length.
    #[inline]
    pub fn l_seq(&self) -> usize {
        self.l_seq_raw() as usize
    }

    /// Mate's reference sequence index (`-1`: none).
    #[inline]
    pub fn next_ref_id(&self) -> i32 {
        i32_at(self.data, 20)
    }

    /// Mate's 0-based leftmost position (`-1`: none).
    #[inline]
    pub fn next_pos(&self) -> i32 {
        i32_at(self.data, 24)
    }

    /// Template length.
    #[inline]
    pub fn tlen(&self) -> i32 {
        i32_at(self.data, 28)
    }

    /// Read name without its NUL.
    pub fn read_name(&self) -> &'a [u8] {
        &self.data[FIXED_SIZE..FIXED_SIZE + self.l_read_name() as usize - 1]
    }

    fn cigar_start(&self) -> usize {
        FIXED_SIZE + self.l_read_name() as usize
    }

    fn seq_start(&self) -> usize {
        self.cigar_start() + 4 * self.n_cigar() as usize
    }

    fn qual_start(&self) -> usize {
        self.seq_start() + self.l_seq().div_ceil(2)
    }

    /// The CIGAR operations (`len << 4 | op`). A record with more than 65535 operations
    /// keeps its real CIGAR in a `CG:B,I` tag and stores the placeholder
    /// `<query length>S<reference length>N` in the CIGAR field (BAM specification,
    /// section 4.2.2); as htslib does, the real CIGAR from `CG` is returned then.
    pub fn cigar(&self) -> BamCigar<'a> {
        let stored = self.stored_cigar();
        if stored.len() == 2 {
            if let Some(real) = self.long_cigar(stored) {
                return real;
            }
        }
        stored
    }

    /// The CIGAR field as stored, without looking at a `CG` tag.
    pub fn stored_cigar(&self) -> BamCigar<'a> {
        BamCigar::new(&self.data[self.cigar_start()..self.seq_start()])
    }

    /// The `CG` tag's operations when `stored` is the placeholder of a long CIGAR
    /// (`<l_seq>S` then an `N`) and the tag is a `B,I` (or `B,i`) array.
    fn long_cigar(&self, stored: BamCigar<'a>) -> Option<BamCigar<'a>> {
        let word = |i: usize| {
            let b = &stored.as_bytes()[4 * i..4 * i + 4];
            u32::from_le_bytes([b[0], b[1], b[2], b[3]])
        };
        let (first, second) = (word(0), word(1));
        let placeholder = CigarOp::SoftClip.word(self.l_seq() as u32);
        if first != placeholder || second & 0xf != CigarOp::Skip.code() {
            return None;
        }
        let array = find_tag(self.aux(), *b"CG")?;
        let (&kind, rest) = array.split_first()?;
        let (&sub, rest) = rest.split_first()?;
        if kind != b'B' || !matches!(sub, b'I' | b'i') || rest.len() < 4 {
            return None;
        }
        let n = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        rest.get(4..4 + n.checked_mul(4)?).map(BamCigar::new)
    }

    /// The sequence, 4-bit packed.
    pub fn seq(&self) -> Sequence<'a> {
        Sequence {
            packed: &self.data[self.seq_start()..self.qual_start()],
            len: self.l_seq(),
        }
    }

    /// Base qualities (Phred, no +33 offset; `0xff` everywhere when absent).
    pub fn qual(&self) -> &'a [u8] {
        let q = self.qual_start();
        &self.data[q..q + self.l_seq()]
    }

    /// The auxiliary fields (tags), undecoded.
    pub fn aux(&self) -> &'a [u8] {
        &self.data[self.qual_start() + self.l_seq()..]
    }

    /// The value of the string (`Z`) tag `name`, without its NUL; `None` when the tag
    /// is absent or of another type.
    pub fn string_tag(&self, name: [u8; 2]) -> Option<&'a [u8]> {
        let value = find_tag(self.aux(), name)?;
        let (&kind, text) = value.split_first()?;
        if kind != b'Z' {
            return None;
        }
        text.iter().position(|&b| b == 0).map(|end| &text[..end])
    }

    /// 0-based exclusive end on the reference: `pos` plus the reference span of the
    /// CIGAR (M, D, N, =, X); `pos + 1` when the record is unmapped or spans nothing
    /// (the htslib convention).
    pub fn alignment_end(&self) -> i64 {
        let pos = i64::from(self.pos());
        let span = if self.flag() & flags::UNMAPPED != 0 {
            0
        } else {
            self.cigar().reference_span()
        };
        if span == 0 {
            pos + 1
        } else {
            pos + span
        }
    }
}

impl fmt::Debug for Record<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Record")
            .field("name", &String::from_utf8_lossy(self.read_name()))
            .field("flag", &self.flag())
            .field("ref_id", &self.ref_id())
            .field("pos", &self.pos())
            .field("mapq", &self.mapq())
            .finish_non_exhaustive()
    }
}

/// The bytes of tag `name` in `aux` from its type letter on (to the end of `aux`), or
/// `None` when the tag is absent or the fields before it are malformed.
fn find_tag(mut aux: &[u8], name: [u8; 2]) -> Option<&[u8]> {
    while aux.len() >= 3 {
        let value = &aux[2..];
        if aux[..2] == name {
            return Some(value);
        }
        let size = match value[0] {
            b'A' | b'c' | b'C' => 1,
            b's' | b'S' => 2,
            b'i' | b'I' | b'f' => 4,
            b'd' => 8,
            b'Z' | b'H' => value[1..].iter().position(|&b| b == 0)? + 1,
            b'B' => {
                let width = match *value.get(1)? {
                    b'c' | b'C' => 1,
                    b's' | b'S' => 2,
                    b'i' | b'I' | b'f' => 4,
                    _ => return None,
                };
                let n = value.get(2..6)?;
                5 + width * u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize
            }
            _ => return None,
        };
        aux = aux.get(3 + size..)?;
    }
    None
}

/// A read's bases, 4-bit packed (`=ACMGRSVTWYHKDBN`).
#[derive(Debug, Clone, Copy)]
pub struct Sequence<'a> {
    packed: &'a [u8],
    len: usize,
}

impl<'a> Sequence<'a> {
    /// The packed bytes: two bases per byte, the first in the high nibble.
    pub fn packed(&self) -> &'a [u8] {
        self.packed
    }
}

/// The letters of BAM's 4-bit base codes, in code order.
pub const SEQ_ALPHABET: &[u8; 16] = b"=ACMGRSVTWYHKDBN";

impl Sequence<'_> {
    /// Number of bases.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the sequence is absent (`*`).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The 4-bit code of base `i` (1 A, 2 C, 4 G, 8 T, 15 N).
    pub fn code(&self, i: usize) -> u8 {
        let byte = self.packed[i / 2];
        if i.is_multiple_of(2) {
            byte >> 4
        } else {
            byte & 0xf
        }
    }

    /// Base `i` as an ASCII letter.
    pub fn base(&self, i: usize) -> u8 {
        SEQ_ALPHABET[self.code(i) as usize]
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Encodes one record (with its leading length) the way BAM stores it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn encode(
        name: &str,
        flag: u16,
        ref_id: i32,
        pos: i32,
        mapq: u8,
        cigar: &[(u32, u32)],
        seq: &[u8],
        next_ref_id: i32,
    ) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend_from_slice(&ref_id.to_le_bytes());
        r.extend_from_slice(&pos.to_le_bytes());
        r.push(name.len() as u8 + 1);
        r.push(mapq);
        r.extend_from_slice(&4680u16.to_le_bytes());
        r.extend_from_slice(&(cigar.len() as u16).to_le_bytes());
        r.extend_from_slice(&flag.to_le_bytes());
        r.extend_from_slice(&(seq.len() as i32).to_le_bytes());
        r.extend_from_slice(&next_ref_id.to_le_bytes());
        r.extend_from_slice(&(-1i32).to_le_bytes());
        r.extend_from_slice(&0i32.to_le_bytes());
        r.extend_from_slice(name.as_bytes());
        r.push(0);
        for &(len, op) in cigar {
            r.extend_from_slice(&((len << 4) | op).to_le_bytes());
        }
        let code = |b: u8| SEQ_ALPHABET.iter().position(|&a| a == b).unwrap_or(15) as u8;
        for pair in seq.chunks(2) {
            let hi = code(pair[0]) << 4;
            let lo = pair.get(1).map_or(0, |&b| code(b));
            r.push(hi | lo);
        }
        r.extend(std::iter::repeat_n(30u8, seq.len()));
        r.extend_from_slice(b"NMC\x02");
        let mut out = (r.len() as u32).to_le_bytes().to_vec();
        out.extend_from_slice(&r);
        out
    }

    #[test]
    fn reads_every_field() {
        let bytes = encode(
            "read1",
            0x63,
            2,
            1000,
            60,
            &[(5, 4), (90, 0), (3, 2), (5, 0)],
            b"ACGTN",
            3,
        );
        let r = Record::new(&bytes[4..]).unwrap();
        assert_eq!(
            (r.ref_id(), r.pos(), r.mapq(), r.flag()),
            (2, 1000, 60, 0x63)
        );
        assert_eq!((r.next_ref_id(), r.next_pos(), r.tlen()), (3, -1, 0));
        assert_eq!((r.n_cigar(), r.l_seq(), r.bin()), (4, 5, 4680));
        assert_eq!(r.read_name(), b"read1");
        let ops: Vec<_> = r.cigar().ops().collect();
        assert_eq!(ops[1], (CigarOp::Match, 90));
        assert_eq!(r.cigar().reference_span(), 98);
        assert_eq!(r.alignment_end(), 1098);
        let bases: Vec<u8> = (0..5).map(|i| r.seq().base(i)).collect();
        assert_eq!(bases, b"ACGTN");
        assert_eq!(r.qual(), &[30; 5]);
        assert_eq!(r.aux(), b"NMC\x02");
        assert_eq!(r.cigar().as_bytes().len(), 16);
        assert_eq!(r.seq().packed(), &[0x12, 0x48, 0xf0]);
    }

    #[test]
    fn string_tags_are_found_past_other_tags() {
        let mut bytes = encode("r", 0, 0, 5, 60, &[(3, 0)], b"ACG", -1);
        bytes.extend_from_slice(b"XAZab\0RGZgroup1\0");
        let len = (bytes.len() - 4) as u32;
        bytes[..4].copy_from_slice(&len.to_le_bytes());
        let r = Record::new(&bytes[4..]).unwrap();
        assert_eq!(r.string_tag(*b"RG"), Some(&b"group1"[..]));
        assert_eq!(r.string_tag(*b"XA"), Some(&b"ab"[..]));
        // NM is an integer, not a string; ZZ is absent.
        assert_eq!(r.string_tag(*b"NM"), None);
        assert_eq!(r.string_tag(*b"ZZ"), None);
    }

    #[test]
    fn unmapped_end_is_pos_plus_one() {
        let bytes = encode("u", 0x4, -1, -1, 0, &[], b"", -1);
        let r = Record::new(&bytes[4..]).unwrap();
        assert_eq!(r.alignment_end(), 0);
        assert!(r.cigar().is_empty() && r.seq().is_empty());
    }

    /// `record` (with its length) with `tag` appended to its auxiliary fields.
    fn with_tag(record: &[u8], tag: &[u8]) -> Vec<u8> {
        let mut out = record.to_vec();
        out.extend_from_slice(tag);
        let len = (out.len() - 4) as u32;
        out[..4].copy_from_slice(&len.to_le_bytes());
        out
    }

    /// A `CG:B,I` tag holding `ops` (`(length, op)`).
    fn cg_tag(ops: &[(u32, u32)]) -> Vec<u8> {
        let mut tag = b"CGBI".to_vec();
        tag.extend_from_slice(&(ops.len() as u32).to_le_bytes());
        for &(len, op) in ops {
            tag.extend_from_slice(&((len << 4) | op).to_le_bytes());
        }
        tag
    }

    #[test]
    fn long_cigars_come_from_the_cg_tag() {
        // 3M1I2M stored as the placeholder 6S5N, with a string tag before CG.
        let real = [(3, 0), (1, 1), (2, 0)];
        let placeholder = encode("long", 0, 0, 100, 60, &[(6, 4), (5, 3)], b"ACGTAC", -1);
        let mut tags = b"RGZgroup\0".to_vec();
        tags.extend(cg_tag(&real));
        let bytes = with_tag(&placeholder, &tags);
        let r = Record::new(&bytes[4..]).unwrap();
        let ops: Vec<_> = r.cigar().ops().collect();
        assert_eq!(
            ops,
            [
                (CigarOp::Match, 3),
                (CigarOp::Insertion, 1),
                (CigarOp::Match, 2)
            ]
        );
        assert_eq!(r.stored_cigar().len(), 2);
        assert_eq!(r.cigar().reference_span(), 5);
        assert_eq!(r.alignment_end(), 105);

        // Not a placeholder (the soft clip is not the whole read): the stored CIGAR.
        let other = encode("x", 0, 0, 100, 60, &[(5, 4), (5, 3)], b"ACGTAC", -1);
        let bytes = with_tag(&other, &cg_tag(&real));
        let r = Record::new(&bytes[4..]).unwrap();
        assert_eq!(r.cigar().len(), 2);
        // A placeholder without CG, or with a CG of another type, stays as it is.
        let r = Record::new(&placeholder[4..]).unwrap();
        assert_eq!(r.cigar().len(), 2);
        let bytes = with_tag(&placeholder, b"CGZ6M\0");
        assert_eq!(Record::new(&bytes[4..]).unwrap().cigar().len(), 2);
        // A CG array claiming more operations than the record holds is ignored.
        let mut short = cg_tag(&real);
        short[4] = 200;
        let bytes = with_tag(&placeholder, &short);
        assert_eq!(Record::new(&bytes[4..]).unwrap().cigar().len(), 2);
    }

    #[test]
    fn tags_are_found_past_every_value_type() {
        let mut aux = b"XAAx".to_vec();
        aux.extend_from_slice(b"XcC\x05XsS\x01\x00XiI\x01\x00\x00\x00Xff\0\0\0\0");
        aux.extend_from_slice(b"XdZabc\0XhH0A\0XbBS\x02\x00\x00\x00\x01\x00\x02\x00");
        aux.extend_from_slice(b"CGBI\x00\x00\x00\x00");
        assert_eq!(find_tag(&aux, *b"CG"), Some(&b"BI\0\0\0\0"[..]));
        assert!(find_tag(&aux, *b"Xd").unwrap().starts_with(b"Zabc\0XhH"));
        assert_eq!(find_tag(&aux, *b"ZZ"), None);
        assert_eq!(find_tag(b"XAQ1", *b"CG"), None, "unknown type");
        assert_eq!(find_tag(b"XZZunterminated", *b"CG"), None);
    }

    #[test]
    fn rejects_records_whose_fields_do_not_fit() {
        let bytes = encode("read", 0, 0, 0, 0, &[(10, 0)], b"ACGTACGTAC", -1);
        assert!(Record::new(&bytes[4..20]).is_err());
        let mut long_name = bytes.clone();
        long_name[4 + 8] = 200;
        assert!(Record::new(&long_name[4..]).is_err());
        let mut no_nul = bytes.clone();
        no_nul[4 + 32 + 4] = b'x';
        assert!(Record::new(&no_nul[4..]).is_err());
    }
}
