//! Where the containers of a CRAM lie: read from container headers (lengths only) or
//! from the `.crai`, and checked against each other.

use std::path::Path;

use crate::{Error, Result};

/// One data container: its file offset and its whole size (header and blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContainerSpan {
    /// File offset of the container's first byte.
    pub offset: u64,
    /// Bytes from `offset` to the next container.
    pub size: u64,
    /// Records the container holds (from its header).
    pub records: u64,
    /// Reference of its records: an index in the header, `-1` unplaced, `-2` several.
    pub ref_id: i32,
    /// For a single reference, the 0-based half-open range its records' alignments
    /// cover (from the header's alignment start and span).
    pub span: (u64, u64),
}

/// The end-of-file container of CRAM 3 (CRAM 3.0 and 3.1 write the same bytes).
pub const EOF_CONTAINER: [u8; 38] = [
    0x0f, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x0f, 0xe0, 0x45, 0x4f, 0x46, 0x00, 0x00, 0x00,
    0x00, 0x01, 0x00, 0x05, 0xbd, 0xd9, 0x4f, 0x00, 0x01, 0x00, 0x06, 0x06, 0x01, 0x00, 0x01, 0x00,
    0x01, 0x00, 0xee, 0x63, 0x01, 0x4b,
];

/// A container header's fields this layer needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ContainerHeader {
    /// Bytes of blocks after the header.
    length: u64,
    /// Bytes of the header itself.
    header_size: u64,
    ref_id: i32,
    records: u64,
    span: (u64, u64),
}

impl ContainerHeader {
    /// The span of the container with this header at file `offset`.
    fn at(&self, offset: u64) -> ContainerSpan {
        ContainerSpan {
            offset,
            size: self.header_size + self.length,
            records: self.records,
            ref_id: self.ref_id,
            span: self.span,
        }
    }
}

/// Reads an ITF8 integer at `*at`.
fn itf8(data: &[u8], at: &mut usize) -> Option<i32> {
    let first = *data.get(*at)?;
    let n = (first.leading_ones() as usize).min(4);
    let b0 = u32::from(first);
    let bytes = data.get(*at + 1..*at + 1 + n)?;
    let value = match n {
        0 => b0,
        1 => ((b0 & 0x3f) << 8) | bytes[0] as u32,
        2 => ((b0 & 0x1f) << 16) | (bytes[0] as u32) << 8 | bytes[1] as u32,
        3 => {
            ((b0 & 0x0f) << 24) | (bytes[0] as u32) << 16 | (bytes[1] as u32) << 8 | bytes[2] as u32
        }
        _ => {
            ((b0 & 0x0f) << 28)
                | (bytes[0] as u32) << 20
                | (bytes[1] as u32) << 12
                | (bytes[2] as u32) << 4
                | (bytes[3] as u32 & 0x0f)
        }
    };
    *at += 1 + n;
    Some(value as i32)
}

/// Reads an LTF8 integer at `*at`.
fn ltf8(data: &[u8], at: &mut usize) -> Option<i64> {
    let b0 = *data.get(*at)?;
    let n = b0.leading_ones() as usize;
    let bytes = data.get(*at + 1..*at + 1 + n)?;
    let mut value: u64 = if n >= 7 {
        0
    } else {
        u64::from(b0) & (0xff >> (n + 1))
    };
    for &b in bytes {
        value = (value << 8) | u64::from(b);
    }
    *at += 1 + n;
    Some(value as i64)
}

