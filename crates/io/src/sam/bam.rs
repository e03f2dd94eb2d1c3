//! BAM: the binary encoding of [`SamRecord`]s and of the header (compressed by
//! [`crate::bgzf_writer::BgzfCompressor`]).

use super::tag_text::encode_text_value;
use super::{SamHeader, SamRecord, SamReference, Tag, TagValue};
use crate::bam::SEQ_ALPHABET;
use seqfarm_core::cigar::{split_word, CigarOp};

/// The 4-bit code of each byte as a SEQ letter ([`SEQ_ALPHABET`], either case; anything
/// else is `N`, 15).
const NIBBLE: [u8; 256] = {
    let mut table = [15u8; 256];
    let mut code = 0;
    while code < 16 {
        let letter = SEQ_ALPHABET[code];
        table[letter as usize] = code as u8;
        table[letter.to_ascii_lowercase() as usize] = code as u8;
        code += 1;
    }
    table
};

/// The 4-bit code of a SEQ letter.
fn nibble(letter: u8) -> u8 {
    NIBBLE[letter as usize]
}

/// The BAI bin of the 0-based half-open interval `beg..end` (SAM spec §5.3).
pub fn reg2bin(beg: i64, end: i64) -> u16 {
    let end = end - 1;
    for (shift, offset) in [(14, 4681), (17, 585), (20, 73), (23, 9), (26, 1)] {
        if beg >> shift == end >> shift {
            return (offset + (beg >> shift)) as u16;
        }
    }
    0
}

/// The longest reference a BAM file can describe: its lengths and positions are signed
/// 32-bit integers.
pub const MAX_REFERENCE_LEN: u64 = i32::MAX as u64;

/// An error naming the first of `references` too long for BAM ([`MAX_REFERENCE_LEN`]),
/// whose lengths and positions [`encode_header`] and [`encode_record`] would otherwise
/// cut to 32 bits (SAM text has no such limit).
pub fn check_reference_lengths(references: &[SamReference]) -> Result<(), String> {
    match references.iter().find(|r| r.len > MAX_REFERENCE_LEN) {
        Some(r) => Err(format!(
            "reference {} is {} bp long, longer than BAM can hold ({MAX_REFERENCE_LEN} bp); \
             write SAM instead",
            r.name, r.len
        )),
        None => Ok(()),
    }
}

/// Appends the BAM header (magic, text, reference list) to `out`, uncompressed.
pub fn encode_header(header: &SamHeader, out: &mut Vec<u8>) {
    let references = header
        .references
        .iter()
        .map(|r| (r.name.as_str(), r.len as u32));
    encode_header_fields(&header.text, references, out);
}

/// Appends the BAM header of the text `text` and the references `references` (name,
/// length) to `out`, uncompressed: [`encode_header`] of a header read from a BAM.
pub fn encode_header_fields<'a>(
    text: &str,
    references: impl ExactSizeIterator<Item = (&'a str, u32)>,
    out: &mut Vec<u8>,
) {
    out.extend_from_slice(b"BAM\x01");
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(&(references.len() as u32).to_le_bytes());
    for (name, len) in references {
        out.extend_from_slice(&(name.len() as u32 + 1).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        out.extend_from_slice(&len.to_le_bytes());
    }
}

/// Appends the BAM encoding of `record` to `out`, uncompressed.
pub fn encode_record(record: &SamRecord<'_>, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    let placed = record.reference.is_some();
    let (ref_id, pos) = match record.reference {
        Some(r) => (r as i32, record.position as i32),
        None => (-1, -1),
    };
    let ref_len: u32 = record
        .cigar
        .iter()
        .map(|&word| split_word(word))
        .filter(|&(code, _)| CigarOp::from_code(code).is_some_and(CigarOp::consumes_reference))
        .map(|(_, len)| len)
        .sum();
    let end = i64::from(pos) + i64::from(ref_len.max(1));
    let bin = if placed {
        reg2bin(i64::from(pos), end)
    } else {
        reg2bin(-1, 0)
    };
    out.extend_from_slice(&ref_id.to_le_bytes());
    out.extend_from_slice(&pos.to_le_bytes());
    out.push(record.name.len() as u8 + 1);
    out.push(record.mapq);
    out.extend_from_slice(&bin.to_le_bytes());
    out.extend_from_slice(&(record.cigar.len() as u16).to_le_bytes());
    out.extend_from_slice(&record.flag.to_le_bytes());
    out.extend_from_slice(&(record.bases.len() as u32).to_le_bytes());
    let (next_ref, next_pos) = match record.mate.reference {
        Some(r) => (r as i32, record.mate.position as i32),
        None => (-1, -1),
    };
    out.extend_from_slice(&next_ref.to_le_bytes());
    out.extend_from_slice(&next_pos.to_le_bytes());
    out.extend_from_slice(&(record.mate.template_len as i32).to_le_bytes());
    out.extend_from_slice(record.name);
    out.push(0);
    for op in record.cigar {
        out.extend_from_slice(&op.to_le_bytes());
    }
    for pair in record.bases.chunks(2) {
        let high = nibble(pair[0]) << 4;
        let low = pair.get(1).map_or(0, |&b| nibble(b));
        out.push(high | low);
    }
    match record.qualities {
        Some(q) if q.len() == record.bases.len() => out.extend_from_slice(q),
        _ => out.resize(out.len() + record.bases.len(), 0xff),
    }
    for tag in record.tags {
        encode_tag(tag, out);
    }
    let block_size = (out.len() - start - 4) as u32;
    out[start..start + 4].copy_from_slice(&block_size.to_le_bytes());
}

/// Appends `tag` in BAM's encoding: its name, type letter and value.
pub(crate) fn encode_tag(tag: &Tag<'_>, out: &mut Vec<u8>) {
    out.extend_from_slice(&tag.name);
    match tag.value {
        TagValue::Int(v) => encode_int(v, out),
        TagValue::Str(s) => {
            out.push(b'Z');
            out.extend_from_slice(s);
            out.push(0);
        }
        TagValue::Text { kind, value } => encode_text_value(kind, value, out),
    }
}

/// An integer tag in the smallest type that holds it, as htslib writes them.
fn encode_int(v: i64, out: &mut Vec<u8>) {
    if v >= 0 {
        if v <= i64::from(u8::MAX) {
            out.push(b'C');
            out.push(v as u8);
        } else if v <= i64::from(u16::MAX) {
            out.push(b'S');
            out.extend_from_slice(&(v as u16).to_le_bytes());
        } else {
            out.push(b'I');
            out.extend_from_slice(&(v.min(i64::from(u32::MAX)) as u32).to_le_bytes());
        }
    } else if v >= i64::from(i8::MIN) {
        out.push(b'c');
        out.push(v as i8 as u8);
    } else if v >= i64::from(i16::MIN) {
        out.push(b's');
        out.extend_from_slice(&(v as i16).to_le_bytes());
    } else {
        out.push(b'i');
        out.extend_from_slice(&(v.max(i64::from(i32::MIN)) as i32).to_le_bytes());
    }
}
