//! Writing BGZF: text or binary data cut into independent gzip blocks of at most 64 KiB,
//! ending with the EOF marker, so `bgzip`, `tabix`, `zcat` and htslib read the result.
//!
//! [`BgzfCompressor`] turns bytes into complete blocks (a farm worker compresses its own
//! batch; the blocks of consecutive batches simply follow each other in the file);
//! [`BgzfWriter`] is the streaming [`Write`] on top of it, compressing on the calling
//! thread; [`ParallelBgzfWriter`] writes the same bytes but compresses on a pool of
//! threads (for a farm's collector, which must stay light). Blocks hold 65,280 input
//! bytes (htslib's block size) compressed by libdeflate; a block that would not shrink is
//! stored.

use std::io::{self, Write};

use libdeflater::{CompressionLvl, Compressor};

pub use crate::bgzf::EOF_MARKER;
pub use parallel::{BlockStarts, ParallelBgzfWriter};

mod parallel;
pub mod placed;

/// Threads compressing a farm collector's BGZF output for a farm of `workers` workers:
/// half as many, rounded up. In snp-pileup compressing takes about 1/8 of the workers' CPU
/// time (chr20 bench: 0.5 s against 4 s), so half leaves a wide margin for bursts while
/// adding few threads; on two cores one compressor or two made no measurable difference.
/// The output does not depend on the count.
pub fn compressor_threads(workers: usize) -> usize {
    workers.div_ceil(2)
}

/// Input bytes per block (htslib's `BGZF_BLOCK_SIZE`): small enough that even
/// incompressible data fits the 64 KiB block limit.
pub const BLOCK_INPUT: usize = 0xff00;
/// BGZF header with the `BC` extra field; bytes 16..18 take the block size minus one.
const HEADER: [u8; 16] = [
    0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0, 0xff, 0x06, 0x00, b'B', b'C', 0x02, 0x00,
];

/// Compresses bytes into complete BGZF blocks; keeps libdeflate's state and a buffer, so
/// one per thread.
pub struct BgzfCompressor {
    compressor: Compressor,
    deflated: Vec<u8>,
}

impl BgzfCompressor {
    /// A compressor at libdeflate `level` (0–12, clamped; 6 is zlib's and htslib's default).
    pub fn new(level: i32) -> Self {
        let level = CompressionLvl::new(level.clamp(0, 12)).unwrap_or_default();
        Self {
            compressor: Compressor::new(level),
            deflated: Vec::new(),
        }
    }

    /// Appends `data` to `out` as BGZF blocks of at most [`BLOCK_INPUT`] input bytes each
    /// (nothing for empty `data`).
    pub fn compress(&mut self, data: &[u8], out: &mut Vec<u8>) {
        for piece in data.chunks(BLOCK_INPUT) {
            let bound = self.compressor.deflate_compress_bound(piece.len());
            self.deflated.resize(bound, 0);
            // The bound always suffices, so this cannot fail; store the bytes
            // uncompressed if it ever did.
            let deflated = match self.compressor.deflate_compress(piece, &mut self.deflated) {
                Ok(n) => &self.deflated[..n],
                Err(_) => {
                    stored_block(piece, &mut self.deflated);
                    &self.deflated[..]
                }
            };
            let block_size = HEADER.len() + 2 + deflated.len() + 8;
            out.extend_from_slice(&HEADER);
            out.extend_from_slice(&((block_size - 1) as u16).to_le_bytes());
            out.extend_from_slice(deflated);
            out.extend_from_slice(&libdeflater::crc32(piece).to_le_bytes());
            out.extend_from_slice(&(piece.len() as u32).to_le_bytes());
        }
    }
}

/// `data` as one stored (uncompressed) final deflate block.
fn stored_block(data: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.push(1);
    let len = data.len() as u16;
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
}

/// Compresses everything written to it into BGZF blocks on `inner`. Call
/// [`BgzfWriter::finish`] to write the last block and the EOF marker; dropping the writer
/// without it leaves a truncated file (which readers detect by the missing marker).
pub struct BgzfWriter<W: Write> {
    inner: W,
    /// Compressed bytes written to `inner`.
    written: u64,
    pending: Vec<u8>,
    block: Vec<u8>,
    compressor: BgzfCompressor,
}

impl<W: Write> BgzfWriter<W> {
    /// A writer compressing at libdeflate `level` (0–12; 6 is zlib's default).
    pub fn new(inner: W, level: i32) -> Self {
        Self {
            inner,
            written: 0,
            pending: Vec::with_capacity(BLOCK_INPUT),
            block: Vec::new(),
            compressor: BgzfCompressor::new(level),
        }
    }

    /// The BGZF virtual offset of the next byte written: the file offset of its block
    /// (shifted left 16 bits) and its offset within the block's data.
    pub fn virtual_position(&self) -> u64 {
        self.written << 16 | self.pending.len() as u64
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
        self.block.clear();
        self.compressor.compress(&self.pending, &mut self.block);
        self.inner.write_all(&self.block)?;
        self.written += self.block.len() as u64;
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
    fn virtual_positions_point_at_the_bytes_written() {
        let mut w = BgzfWriter::new(Vec::new(), 1);
        let mut marks = Vec::new();
        for i in 0..40_000u32 {
            let line = format!("chr1\t{i}\t{}\n", i * 7);
            marks.push((w.virtual_position(), line.clone()));
            w.write_all(line.as_bytes()).unwrap();
        }
        let file = w.finish().unwrap();
        let mut block = InflateBuffer::new();
        let mut inflater = Inflater::new();
        for (at, line) in marks.iter().step_by(997) {
            block.clear();
            inflater.inflate_block(&file, at >> 16, &mut block).unwrap();
            let within = (at & 0xffff) as usize;
            let text = &block.as_slice()[within..];
            assert!(text.starts_with(&line.as_bytes()[..text.len().min(line.len())]));
        }
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
