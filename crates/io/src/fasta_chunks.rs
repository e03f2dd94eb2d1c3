//! FASTA cut into chunks of whole records without parsing them: a farm emitter's light
//! parse. The emitter only reads blocks and finds the last record start (`\n>`) in each;
//! workers parse their chunk with [`FastaChunk::records`], in parallel.
//!
//! The records a chunk yields, and the errors, are those of [`crate::fasta::FastaReader`]
//! (blank lines, `\r\n`, lowercase and gaps accepted; text before the first header, a
//! header without a name, bytes that cannot be sequence rejected), except that errors
//! give the byte offset in the (decompressed) input rather than the line number.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use memchr::memmem;

use crate::fasta::is_sequence_byte;
use crate::input::Input;
use crate::{Error, Result};

/// Bytes read from the input per call (also the most a chunk's tail carries over).
const READ_SIZE: usize = 1 << 16;

/// A run of whole FASTA records, as bytes.
#[derive(Debug, Default, Clone)]
pub struct FastaChunk {
    /// The records' bytes (the first chunk may start with blank lines).
    pub bytes: Vec<u8>,
    /// Offset of `bytes[0]` in the decompressed input.
    pub offset: u64,
    /// The input's path, for errors.
    pub path: PathBuf,
}

/// One record of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkRecord<'a> {
    /// The header's first word.
    pub name: &'a str,
    /// The sequence lines, line breaks included (see [`ChunkRecord::translate`]).
    pub body: &'a [u8],
    /// Offset of the body in the decompressed input.
    pub body_offset: u64,
}

/// A byte translation for [`ChunkRecord::translate`]: what each sequence byte becomes,
/// with line breaks and blanks skipped and bytes that cannot be sequence rejected.
#[derive(Clone)]
pub struct ResidueMap {
    table: [u8; 256],
}

/// Table entry of a skipped byte.
const SKIP: u8 = 0xFE;
/// Table entry of a byte that cannot be sequence.
const INVALID: u8 = 0xFF;

impl ResidueMap {
    /// Letters, `*` and the gap symbols `-` `.` become `map[b]` (which must be below
    /// 0xFE); `\n`, `\r`, space and tab are skipped; anything else is an error.
    pub fn new(map: &[u8; 256]) -> Self {
        let mut table = [INVALID; 256];
        for (b, slot) in table.iter_mut().enumerate() {
            let byte = b as u8;
            // The bytes FastaReader accepts, so that both readers take the same files.
            if matches!(byte, b'\n' | b'\r' | b' ' | b'\t') {
                *slot = SKIP;
            } else if is_sequence_byte(byte) {
                *slot = map[b].min(SKIP - 1);
            }
        }
        Self { table }
    }

    /// Bytes as they are (the sequence as written, blanks and line breaks removed).
    pub fn identity() -> Self {
        let mut map = [0u8; 256];
        for (b, slot) in map.iter_mut().enumerate() {
            *slot = b as u8;
        }
        Self::new(&map)
    }
}

impl ChunkRecord<'_> {
    /// Appends the translation of every sequence byte to `out`, or fails on the first
    /// byte that cannot be sequence, naming `path` and its offset (`out` is then left
    /// as it was).
    pub fn translate(&self, path: &Path, map: &ResidueMap, out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        out.reserve(self.body.len());
        let mut line_start = 0;
        while line_start < self.body.len() {
            let line_end = memchr::memchr(b'\n', &self.body[line_start..])
                .map_or(self.body.len(), |i| line_start + i);
            let mut line = &self.body[line_start..line_end];
            if let [rest @ .., b'\r'] = line {
                line = rest;
            }
            // Fast path: a line of residues only; otherwise translate it byte by byte.
            let before = out.len();
            let mut special = false;
            out.extend(line.iter().map(|&b| {
                let c = map.table[b as usize];
                special |= c >= SKIP;
                c
            }));
            if special {
                out.truncate(before);
                for (i, &b) in line.iter().enumerate() {
                    match map.table[b as usize] {
                        SKIP => {}
                        INVALID => {
                            out.truncate(start);
                            return Err(Error::format(
                                path,
                                self.body_offset + (line_start + i) as u64,
                                format!(
                                    "record {}: byte 0x{b:02x} cannot be part of a sequence",
                                    self.name
                                ),
                            ));
                        }
                        c => out.push(c),
                    }
                }
            }
            line_start = line_end + 1;
        }
        Ok(())
    }
}

