//! A BAM read from a stream (standard input, a pipe): raw BGZF blocks one after the
//! other, so they can be inflated elsewhere (by farm workers) and stitched in order.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::header::{self, Header};
use super::walk::RecordStitcher;
use crate::bgzf::{self, InflateBuffer, Inflater};
use crate::{Error, Result};

/// Reads a BAM stream block by block. [`BamStream::open`] parses the header; then
/// [`BamStream::read_blocks`] hands out whole compressed blocks, and
/// [`BamStream::stitcher`] walks the records of their inflated bytes.
pub struct BamStream<R> {
    blocks: BgzfBlockReader<R>,
    header: Header,
    /// Inflated bytes after the header in the blocks read for it.
    after_header: Vec<u8>,
}

impl<R: Read> BamStream<R> {
    /// Reads blocks until the header is complete. `path` names the stream in errors.
    pub fn open(path: impl AsRef<Path>, reader: R) -> Result<Self> {
        let mut stream = Self {
            blocks: BgzfBlockReader::new(path.as_ref(), reader),
            header: Header::default(),
            after_header: Vec::new(),
        };
        let mut inflater = Inflater::new();
        let mut inflated = InflateBuffer::new();
        let mut raw = Vec::new();
        loop {
            match header::parse_header(inflated.as_slice()) {
                Err(msg) => return Err(Error::format(stream.path(), 0, msg)),
                Ok(header::HeaderParse::Complete(h, used)) => {
                    stream.header = h;
                    stream.after_header = inflated.as_slice()[used..].to_vec();
                    return Ok(stream);
                }
                Ok(header::HeaderParse::NeedMore) => {
                    raw.clear();
                    let at = stream.position();
                    if !stream.blocks.read_block(&mut raw)? {
                        return Err(Error::format(
                            stream.path(),
                            at,
                            "the stream ends inside the BAM header",
                        ));
                    }
                    inflater
                        .inflate_raw(&raw, at, &mut inflated)
                        .map_err(|e| super::bgzf_error(stream.path(), e))?;
                }
            }
        }
    }

    /// The parsed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The name the stream was opened by.
    pub fn path(&self) -> &Path {
        &self.blocks.path
    }

    /// Bytes read from the stream so far.
    pub fn position(&self) -> u64 {
        self.blocks.position
    }

    /// A stitcher for the records after the header; it has already been fed the inflated
    /// bytes that followed the header in the blocks [`BamStream::open`] read, so `f` may
    /// be called for records found there.
    pub fn stitcher<F>(&mut self, f: F) -> Result<RecordStitcher>
    where
        F: FnMut(super::Record<'_>),
    {
        let mut stitcher = RecordStitcher::new(self.header.references.len(), 0);
        let rest = std::mem::take(&mut self.after_header);
        stitcher
            .feed(&rest, f)
            .map_err(|e| Error::format(self.path(), self.position(), e.0))?;
        Ok(stitcher)
    }

    /// Appends whole compressed blocks to `out` until it holds at least `target` bytes
    /// or the stream ends. Returns the stream offset of the first block appended.
    /// At the end of the stream, checks that the last block was the EOF marker.
    pub fn read_blocks(&mut self, out: &mut Vec<u8>, target: usize) -> Result<u64> {
        let first = self.position();
        while out.len() < target {
            if !self.blocks.read_block(out)? {
                if !self.blocks.last_was_eof_marker {
                    return Err(Error::format(
                        self.path(),
                        self.position(),
                        "missing BGZF EOF marker: the stream is truncated",
                    ));
                }
                break;
            }
        }
        Ok(first)
    }
}

/// Reads whole BGZF blocks, still compressed, one after the other from a stream,
/// checking each block's framing.
pub(crate) struct BgzfBlockReader<R> {
    path: PathBuf,
    reader: R,
    position: u64,
    last_was_eof_marker: bool,
}

impl<R: Read> BgzfBlockReader<R> {
    /// A reader at the start of `reader`; `path` names it in errors.
    pub(crate) fn new(path: &Path, reader: R) -> Self {
        Self {
            path: path.to_path_buf(),
            reader,
            position: 0,
            last_was_eof_marker: false,
        }
    }

