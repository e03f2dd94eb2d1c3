//! BGZF: the blocked gzip that BAM, CSI and bgzip files are made of.
//!
//! A BGZF file is a series of gzip members ("blocks") of at most 64 KiB each, each with
//! a `BC` extra field holding its compressed size, ending with a fixed 28-byte empty
//! block (the EOF marker). Because every block starts afresh, blocks can be
//! inflated independently and in any order: this module finds block boundaries without
//! inflating ([`block_at`], [`BlockScanner`]) and inflates one block into a caller's
//! buffer with the CRC32 and ISIZE checks ([`Inflater`]). Positions inside the
//! decompressed stream are [`VirtualOffset`]s: the block's file offset and the offset
//! inside its inflated bytes.
//!
//! Inflate uses libdeflate, or with the `isal` feature ISA-L and libdeflate side by side,
//! each block going to whichever timed trials find faster on the data at hand
//! ([`InflateBackend`]); neither wins on every file (`examples/inflate_backends.rs`,
//! numbers in BENCHMARKS.md).

use std::fmt;

mod decoder;

pub use decoder::InflateBackend;
use decoder::{DecodeFailure, Decoder};

/// The largest inflated size of one block.
pub const MAX_BLOCK_SIZE: usize = 65536;

/// Bytes of the fixed BGZF header (with the standard 6-byte extra field).
const HEADER_SIZE: usize = 18;
/// Bytes of the gzip footer: CRC32 and ISIZE.
const FOOTER_SIZE: usize = 8;

/// The empty block every BGZF file ends with.
pub const EOF_MARKER: [u8; 28] = [
    0x1f, 0x8b, 0x08, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0x06, 0x00, 0x42, 0x43, 0x02, 0x00,
    0x1b, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
];

/// A position in a BGZF file's decompressed stream: `compressed << 16 | uncompressed`,
/// where `compressed` is the file offset of a block and `uncompressed` the offset inside
/// its inflated bytes (the encoding BAI and CSI use).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct VirtualOffset(u64);

impl VirtualOffset {
    /// The virtual offset of byte `uncompressed` of the block at file offset `compressed`.
    pub const fn new(compressed: u64, uncompressed: u16) -> Self {
        Self((compressed << 16) | uncompressed as u64)
    }

    /// A virtual offset from its 64-bit encoding.
    pub const fn from_raw(raw: u64) -> Self {
        Self(raw)
    }

    /// The 64-bit encoding.
    pub const fn raw(self) -> u64 {
        self.0
    }

    /// File offset of the block.
    pub const fn compressed(self) -> u64 {
        self.0 >> 16
    }

    /// Offset inside the block's inflated bytes.
    pub const fn uncompressed(self) -> u16 {
        (self.0 & 0xffff) as u16
    }
}

impl fmt::Display for VirtualOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.compressed(), self.uncompressed())
    }
}

/// A half-open range of virtual offsets `[start, end)`: the records whose first byte lies
/// in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VirtualRange {
    /// First virtual offset in the range (a record start).
    pub start: VirtualOffset,
    /// First virtual offset past the range (a record start, or the end of the data).
    pub end: VirtualOffset,
}

/// Where a block is and how big it is, read from its header and footer alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockInfo {
    /// File offset of the block's first byte.
    pub offset: u64,
    /// Compressed size: header, deflate data and footer.
    pub size: usize,
    /// Inflated size (the footer's ISIZE).
    pub inflated_size: usize,
}

impl BlockInfo {
    /// File offset just past the block.
    pub fn end(&self) -> u64 {
        self.offset + self.size as u64
    }
}

/// What is wrong with a block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BgzfErrorKind {
    /// The bytes do not start a BGZF block.
    #[error("not a BGZF block (no gzip magic or no BC extra field)")]
    NotBgzf,
    /// The file ends inside the block.
    #[error("truncated BGZF block: needs {needed} bytes, {available} left in the file")]
    Truncated {
        /// Bytes the block claims.
        needed: usize,
        /// Bytes left in the file.
        available: usize,
    },
    /// The deflate stream is invalid.
    #[error("corrupt BGZF block: invalid deflate data")]
    Deflate,
    /// The inflated bytes do not match the stored CRC32.
    #[error("corrupt BGZF block: CRC32 mismatch (stored {stored:08x}, computed {computed:08x})")]
    Crc {
        /// CRC32 in the footer.
        stored: u32,
        /// CRC32 of the inflated bytes.
        computed: u32,
    },
    /// The inflated size does not match the stored ISIZE.
    #[error("corrupt BGZF block: inflates to {actual} bytes, its footer says {stored}")]
    Size {
        /// ISIZE in the footer.
        stored: usize,
        /// Bytes actually inflated.
        actual: usize,
    },
}