impl FastaChunk {
    /// The chunk's records, in order.
    pub fn records(&self) -> ChunkRecords<'_> {
        ChunkRecords { chunk: self, at: 0 }
    }
}

/// Iterator over a chunk's records.
pub struct ChunkRecords<'a> {
    chunk: &'a FastaChunk,
    at: usize,
}

impl<'a> Iterator for ChunkRecords<'a> {
    type Item = Result<ChunkRecord<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = &self.chunk.bytes;
        let error = |at: usize, message: &str| {
            Some(Err(Error::format(
                &self.chunk.path,
                self.chunk.offset + at as u64,
                message,
            )))
        };
        // Skip blank lines (only the input's first chunk can start with them).
        while self.at < bytes.len() && matches!(bytes[self.at], b'\n' | b'\r' | b' ' | b'\t') {
            self.at += 1;
        }
        if self.at >= bytes.len() {
            return None;
        }
        let start = self.at;
        if bytes[start] != b'>' {
            self.at = bytes.len();
            return error(start, "sequence data before the first '>' header");
        }
        let header_end = find(bytes, start, b'\n').unwrap_or(bytes.len());
        let body_end = find_record_start(bytes, header_end).unwrap_or(bytes.len());
        self.at = body_end;
        let Ok(header) = std::str::from_utf8(&bytes[start + 1..header_end]) else {
            return error(start, "header is not valid UTF-8");
        };
        let name = header.split_ascii_whitespace().next().unwrap_or("");
        if name.is_empty() {
            return error(start, "header has no name");
        }
        let body_start = (header_end + 1).min(body_end);
        Some(Ok(ChunkRecord {
            name,
            body: &bytes[body_start..body_end],
            body_offset: self.chunk.offset + body_start as u64,
        }))
    }
}

/// Position of the first `byte` at or after `from`.
fn find(bytes: &[u8], from: usize, byte: u8) -> Option<usize> {
    memchr::memchr(byte, &bytes[from..]).map(|i| from + i)
}

/// Position of the `>` of the first record starting after `from` (a `>` right after a
/// line break at or after `from`).
fn find_record_start(bytes: &[u8], from: usize) -> Option<usize> {
    static FINDER: OnceLock<memmem::Finder<'static>> = OnceLock::new();
    let finder = FINDER.get_or_init(|| memmem::Finder::new(b"\n>"));
    finder.find(&bytes[from..]).map(|i| from + i + 1)
}

/// Reads an input in chunks of whole records.
pub struct FastaChunker {
    input: Input,
    pending: Vec<u8>,
    offset: u64,
    read_any: bool,
    at_end: bool,
}