    /// Bytes read so far: the offset of the next block.
    pub(crate) fn position(&self) -> u64 {
        self.position
    }

    /// Appends the next whole block to `out`; `false` at a clean end of stream.
    pub(crate) fn read_block(&mut self, out: &mut Vec<u8>) -> Result<bool> {
        let start = out.len();
        let mut head = [0u8; 18];
        let got = read_full(&mut self.reader, &mut head).map_err(|e| Error::io(&self.path, e))?;
        if got == 0 {
            return Ok(false);
        }
        let at = self.position;
        if got < head.len() {
            return Err(Error::format(
                &self.path,
                at,
                "truncated BGZF block header at the end of the stream",
            ));
        }
        if head[..4] != [0x1f, 0x8b, 0x08, 0x04] || head[12..14] != *b"BC" {
            return Err(Error::format(&self.path, at, "not a BGZF block"));
        }
        let size = u16::from_le_bytes([head[16], head[17]]) as usize + 1;
        if size < 26 {
            return Err(Error::format(&self.path, at, "not a BGZF block"));
        }
        out.extend_from_slice(&head);
        out.resize(start + size, 0);
        let got = read_full(&mut self.reader, &mut out[start + 18..])
            .map_err(|e| Error::io(&self.path, e))?;
        if got < size - 18 {
            return Err(Error::format(
                &self.path,
                at,
                format!(
                    "truncated BGZF block: needs {size} bytes, {} left",
                    got + 18
                ),
            ));
        }
        bgzf::block_at(&out[start..], 0).map_err(|e| {
            super::bgzf_error(
                &self.path,
                bgzf::BgzfError {
                    offset: at,
                    kind: e.kind,
                },
            )
        })?;
        self.last_was_eof_marker = out[start..] == bgzf::EOF_MARKER;
        self.position += size as u64;
        Ok(true)
    }
}

/// Reads until `buf` is full or the reader ends; returns the bytes read.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bam::test_bam;

    #[test]
    fn streams_blocks_and_stitches_records() {
        let mut data = test_bam::header("", &[("c", 100)]);
        for i in 0..50 {
            data.extend(test_bam::record(
                &format!("r{i}"),
                0,
                0,
                i,
                10,
                &[(3, 0)],
                b"ACG",
                -1,
            ));
        }
        let file = test_bam::bgzf(&data, 50);
        let mut stream = BamStream::open("-", &file[..]).unwrap();
        let mut names = Vec::new();
        let mut stitcher = stream
            .stitcher(|r| names.push(r.read_name().to_vec()))
            .unwrap();
        let mut inflater = Inflater::new();
        loop {
            let mut raw = Vec::new();
            let at = stream.read_blocks(&mut raw, 300).unwrap();
            if raw.is_empty() {
                break;
            }
            let mut out = InflateBuffer::new();
            inflater.inflate_blocks(&raw, at, &mut out).unwrap();
            stitcher
                .feed(out.as_slice(), |r| names.push(r.read_name().to_vec()))
                .unwrap();
        }
        stitcher.finish().unwrap();
        assert_eq!(names.len(), 50);
        assert_eq!(names[49], b"r49");
    }

    #[test]
    fn a_stream_without_eof_marker_is_an_error() {
        let data = test_bam::header("", &[]);
        let file = test_bam::bgzf(&data, 50);
        let cut = &file[..file.len() - 28];
        let mut stream = BamStream::open("-", cut).unwrap();
        let mut raw = Vec::new();
        let e = stream
            .read_blocks(&mut raw, 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(e.contains("EOF marker"), "{e}");
    }
}