/// A block problem at a file offset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} (block at byte offset {offset})")]
pub struct BgzfError {
    /// File offset of the block.
    pub offset: u64,
    /// What is wrong.
    pub kind: BgzfErrorKind,
}

fn le16(b: &[u8], at: usize) -> usize {
    u16::from_le_bytes([b[at], b[at + 1]]) as usize
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Reads the header and footer of the block at `offset` of `file` (the whole file's
/// bytes) without inflating it.
pub fn block_at(file: &[u8], offset: u64) -> Result<BlockInfo, BgzfError> {
    let err = |kind| BgzfError { offset, kind };
    let start = usize::try_from(offset)
        .ok()
        .filter(|&s| s <= file.len())
        .ok_or_else(|| {
            err(BgzfErrorKind::Truncated {
                needed: HEADER_SIZE,
                available: 0,
            })
        })?;
    let b = &file[start..];
    if b.len() < HEADER_SIZE {
        if b.len() >= 4 && b[..4] != [0x1f, 0x8b, 0x08, 0x04] {
            return Err(err(BgzfErrorKind::NotBgzf));
        }
        return Err(err(BgzfErrorKind::Truncated {
            needed: HEADER_SIZE,
            available: b.len(),
        }));
    }
    if b[..4] != [0x1f, 0x8b, 0x08, 0x04] {
        return Err(err(BgzfErrorKind::NotBgzf));
    }
    let xlen = le16(b, 10);
    let size = if xlen == 6 && b[12] == b'B' && b[13] == b'C' && le16(b, 14) == 2 {
        le16(b, 16) + 1
    } else {
        bsize_from_extra(b, xlen).ok_or_else(|| err(BgzfErrorKind::NotBgzf))?
    };
    if size < 12 + xlen + FOOTER_SIZE {
        return Err(err(BgzfErrorKind::NotBgzf));
    }
    if b.len() < size {
        return Err(err(BgzfErrorKind::Truncated {
            needed: size,
            available: b.len(),
        }));
    }
    let inflated_size = le32(b, size - 4) as usize;
    if inflated_size > MAX_BLOCK_SIZE {
        return Err(err(BgzfErrorKind::Size {
            stored: inflated_size,
            actual: MAX_BLOCK_SIZE,
        }));
    }
    Ok(BlockInfo {
        offset,
        size,
        inflated_size,
    })
}

/// Finds the `BC` subfield in a non-standard extra field; returns the block size.
fn bsize_from_extra(b: &[u8], xlen: usize) -> Option<usize> {
    let extra = b.get(12..12 + xlen)?;
    let mut at = 0;
    while at + 4 <= extra.len() {
        let len = le16(extra, at + 2);
        if extra[at] == b'B' && extra[at + 1] == b'C' && len == 2 && at + 6 <= extra.len() {
            return Some(le16(extra, at + 4) + 1);
        }
        at += 4 + len;
    }
    None
}

/// Walks block boundaries from a start offset to an end offset, reading headers only.
#[derive(Debug, Clone)]
pub struct BlockScanner<'a> {
    file: &'a [u8],
    next: u64,
    end: u64,
}

impl<'a> BlockScanner<'a> {
    /// Scans the blocks of `file` that start in `[start, end)`.
    pub fn new(file: &'a [u8], start: u64, end: u64) -> Self {
        Self {
            file,
            next: start,
            end,
        }
    }

    /// File offset of the next block to be scanned.
    pub fn position(&self) -> u64 {
        self.next
    }

    /// Whether every block has been scanned.
    pub fn is_done(&self) -> bool {
        self.next >= self.end
    }
}

impl Iterator for BlockScanner<'_> {
    type Item = Result<BlockInfo, BgzfError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let block = block_at(self.file, self.next);
        match &block {
            Ok(info) => self.next = info.end(),
            Err(_) => self.next = self.end,
        }
        Some(block)
    }
}