/// Parses the container header at `offset` of `file` (lengths and counts only; the
/// CRC32 is checked).
fn container_header(file: &[u8], offset: u64) -> std::result::Result<ContainerHeader, String> {
    let data = usize::try_from(offset)
        .ok()
        .and_then(|o| file.get(o..))
        .ok_or("the file ends before the container")?;
    let short = || "the file ends inside a container header".to_string();
    let length = i32::from_le_bytes(data.get(..4).ok_or_else(short)?.try_into().expect("4"));
    let mut at = 4;
    let ref_id = itf8(data, &mut at).ok_or_else(short)?;
    let start = itf8(data, &mut at).ok_or_else(short)?;
    let span = itf8(data, &mut at).ok_or_else(short)?;
    let records = itf8(data, &mut at).ok_or_else(short)?;
    let _counter = ltf8(data, &mut at).ok_or_else(short)?;
    let _bases = ltf8(data, &mut at).ok_or_else(short)?;
    let _blocks = itf8(data, &mut at).ok_or_else(short)?;
    let landmarks = itf8(data, &mut at).ok_or_else(short)?;
    if !(0..=1 << 20).contains(&landmarks) {
        return Err(format!("invalid container header ({landmarks} landmarks)"));
    }
    for _ in 0..landmarks {
        itf8(data, &mut at).ok_or_else(short)?;
    }
    let crc = u32::from_le_bytes(
        data.get(at..at + 4)
            .ok_or_else(short)?
            .try_into()
            .expect("4"),
    );
    if libdeflater::crc32(&data[..at]) != crc {
        return Err("container header checksum mismatch (the file is damaged)".into());
    }
    if length < 0 || records < 0 {
        return Err(format!(
            "invalid container header (length {length}, {records} records)"
        ));
    }
    Ok(ContainerHeader {
        length: length as u64,
        header_size: at as u64 + 4,
        ref_id,
        records: records as u64,
        span: {
            let start = u64::try_from(start.max(1) - 1).unwrap_or(0);
            (start, start + u64::try_from(span.max(0)).unwrap_or(0))
        },
    })
}

/// Whether the records of `container` (its bytes from its header on) need an external
/// reference (the compression header's `RR`, true when absent); `None` when the
/// compression header block is compressed or cannot be read.
pub fn reference_required(container: &[u8]) -> Option<bool> {
    let header = container_header(container, 0).ok()?;
    let mut at = header.header_size as usize;
    let method = *container.get(at)?;
    at += 2;
    itf8(container, &mut at)?;
    let size = itf8(container, &mut at)?;
    let raw = itf8(container, &mut at)?;
    if method != 0 || size != raw || size < 0 {
        return None;
    }
    let block = container.get(at..at + size as usize)?;
    let mut at = 0;
    itf8(block, &mut at)?;
    let entries = itf8(block, &mut at)?;
    for _ in 0..entries {
        let key = block.get(at..at + 2)?;
        at += 2;
        match key {
            b"RN" | b"AP" => at += 1,
            b"RR" => return Some(*block.get(at)? != 0),
            b"SM" => at += 5,
            b"TD" => {
                let len = itf8(block, &mut at)?;
                at += usize::try_from(len).ok()?;
            }
            _ => return None,
        }
    }
    Some(true)
}

/// Checks the CRC32 of every block of `container` (its bytes, header first): a decoder
/// that needs only some fields leaves the other blocks unread, and so would not see
/// their damage.
pub fn check_block_checksums(container: &[u8]) -> std::result::Result<(), String> {
    let header = container_header(container, 0)?;
    let mut at = header.header_size as usize;
    let mut block = 0;
    while at < container.len() {
        let start = at;
        let short = || format!("block {block} is cut short (the file is damaged)");
        at += 2;
        itf8(container, &mut at).ok_or_else(short)?;
        let size = itf8(container, &mut at).ok_or_else(short)?;
        itf8(container, &mut at).ok_or_else(short)?;
        let end = usize::try_from(size)
            .ok()
            .and_then(|size| at.checked_add(size))
            .filter(|&end| end + 4 <= container.len())
            .ok_or_else(short)?;
        let crc = u32::from_le_bytes(container[end..end + 4].try_into().expect("4"));
        if libdeflater::crc32(&container[start..end]) != crc {
            return Err(format!(
                "block {block} checksum mismatch (the file is damaged)"
            ));
        }
        at = end + 4;
        block += 1;
    }
    Ok(())
}

/// The data containers of `file` from `start` (the first one after the header
/// container) to the end-of-file container, by reading their headers in turn.
pub fn walk_containers(path: &Path, file: &[u8], start: u64) -> Result<Vec<ContainerSpan>> {
    let eof = check_eof(path, file)?;
    let mut spans = Vec::new();
    let mut offset = start;
    while offset < eof {
        let header = container_header(file, offset)
            .map_err(|m| Error::format(path, offset, format!("container: {m}")))?;
        let span = header.at(offset);
        let size = span.size;
        if offset + size > eof {
            return Err(Error::format(
                path,
                offset,
                format!(
                    "container of {size} bytes runs past the end-of-file container at offset {eof} (the file is damaged)"
                ),
            ));
        }
        spans.push(span);
        offset += size;
    }
    Ok(spans)
}

