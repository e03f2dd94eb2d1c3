//! Alignment formats told apart by a file's first bytes: the one place seqfarm decides
//! whether an input is a BAM, a CRAM or SAM text (plain or gzip-compressed).
//! The `alignment_file` door opens inputs by it; `bam` uses it only to name a CRAM
//! given where a BAM alone is read. It imports nothing but `bgzf`.

use crate::bgzf::{self, BgzfError, BgzfErrorKind, InflateBuffer, Inflater};

/// Bytes of an input's start read to recognise its format: more than a BGZF block, whose
/// data must start with `BAM\1`, and enough lines of text to tell SAM from binary data.
pub const HEAD: usize = 1 << 17;

/// Bytes of text looked at for a byte that no SAM text holds.
const TEXT_PROBE: usize = 4096;

/// What an input's first bytes say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlignmentFormat {
    /// A BGZF file whose first block's data starts with `BAM\1`.
    Bam,
    /// The `CRAM` magic.
    Cram,
    /// Text, or gzip-compressed data other than a BAM: read as SAM.
    Sam,
    /// Binary data that is neither gzip nor any of the above.
    Unknown,
}

/// The format of an input starting with `head` (the first [`HEAD`] bytes, or all of a
/// shorter input). A BGZF start whose first block is corrupt is an error, not a guess
/// that the input might be gzip SAM.
pub fn sniff(head: &[u8]) -> Result<AlignmentFormat, BgzfError> {
    Ok(if looks_like_cram(head) {
        AlignmentFormat::Cram
    } else if starts_bam(head)? {
        AlignmentFormat::Bam
    } else if looks_binary(head) {
        AlignmentFormat::Unknown
    } else {
        AlignmentFormat::Sam
    })
}

/// The first bytes of every CRAM.
pub const CRAM_MAGIC: [u8; 4] = *b"CRAM";

/// Whether `head` (the first bytes of a file) starts a CRAM: the `CRAM` magic.
pub fn looks_like_cram(head: &[u8]) -> bool {
    head.starts_with(&CRAM_MAGIC)
}

/// Whether `head` (the first bytes of a file, at least its first BGZF block) is a BAM:
/// a BGZF block whose data starts with `BAM\1`. Unlike [`sniff`], a corrupt first block
/// only means no.
pub fn looks_like_bam(head: &[u8]) -> bool {
    starts_bam(head).unwrap_or(false)
}

/// Whether `head` starts a BAM; an error when it starts a BGZF block that is corrupt.
fn starts_bam(head: &[u8]) -> Result<bool, BgzfError> {
    if !head.starts_with(&[0x1f, 0x8b, 0x08, 0x04]) {
        return Ok(false);
    }
    match bgzf::block_at(head, 0) {
        Ok(info) => {
            let mut out = InflateBuffer::new();
            Inflater::new().inflate_raw(&head[..info.size], 0, &mut out)?;
            Ok(out.as_slice().starts_with(b"BAM\x01"))
        }
        Err(e) if e.kind == BgzfErrorKind::NotBgzf => Ok(false),
        Err(e) => Err(e),
    }
}

/// Whether the first bytes are binary: neither text nor gzip.
fn looks_binary(head: &[u8]) -> bool {
    !head.starts_with(&[0x1f, 0x8b])
        && head
            .iter()
            .take(TEXT_PROBE)
            .any(|&b| b == 0 || (b < 0x20 && !b"\t\r\n".contains(&b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bam::test_bam;

    #[test]
    fn each_format_is_told_by_its_first_bytes() {
        let bam = test_bam::bgzf(&test_bam::header("", &[("chr1", 100)]), 1000);
        assert_eq!(sniff(&bam), Ok(AlignmentFormat::Bam));
        assert!(looks_like_bam(&bam));
        assert_eq!(sniff(b"CRAM\x03\x00"), Ok(AlignmentFormat::Cram));
        assert!(looks_like_cram(b"CRAM\x03\x00"));
        assert!(!looks_like_cram(b"BAM\x01"));
        assert_eq!(sniff(b"@HD\tVN:1.6\r\n"), Ok(AlignmentFormat::Sam));
        assert_eq!(sniff(b""), Ok(AlignmentFormat::Sam));
        // Gzip that is not BGZF, and BGZF whose data is not a BAM: gzip SAM.
        assert_eq!(
            sniff(&[0x1f, 0x8b, 0x08, 0x00, 0]),
            Ok(AlignmentFormat::Sam)
        );
        let text = test_bam::bgzf(b"@HD\tVN:1.6\n", 1000);
        assert_eq!(sniff(&text), Ok(AlignmentFormat::Sam));
        assert_eq!(sniff(b"\x00\x01binary"), Ok(AlignmentFormat::Unknown));
    }

    #[test]
    fn a_corrupt_first_bgzf_block_is_an_error() {
        let bam = test_bam::bgzf(&test_bam::header("", &[("chr1", 100)]), 1000);
        assert!(sniff(&bam[..30]).is_err());
        assert!(!looks_like_bam(&bam[..30]));
    }
}
