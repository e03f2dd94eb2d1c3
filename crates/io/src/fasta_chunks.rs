//! FASTA cut into chunks of whole records without parsing them: a farm emitter's light
//! parse. The emitter only reads blocks and finds the last record start (`\n>`) in each;
//! workers parse their chunk with [`FastaChunk::records`], in parallel.
//!
//! A record longer than a chunk can be cut into overlapping pieces (see
//! [`FastaChunker::split_records`]), each a chunk of its own, so that one long genome
//! sequence still spreads over every worker.
//!
//! The records a chunk yields, and the errors, are those of [`crate::fasta::FastaReader`]
//! (blank lines, `\r\n`, lowercase and gaps accepted; text before the first header, a
//! header without a name, bytes that cannot be sequence rejected), except that errors
//! give the byte offset in the (decompressed) input rather than the line number.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use memchr::memmem;

use crate::fasta::is_sequence_byte;
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
    /// Set when the chunk is one piece of a record cut into pieces: `bytes` are then
    /// sequence lines only (no header).
    pub piece: Option<RecordPiece>,
}

/// Where a chunk lies in a record cut into pieces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordPiece {
    /// The record's name (its header's first word).
    pub name: String,
    /// Residues of the record before the chunk's first residue.
    pub residues_before: u64,
    /// Whether this is the record's first piece; later pieces start with the last
    /// `overlap` residues of the piece before.
    pub first: bool,
    /// Whether this is the record's last piece.
    pub last: bool,
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
            if is_blank(byte) {
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
    /// The chunk's records, in order (for a piece, the one piece of its record).
    pub fn records(&self) -> ChunkRecords<'_> {
        ChunkRecords { chunk: self, at: 0 }
    }
}

/// Whether `byte` is skipped between residues (a line break or a blank).
fn is_blank(byte: u8) -> bool {
    matches!(byte, b'\n' | b'\r' | b' ' | b'\t')
}

/// The residues (bytes other than line breaks and blanks) of sequence lines.
fn count_residues(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| !is_blank(b)).count() as u64
}

/// The start of the shortest tail of `bytes` holding `residues` residues (0 when all of
/// `bytes` hold fewer).
fn tail_with_residues(bytes: &[u8], residues: u64) -> usize {
    let mut seen = 0;
    for (i, &b) in bytes.iter().enumerate().rev() {
        if seen == residues {
            return i + 1;
        }
        if !is_blank(b) {
            seen += 1;
        }
    }
    0
}

/// Bytes of the longest of the whole records in `bytes` (header and line breaks
/// included).
fn longest_record(bytes: &[u8]) -> usize {
    let mut start = 0;
    let mut longest = 0;
    for newline in memmem::find_iter(bytes, b"\n>") {
        longest = longest.max(newline + 1 - start);
        start = newline + 1;
    }
    longest.max(bytes.len() - start)
}

/// The name of the record whose header spans `bytes[start..header_end]` (`start` at its
/// `>`); errors give `offset + start`.
fn header_name<'a>(
    bytes: &'a [u8],
    start: usize,
    header_end: usize,
    path: &Path,
    offset: u64,
) -> Result<&'a str> {
    let error = |message: &str| Error::format(path, offset + start as u64, message);
    let header = std::str::from_utf8(&bytes[start + 1..header_end])
        .map_err(|_| error("header is not valid UTF-8"))?;
    match header.split_ascii_whitespace().next() {
        Some(name) => Ok(name),
        None => Err(error("header has no name")),
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
        if let Some(piece) = &self.chunk.piece {
            if self.at > 0 {
                return None;
            }
            self.at = bytes.len().max(1);
            return Some(Ok(ChunkRecord {
                name: &piece.name,
                body: bytes,
                body_offset: self.chunk.offset,
            }));
        }
        let error = |at: usize, message: &str| {
            Some(Err(Error::format(
                &self.chunk.path,
                self.chunk.offset + at as u64,
                message,
            )))
        };
        // Skip blank lines (only the input's first chunk can start with them).
        while self.at < bytes.len() && is_blank(bytes[self.at]) {
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
        let name = match header_name(
            bytes,
            start,
            header_end,
            &self.chunk.path,
            self.chunk.offset,
        ) {
            Ok(name) => name,
            Err(e) => return Some(Err(e)),
        };
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

mod chunker;

pub use chunker::FastaChunker;

#[cfg(test)]
mod tests;