/// The data containers named by a `.crai` (its distinct container offsets), checked:
/// they must follow each other from `start` to the end-of-file container.
pub fn indexed_containers(
    path: &Path,
    index_path: &Path,
    index: &noodles_cram::crai::Index,
    file: &[u8],
    start: u64,
) -> Result<Vec<ContainerSpan>> {
    let eof = check_eof(path, file)?;
    let mut offsets: Vec<u64> = index.iter().map(|r| r.offset()).collect();
    offsets.sort_unstable();
    offsets.dedup();
    let mut spans = Vec::with_capacity(offsets.len());
    let mut expected = start;
    for offset in offsets {
        let bad = |what: String| {
            Error::format(
                index_path,
                0,
                format!(
                    "{what}: the index does not match {} (re-index it with `samtools index`)",
                    path.display()
                ),
            )
        };
        if offset != expected {
            return Err(bad(format!(
                "it names a container at offset {offset} where one starts at {expected}"
            )));
        }
        let header = container_header(file, offset)
            .map_err(|m| bad(format!("container at offset {offset}: {m}")))?;
        let span = header.at(offset);
        let size = span.size;
        if offset + size > eof {
            return Err(bad(format!(
                "container at offset {offset} runs past the end of the data"
            )));
        }
        spans.push(span);
        expected = offset + size;
    }
    if expected != eof {
        return Err(Error::format(
            index_path,
            0,
            format!(
                "the index names no container at offset {expected} of {} (data up to {eof}): re-index it with `samtools index`",
                path.display()
            ),
        ));
    }
    Ok(spans)
}

/// Checks that `file` ends with the end-of-file container; returns where it starts.
fn check_eof(path: &Path, file: &[u8]) -> Result<u64> {
    if file.len() < EOF_CONTAINER.len() || !file.ends_with(&EOF_CONTAINER) {
        return Err(Error::format(
            path,
            file.len() as u64,
            "missing CRAM end-of-file container: the file is truncated or was not written completely",
        ));
    }
    Ok((file.len() - EOF_CONTAINER.len()) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_checksums_find_a_changed_byte() {
        assert_eq!(check_block_checksums(&EOF_CONTAINER), Ok(()));
        let mut damaged = EOF_CONTAINER;
        damaged[EOF_CONTAINER.len() - 6] ^= 1;
        let e = check_block_checksums(&damaged).unwrap_err();
        assert!(e.contains("block 0 checksum mismatch"), "{e}");
        let e = check_block_checksums(&EOF_CONTAINER[..EOF_CONTAINER.len() - 2]).unwrap_err();
        assert!(e.contains("cut short"), "{e}");
    }

    #[test]
    fn itf8_and_ltf8_read_every_width() {
        let cases: [(&[u8], i32); 5] = [
            (&[0x05], 5),
            (&[0x81, 0x00], 256),
            (&[0xc1, 0x00, 0x00], 65536),
            (&[0xe1, 0x00, 0x00, 0x00], 1 << 24),
            (&[0xff, 0xff, 0xff, 0xff, 0x0f], -1),
        ];
        for (bytes, want) in cases {
            let mut at = 0;
            assert_eq!(itf8(bytes, &mut at), Some(want));
            assert_eq!(at, bytes.len());
        }
        let mut at = 0;
        assert_eq!(ltf8(&[0x80, 0xff], &mut at), Some(255));
        assert_eq!(at, 2);
        assert_eq!(itf8(&[0xc1, 0x00], &mut 0), None);
    }

    #[test]
    fn the_eof_container_parses_as_an_empty_container() {
        let h = container_header(&EOF_CONTAINER, 0).unwrap();
        assert_eq!(h.ref_id, -1);
        assert_eq!(h.records, 0);
        assert_eq!(h.header_size + h.length, EOF_CONTAINER.len() as u64);
        let mut damaged = EOF_CONTAINER;
        damaged[5] ^= 1;
        assert!(container_header(&damaged, 0)
            .unwrap_err()
            .contains("checksum"));
    }
}
