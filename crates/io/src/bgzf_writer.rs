//! Writing BGZF: text or binary data cut into independent gzip blocks of at most 64 KiB,
//! ending with the EOF marker, so `bgzip`, `tabix`, `zcat` and htslib read the result.
//!
//! Blocks hold 65,280 input bytes (htslib's block size) compressed by libdeflate; a
//! block that would not shrink below the 64 KiB limit is stored instead.

use std::io::{self, Write};

use crate::bgzf::EOF_MARKER;

/// Input bytes per block (htslib's `BGZF_BLOCK_SIZE`).
pub const BLOCK_INPUT: usize = 0xff00;
/// The largest compressed block.
const MAX_BLOCK: usize = 1 << 16;
/// BGZF header with the `BC` extra field; bytes 16..18 take the block size minus one.
const HEADER: [u8; 18] = [
    0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0, 0xff, 0x06, 0x00, b'B', b'C', 0x02, 0x00, 0, 0,
];
/// Header plus CRC32 and ISIZE.
const FRAME: usize = HEADER.len() + 8;

/// Compresses everything written to it into BGZF blocks on `inner`. Call
/// [`BgzfWriter::finish`] to write the last block and the EOF marker; dropping the writer
/// without it leaves a truncated file (which readers detect by the missing marker).
pub struct BgzfWriter<W: Write> {
    inner: W,
    pending: Vec<u8>,
    block: Vec<u8>,
    compressor: libdeflater::Compressor,
    stored: libdeflater::Compressor,
}

impl<W: Write> BgzfWriter<W> {
    /// A writer compressing at libdeflate `level` (0–12; 6 is zlib's default).
    pub fn new(inner: W, level: i32) -> Self {
        let level = libdeflater::CompressionLvl::new(level.clamp(0, 12))
            .unwrap_or_else(|_| libdeflater::CompressionLvl::default());
        Self {
            inner,
            pending: Vec::with_capacity(BLOCK_INPUT),
            block: vec![0; MAX_BLOCK],
            compressor: libdeflater::Compressor::new(level),
            stored: libdeflater::Compressor::new(
                libdeflater::CompressionLvl::new(0)
                    .unwrap_or(libdeflater::CompressionLvl::fastest()),
            ),
        }
    }

    /// Writes the buffered data as a last block, then the EOF marker; returns the inner
    /// writer (not flushed).
    pub fn finish(mut self) -> io::Result<W> {
        if !self.pending.is_empty() {
            self.write_block()?;
        }
        self.inner.write_all(&EOF_MARKER)?;
        Ok(self.inner)
    }

    /// Compresses `pending` into one block and writes it.
    fn write_block(&mut self) -> io::Result<()> {
        let data = &self.pending;
        let room = MAX_BLOCK - FRAME;
        let out = &mut self.block[HEADER.len()..HEADER.len() + room];
        let size = match self.compressor.deflate_compress(data, out) {
            Ok(n) => n,
            // Incompressible data: a stored block adds only a few bytes.
            Err(_) => self
                .stored
                .deflate_compress(data, out)
                .map_err(|e| io::Error::other(format!("BGZF block does not fit: {e}")))?,
        };
        let total = FRAME + size;
        self.block[..HEADER.len()].copy_from_slice(&HEADER);
        self.block[16..18].copy_from_slice(&((total - 1) as u16).to_le_bytes());
        let tail = HEADER.len() + size;
        self.block[tail..tail + 4].copy_from_slice(&libdeflater::crc32(data).to_le_bytes());
        self.block[tail + 4..tail + 8].copy_from_slice(&(data.len() as u32).to_le_bytes());
        self.inner.write_all(&self.block[..total])?;
        self.pending.clear();
        Ok(())
    }
}

impl<W: Write> Write for BgzfWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let take = buf.len().min(BLOCK_INPUT - self.pending.len());
        self.pending.extend_from_slice(&buf[..take]);
        if self.pending.len() == BLOCK_INPUT {
            self.write_block()?;
        }
        Ok(take)
    }

    /// Writes the complete blocks to the inner writer and flushes it; data short of a
    /// block stays buffered (a flush must not cut blocks small).
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bgzf::{BlockScanner, InflateBuffer, Inflater};

    fn roundtrip(data: &[u8], level: i32) -> Vec<u8> {
        let mut w = BgzfWriter::new(Vec::new(), level);
        for piece in data.chunks(7_777) {
            w.write_all(piece).unwrap();
        }
        let file = w.finish().unwrap();
        assert!(file.ends_with(&EOF_MARKER));
        let mut out = InflateBuffer::new();
        let mut inflater = Inflater::new();
        for block in BlockScanner::new(&file, 0, file.len() as u64) {
            let block = block.unwrap();
            assert!(block.inflated_size <= BLOCK_INPUT);
            inflater
                .inflate_block(&file, block.offset, &mut out)
                .unwrap();
        }
        out.as_slice().to_vec()
    }

    #[test]
    fn blocks_inflate_back_to_the_input() {
        let text: Vec<u8> = (0..300_000u32)
            .flat_map(|i| format!("20,{i},A,C,{},0,0,0\n", i % 17).into_bytes())
            .collect();
        assert_eq!(roundtrip(&text, 6), text);
        // Incompressible bytes are stored.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let noise: Vec<u8> = (0..200_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        assert_eq!(roundtrip(&noise, 12), noise);
        assert_eq!(roundtrip(b"", 6), b"");
    }

    #[test]
    fn gzip_readers_read_it() {
        let text = b"Chromosome,Position\n1,2\n".repeat(5_000);
        let mut w = BgzfWriter::new(Vec::new(), 1);
        w.write_all(&text).unwrap();
        let file = w.finish().unwrap();
        let mut back = Vec::new();
        io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&file[..]), &mut back)
            .unwrap();
        assert_eq!(back, text);
    }
}