/// A growable byte buffer that is zeroed only when it grows, so inflating into it costs
/// no memset per block. `len` bytes are in use; the rest is scratch space.
#[derive(Debug, Default, Clone)]
pub struct InflateBuffer {
    bytes: Vec<u8>,
    len: usize,
}

impl InflateBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bytes in use.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// Number of bytes in use.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no byte is in use.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets every byte in use (keeps the memory).
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Keeps only the first `len` bytes in use.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Drops the first `n` bytes in use, moving the rest to the front.
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.len);
        self.bytes.copy_within(n..self.len, 0);
        self.len -= n;
    }

    /// Appends `data`.
    pub fn extend_from_slice(&mut self, data: &[u8]) {
        self.spare(data.len())[..data.len()].copy_from_slice(data);
        self.len += data.len();
    }

    /// At least `n` bytes of scratch space after the bytes in use.
    fn spare(&mut self, n: usize) -> &mut [u8] {
        if self.bytes.len() < self.len + n {
            let want = (self.len + n).max(self.bytes.len() * 2);
            self.bytes.resize(want, 0);
        }
        &mut self.bytes[self.len..]
    }
}

/// Inflates BGZF blocks, checking each block's CRC32 and ISIZE. One per thread: it holds
/// the deflate decoder's state.
pub struct Inflater {
    decoder: Decoder,
}

impl Default for Inflater {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Inflater {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inflater").finish_non_exhaustive()
    }
}

impl Inflater {
    /// A fresh inflater on the default back end.
    pub fn new() -> Self {
        Self::with_backend(InflateBackend::default())
    }

    /// A fresh inflater on `backend`.
    pub fn with_backend(backend: InflateBackend) -> Self {
        Self {
            decoder: Decoder::new(backend),
        }
    }

    /// Inflates the block at `offset` of `file` (the whole file's bytes), appending its
    /// bytes to `out`. Returns the block's extent.
    pub fn inflate_block(
        &mut self,
        file: &[u8],
        offset: u64,
        out: &mut InflateBuffer,
    ) -> Result<BlockInfo, BgzfError> {
        let info = block_at(file, offset)?;
        let start = offset as usize;
        self.inflate_raw(&file[start..start + info.size], offset, out)?;
        Ok(info)
    }

    /// Inflates one whole block given as its own bytes (`block` starts with the gzip
    /// header and has exactly the block's size); `offset` is only for error messages.
    pub fn inflate_raw(
        &mut self,
        block: &[u8],
        offset: u64,
        out: &mut InflateBuffer,
    ) -> Result<usize, BgzfError> {
        let err = |kind| BgzfError { offset, kind };
        let info = block_at(block, 0).map_err(|e| err(e.kind))?;
        if info.size != block.len() {
            return Err(err(BgzfErrorKind::NotBgzf));
        }
        let xlen = le16(block, 10);
        let size = block.len();
        let cdata = &block[12 + xlen..size - FOOTER_SIZE];
        let stored_crc = le32(block, size - 8);
        let stored_size = le32(block, size - 4) as usize;
        let dest = &mut out.spare(stored_size.max(1))[..stored_size];
        let (actual, computed) = self.decoder.decode(cdata, dest).map_err(|e| match e {
            DecodeFailure::TooLong => err(BgzfErrorKind::Size {
                stored: stored_size,
                actual: stored_size + 1,
            }),
            DecodeFailure::Corrupt => err(BgzfErrorKind::Deflate),
        })?;
        if actual != stored_size {
            return Err(err(BgzfErrorKind::Size {
                stored: stored_size,
                actual,
            }));
        }
        if computed != stored_crc {
            return Err(err(BgzfErrorKind::Crc {
                stored: stored_crc,
                computed,
            }));
        }
        out.len += actual;
        Ok(actual)
    }