impl FastaChunker {
    /// Opens `path` (`-` for standard input; gzip recognised).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Ok(Self {
            input: Input::open(path)?,
            pending: Vec::new(),
            offset: 0,
            read_any: false,
            at_end: false,
        })
    }

    /// The input's path as given.
    pub fn path(&self) -> &Path {
        &self.input.path
    }

    /// Fills `chunk` with the next whole records, about `target` bytes of them (more when
    /// one record is longer). Returns `false` at the end of the input. An input with no
    /// bytes at all is an error, as for [`crate::fasta::FastaReader`].
    pub fn next_chunk(&mut self, chunk: &mut FastaChunk, target: usize) -> Result<bool> {
        let target = target.max(1);
        // Read until the pending bytes hold a record start beyond `target`, or the end.
        let mut searched = 0;
        let cut = loop {
            if self.pending.len() >= target {
                let from = searched.max(target - 1).min(self.pending.len());
                if let Some(start) = find_record_start(&self.pending, from) {
                    break start;
                }
                searched = self.pending.len().saturating_sub(1);
            }
            if self.at_end {
                break self.pending.len();
            }
            self.fill()?;
        };
        if cut == 0 {
            if !self.read_any {
                return Err(Error::format(&self.input.path, 0, "empty FASTA file"));
            }
            return Ok(false);
        }
        // The pending bytes become the chunk; what follows the cut stays pending.
        std::mem::swap(&mut chunk.bytes, &mut self.pending);
        self.pending.clear();
        self.pending.extend_from_slice(&chunk.bytes[cut..]);
        chunk.bytes.truncate(cut);
        chunk.offset = self.offset;
        chunk.path.clone_from(&self.input.path);
        self.offset += cut as u64;
        Ok(true)
    }

    /// Appends up to [`READ_SIZE`] bytes to `pending`.
    fn fill(&mut self) -> Result<()> {
        let old = self.pending.len();
        self.pending.resize(old + READ_SIZE, 0);
        let n = loop {
            match self.input.read(&mut self.pending[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.pending.truncate(old);
                    return Err(self.input.error(e));
                }
            }
        };
        self.pending.truncate(old + n);
        if n == 0 {
            self.at_end = true;
        } else {
            self.read_any = true;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fasta::FastaReader;

    /// (name, sequence) of every record, chunked with `target`.
    fn chunked(text: &[u8], target: usize) -> Result<Vec<(String, Vec<u8>)>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.fa");
        std::fs::write(&path, text).unwrap();
        let mut chunker = FastaChunker::open(&path)?;
        let mut chunk = FastaChunk::default();
        let mut out = Vec::new();
        while chunker.next_chunk(&mut chunk, target)? {
            for record in chunk.records() {
                let record = record?;
                let mut sequence = Vec::new();
                record.translate(&chunk.path, &ResidueMap::identity(), &mut sequence)?;
                out.push((record.name.to_string(), sequence));
            }
        }
        Ok(out)
    }

    #[test]
    fn same_records_as_the_reader_at_any_chunk_size() {
        let text = b"\n>chr1 first one\r\nAC GT\nacgt\n\n>chr2\nNN*-\n>empty\n>x y\nW\n";
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.fa");
        std::fs::write(&path, text).unwrap();
        let expected: Vec<(String, Vec<u8>)> = FastaReader::open(&path)
            .unwrap()
            .map(|r| {
                let r = r.unwrap();
                let seq = r.sequence.into_iter().filter(|b| *b != b' ').collect();
                (r.name, seq)
            })
            .collect();
        for target in [1, 2, 5, 17, 1000] {
            assert_eq!(chunked(text, target).unwrap(), expected, "target {target}");
        }
    }

    #[test]
    fn errors_name_file_and_offset() {
        let e = chunked(b"ACGT\n>x\nAC\n", 100).unwrap_err().to_string();
        assert!(e.contains("x.fa") && e.contains("before the first"), "{e}");
        let e = chunked(b">x\nAC\x01GT\n", 100).unwrap_err().to_string();
        assert!(
            e.contains("0x01") && e.contains("offset 5") && e.contains("record x"),
            "{e}"
        );
        let e = chunked(b"> \nAC\n", 100).unwrap_err().to_string();
        assert!(e.contains("no name"), "{e}");
        let e = chunked(b"", 100).unwrap_err().to_string();
        assert!(e.contains("empty FASTA"), "{e}");
        let e = chunked(b">\xff\xfe\nAC\n", 100).unwrap_err().to_string();
        assert!(e.contains("UTF-8"), "{e}");
    }
}
