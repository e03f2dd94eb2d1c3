//! Writing alignments: SAM text and BAM records from one plain record type, so the two
//! outputs always say the same thing.
//!
//! A [`SamRecord`] borrows its fields (the aligner's buffers); [`write_sam`] appends its
//! SAM line to a buffer, [`bam::encode_record`] its BAM encoding. [`SamHeader`] holds the
//! header text and the reference sequences (`@SQ` names and lengths) for both.
//! A BAM's blocks come from [`crate::bgzf_writer::BgzfCompressor`]: each worker
//! compresses its own batch, and the blocks of consecutive batches simply follow each
//! other in the file.
//!
//! [`text`] reads SAM text back: `@SQ` reference names with their aliases, and the
//! checks htslib makes on a record's fields; [`flag_fields`] reads a SAM's records as
//! FLAG statistics need them.

pub mod bam;
pub mod flag_fields;
pub mod tag_text;
pub mod text;

/// The longest QNAME SAM allows and BAM can hold (its length byte counts the final NUL),
/// in bytes.
pub const MAX_QNAME_LEN: usize = 254;

/// A typed optional field value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagValue<'a> {
    /// An integer (`i` in SAM; the smallest fitting integer type in BAM).
    Int(i64),
    /// A printable string (`Z`).
    Str(&'a [u8]),
    /// Any other SAM value as its text (`A`, `f`, `H`, `B`, from `--preserve-tags`): its
    /// type letter and the text after `TYPE:`, as [`tag_text::parse_text_field`] checked it.
    Text {
        /// The SAM type letter.
        kind: u8,
        /// The value's text.
        value: &'a [u8],
    },
}

/// An optional field: a two-letter tag and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tag<'a> {
    /// The tag name, e.g. `*b"NM"`.
    pub name: [u8; 2],
    /// The value.
    pub value: TagValue<'a>,
}

/// Where a record's mate lies: SAM's `RNEXT`, `PNEXT` and `TLEN`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MateFields {
    /// Index of the mate's reference sequence (`RNEXT`; `=` when it is the record's
    /// own), `None` for `*`.
    pub reference: Option<usize>,
    /// 0-based position of the mate (`PNEXT` minus 1; ignored when `reference` is
    /// `None`).
    pub position: u64,
    /// Signed template length (`TLEN`).
    pub template_len: i64,
}

impl MateFields {
    /// No mate: `RNEXT *`, `PNEXT 0`, `TLEN 0`.
    pub const NONE: MateFields = MateFields {
        reference: None,
        position: 0,
        template_len: 0,
    };
}

/// One alignment line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamRecord<'a> {
    /// Read name.
    pub name: &'a [u8],
    /// FLAG bits.
    pub flag: u16,
    /// Index of the reference sequence in the header, `None` when unplaced.
    pub reference: Option<usize>,
    /// 0-based leftmost aligned position (ignored when unplaced).
    pub position: u64,
    /// Mapping quality.
    pub mapq: u8,
    /// CIGAR operations in BAM's encoding (`length << 4 | op`); empty for `*`.
    pub cigar: &'a [u32],
    /// Bases as written in SEQ (reverse-complemented for the reverse strand); empty
    /// for `*`.
    pub bases: &'a [u8],
    /// Phred qualities in SEQ's order; `None` for `*`.
    pub qualities: Option<&'a [u8]>,
    /// Optional fields, written in this order.
    pub tags: &'a [Tag<'a>],
    /// The mate's place ([`MateFields::NONE`] for a single-end read).
    pub mate: MateFields,
}

/// A reference sequence of the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamReference {
    /// Its name.
    pub name: String,
    /// Its length.
    pub len: u64,
}

/// The header: its full text (ending with a line feed) and the reference sequences it
/// lists, in `@SQ` order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamHeader {
    /// The header lines.
    pub text: String,
    /// The reference sequences.
    pub references: Vec<SamReference>,
}

impl SamHeader {
    /// `@HD VN:1.6 SO:<sort_order>` (`unsorted`, `coordinate`), one `@SQ` per reference,
    /// then `extra_lines` (each without its line feed: `@RG`, `@PG`, ...).
    pub fn new(references: Vec<SamReference>, sort_order: &str, extra_lines: &[String]) -> Self {
        let mut text = format!("@HD\tVN:1.6\tSO:{sort_order}\n");
        for r in &references {
            text.push_str(&format!("@SQ\tSN:{}\tLN:{}\n", r.name, r.len));
        }
        for line in extra_lines {
            text.push_str(line);
            text.push('\n');
        }
        Self { text, references }
    }
}

/// Appends `record`'s SAM line (with its line feed) to `out`.
pub fn write_sam(header: &SamHeader, record: &SamRecord<'_>, out: &mut Vec<u8>) {
    out.extend_from_slice(record.name);
    out.push(b'\t');
    push_int(out, i64::from(record.flag));
    out.push(b'\t');
    match record.reference.and_then(|i| header.references.get(i)) {
        Some(r) => {
            out.extend_from_slice(r.name.as_bytes());
            out.push(b'\t');
            push_int(out, record.position as i64 + 1);
        }
        None => out.extend_from_slice(b"*\t0"),
    }
    out.push(b'\t');
    push_int(out, i64::from(record.mapq));
    out.push(b'\t');
    if record.cigar.is_empty() {
        out.push(b'*');
    }
    for &word in record.cigar {
        let (code, len) = seqfarm_core::cigar::split_word(word);
        push_int(out, i64::from(len));
        // A code above 8 (never written by the aligner) prints as the last letter.
        out.push(seqfarm_core::cigar::LETTERS[code.min(8) as usize]);
    }
    out.push(b'\t');
    match record.mate.reference {
        Some(m) if record.reference == Some(m) => out.push(b'='),
        Some(m) => match header.references.get(m) {
            Some(r) => out.extend_from_slice(r.name.as_bytes()),
            None => out.push(b'*'),
        },
        None => out.push(b'*'),
    }
    out.push(b'\t');
    match record.mate.reference {
        Some(_) => push_int(out, record.mate.position as i64 + 1),
        None => out.push(b'0'),
    }
    out.push(b'\t');
    push_int(out, record.mate.template_len);
    out.push(b'\t');
    if record.bases.is_empty() {
        out.push(b'*');
    } else {
        out.extend_from_slice(record.bases);
    }
    out.push(b'\t');
    match record.qualities {
        Some(q) if !q.is_empty() => out.extend(q.iter().map(|&v| v.min(93) + 33)),
        _ => out.push(b'*'),
    }
    for tag in record.tags {
        push_text_tag(tag, out);
    }
    out.push(b'\n');
}

/// Appends a tab and `tag` as SAM text (`TG:TYPE:VALUE`).
fn push_text_tag(tag: &Tag<'_>, out: &mut Vec<u8>) {
    out.push(b'\t');
    out.extend_from_slice(&tag.name);
    match tag.value {
        TagValue::Int(v) => {
            out.extend_from_slice(b":i:");
            push_int(out, v);
        }
        TagValue::Str(s) => {
            out.extend_from_slice(b":Z:");
            out.extend_from_slice(s);
        }
        TagValue::Text { kind, value } => {
            out.extend_from_slice(&[b':', kind, b':']);
            tag_text::push_sam_text_value(kind, value, out);
        }
    }
}

/// Appends the decimal text of `value`.
fn push_int(out: &mut Vec<u8>, value: i64) {
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

#[cfg(test)]
mod tests;