    /// Inflates every block of `blocks` (consecutive whole blocks, the first at file
    /// offset `offset`), appending to `out`. Returns the number of blocks.
    pub fn inflate_blocks(
        &mut self,
        blocks: &[u8],
        offset: u64,
        out: &mut InflateBuffer,
    ) -> Result<usize, BgzfError> {
        let mut at = 0u64;
        let mut n = 0;
        while (at as usize) < blocks.len() {
            let info = block_at(blocks, at).map_err(|e| BgzfError {
                offset: offset + e.offset,
                kind: e.kind,
            })?;
            let s = at as usize;
            self.inflate_raw(&blocks[s..s + info.size], offset + at, out)?;
            at += info.size as u64;
            n += 1;
        }
        Ok(n)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;

    /// Compresses `data` into BGZF blocks of at most `chunk` input bytes, with EOF marker.
    pub(crate) fn bgzf(data: &[u8], chunk: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for piece in data.chunks(chunk.max(1)) {
            let mut enc =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(piece).unwrap();
            let cdata = enc.finish().unwrap();
            let size = 18 + cdata.len() + 8;
            out.extend_from_slice(&[
                0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0,
            ]);
            out.extend_from_slice(&((size - 1) as u16).to_le_bytes());
            out.extend_from_slice(&cdata);
            out.extend_from_slice(&libdeflater::crc32(piece).to_le_bytes());
            out.extend_from_slice(&(piece.len() as u32).to_le_bytes());
        }
        out.extend_from_slice(&EOF_MARKER);
        out
    }

    #[test]
    fn virtual_offsets_round_trip() {
        let v = VirtualOffset::new(123_456, 789);
        assert_eq!((v.compressed(), v.uncompressed()), (123_456, 789));
        assert_eq!(VirtualOffset::from_raw(v.raw()), v);
        assert!(VirtualOffset::new(1, 65535) < VirtualOffset::new(2, 0));
    }

    #[test]
    fn scans_and_inflates_blocks() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let file = bgzf(&data, 30_000);
        let blocks: Vec<_> = BlockScanner::new(&file, 0, file.len() as u64)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(blocks.len(), 8); // 7 data blocks + EOF
        let mut inflater = Inflater::new();
        let mut out = InflateBuffer::new();
        for b in &blocks {
            inflater.inflate_block(&file, b.offset, &mut out).unwrap();
        }
        assert_eq!(out.as_slice(), &data[..]);
        let mut all = InflateBuffer::new();
        assert_eq!(inflater.inflate_blocks(&file, 0, &mut all).unwrap(), 8);
        assert_eq!(all.as_slice(), &data[..]);
    }

    #[test]
    fn detects_crc_deflate_and_truncation_errors() {
        let data = vec![7u8; 1000];
        let file = bgzf(&data, 1000);
        let mut inflater = Inflater::new();
        let mut out = InflateBuffer::new();
        let mut bad_crc = file.clone();
        let crc_at = file.len() - 28 - 8;
        bad_crc[crc_at] ^= 1;
        let e = inflater.inflate_block(&bad_crc, 0, &mut out).unwrap_err();
        assert!(matches!(e.kind, BgzfErrorKind::Crc { .. }), "{e}");
        let mut bad_data = file.clone();
        bad_data[18] = 0xff; // invalid deflate block type
        let e = inflater.inflate_block(&bad_data, 0, &mut out).unwrap_err();
        assert!(
            matches!(e.kind, BgzfErrorKind::Deflate | BgzfErrorKind::Size { .. }),
            "{e}"
        );
        let e = block_at(&file[..30], 0).unwrap_err();
        assert!(matches!(e.kind, BgzfErrorKind::Truncated { .. }), "{e}");
        let e = block_at(b"BAM\x01 not compressed at all....", 0).unwrap_err();
        assert_eq!(e.kind, BgzfErrorKind::NotBgzf);
        assert!(e.to_string().contains("byte offset 0"));
    }

    #[test]
    fn eof_marker_is_an_empty_block() {
        let mut out = InflateBuffer::new();
        let info = Inflater::new()
            .inflate_block(&EOF_MARKER, 0, &mut out)
            .unwrap();
        assert_eq!((info.size, info.inflated_size, out.len()), (28, 0, 0));
    }

    #[test]
    fn buffer_consume_keeps_the_rest() {
        let mut b = InflateBuffer::new();
        b.extend_from_slice(b"hello world");
        b.consume(6);
        assert_eq!(b.as_slice(), b"world");
        b.clear();
        assert!(b.is_empty());
    }
}
