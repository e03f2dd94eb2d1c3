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

/// Reads an input in chunks of whole records (or pieces of long ones).
pub struct FastaChunker {
    input: Input,
    pending: Vec<u8>,
    offset: u64,
    read_any: bool,
    at_end: bool,
    splitting: Option<Splitting>,
    open_record: Option<OpenRecord>,
}

/// How long records are cut: pieces of `piece_bytes` input bytes, each after the first
/// repeating the last `overlap` residues of the one before.
#[derive(Debug, Clone, Copy)]
struct Splitting {
    piece_bytes: usize,
    overlap: u64,
}

/// A record being cut into pieces: what the next piece starts with.
#[derive(Debug)]
struct OpenRecord {
    name: String,
    /// The overlap repeated at the start of the next piece (input bytes).
    carry: Vec<u8>,
    /// Offset of `carry` in the input (it ends where `pending` starts).
    carry_offset: u64,
    /// Residues of the record before `carry`.
    residues_before: u64,
    first: bool,
    /// Whether `pending` starts at the start of a line.
    at_line_start: bool,
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
            splitting: None,
            open_record: None,
        })
    }

    /// Cuts every record longer than `piece_bytes` input bytes (at least the chunk
    /// target) into pieces of that many bytes of sequence lines, each piece after the
    /// first starting with the last `overlap` residues of the piece before, so that any
    /// stretch of at most `overlap` residues lies whole in some piece.
    pub fn split_records(&mut self, piece_bytes: usize, overlap: u64) {
        self.splitting = Some(Splitting {
            piece_bytes: piece_bytes.max(1),
            overlap,
        });
    }

    /// The input's path as given.
    pub fn path(&self) -> &Path {
        &self.input.path
    }

    /// Whether the input has been read to its end and handed out whole: the next chunk
    /// asked for is the end.
    pub fn is_exhausted(&self) -> bool {
        self.at_end && self.open_record.is_none() && self.pending.iter().all(|&b| is_blank(b))
    }

    /// Fills `chunk` with the next whole records, about `target` bytes of them (more when
    /// one record is longer). Returns `false` at the end of the input. An input with no
    /// bytes at all is an error, as for [`crate::fasta::FastaReader`].
    pub fn next_chunk(&mut self, chunk: &mut FastaChunk, target: usize) -> Result<bool> {
        self.fill_chunk(chunk, target, None)
    }

    /// Like [`next_chunk`](Self::next_chunk), but a chunk takes more records, up to about
    /// `limit` bytes, until it is at least `streams` times as long as its longest record.
    /// A kernel whose `streams` lanes each score sequences placed end to end waits, on a
    /// smaller chunk, for the lane holding the longest record while the others run out.
    pub fn next_chunk_for_streams(
        &mut self,
        chunk: &mut FastaChunk,
        target: usize,
        limit: usize,
        streams: usize,
    ) -> Result<bool> {
        self.fill_chunk(chunk, target, Some((limit, streams)))
    }

    /// [`next_chunk`](Self::next_chunk), grown as
    /// [`next_chunk_for_streams`](Self::next_chunk_for_streams) says when `grow` is
    /// `(limit, streams)`.
    fn fill_chunk(
        &mut self,
        chunk: &mut FastaChunk,
        target: usize,
        grow: Option<(usize, usize)>,
    ) -> Result<bool> {
        chunk.piece = None;
        if self.open_record.is_some() {
            return self.next_piece(chunk);
        }
        let mut target = target.max(1);
        let limit = self.splitting.map(|s| s.piece_bytes.max(target));
        // Read until the pending bytes hold a record start beyond `target`, or the end.
        let mut searched = 0;
        // When growing: the longest record of `pending[..scanned]` (a record boundary).
        let (mut longest, mut scanned) = (0, 0);
        let cut = loop {
            let mut end = None;
            if self.pending.len() >= target {
                let from = searched.max(target - 1).min(self.pending.len());
                end = find_record_start(&self.pending, from);
                searched = self.pending.len().saturating_sub(1);
            }
            if end.is_none() && self.at_end {
                end = Some(self.pending.len());
            }
            let upto = end.unwrap_or(self.pending.len());
            if limit.is_some_and(|limit| upto > limit) {
                // The chunk's last record may be longer than a piece: the records before
                // it make this chunk, or it is the first and is cut into pieces.
                match memmem::rfind(&self.pending[..upto], b"\n>") {
                    Some(newline) => break newline + 1,
                    None => {
                        if self.open_first_record()? {
                            return self.next_piece(chunk);
                        }
                    }
                }
            }
            if let Some(end) = end {
                // (Records are not scanned for their longest when the chunk cannot grow.)
                let wanted = match grow {
                    Some((most, streams)) if end < most => {
                        // Only the records added since the last look are scanned.
                        longest = longest.max(longest_record(&self.pending[scanned..end]));
                        scanned = end;
                        most.min(streams.saturating_mul(longest))
                    }
                    _ => 0,
                };
                if end >= wanted || end == self.pending.len() {
                    break end;
                }
                // Too short for its longest record: look for a record start past `wanted`
                // (the bytes after `end` are not searched yet).
                target = wanted;
                searched = end;
                if self.pending.len() >= target {
                    continue;
                }
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

    /// Starts cutting the record at the start of `pending` into pieces (its header
    /// consumed); `false` when `pending` does not start with a whole header line.
    fn open_first_record(&mut self) -> Result<bool> {
        let start = self.pending.iter().position(|&b| !is_blank(b));
        let Some(start) = start.filter(|&s| self.pending[s] == b'>') else {
            return Ok(false);
        };
        let Some(header_end) = find(&self.pending, start, b'\n') else {
            return Ok(false);
        };
        let name = header_name(
            &self.pending,
            start,
            header_end,
            &self.input.path,
            self.offset,
        )?
        .to_string();
        let body_start = header_end + 1;
        self.pending.drain(..body_start);
        self.offset += body_start as u64;
        self.open_record = Some(OpenRecord {
            name,
            carry: Vec::new(),
            carry_offset: self.offset,
            residues_before: 0,
            first: true,
            at_line_start: true,
        });
        Ok(true)
    }

    /// Fills `chunk` with the next piece of the record being cut.
    fn next_piece(&mut self, chunk: &mut FastaChunk) -> Result<bool> {
        let splitting = self.splitting.expect("pieces only when splitting");
        let at_line_start = self.open_record.as_ref().is_some_and(|r| r.at_line_start);
        let (cut, last) = loop {
            let end = if at_line_start && self.pending.first() == Some(&b'>') {
                Some(0)
            } else {
                find_record_start(&self.pending, 0)
            };
            // Residues after a cut at `piece_bytes` (else this is the last piece).
            let more_after = |to: usize| {
                to > splitting.piece_bytes
                    && !self.pending[splitting.piece_bytes..to]
                        .iter()
                        .all(|&b| is_blank(b))
            };
            match end {
                Some(end) if !more_after(end) => break (end, true),
                Some(_) => break (splitting.piece_bytes, false),
                None if more_after(self.pending.len()) => break (splitting.piece_bytes, false),
                None if self.at_end => break (self.pending.len(), true),
                None => self.fill()?,
            }
        };
        let record = self.open_record.as_mut().expect("a record is open");
        chunk.bytes.clear();
        chunk.bytes.extend_from_slice(&record.carry);
        chunk.bytes.extend_from_slice(&self.pending[..cut]);
        chunk.offset = record.carry_offset;
        chunk.path.clone_from(&self.input.path);
        chunk.piece = Some(RecordPiece {
            name: record.name.clone(),
            residues_before: record.residues_before,
            first: record.first,
            last,
        });
        if cut > 0 {
            record.at_line_start = self.pending[cut - 1] == b'\n';
        }
        self.pending.drain(..cut);
        self.offset += cut as u64;
        if last {
            self.open_record = None;
        } else {
            let tail = tail_with_residues(&chunk.bytes, splitting.overlap);
            record.residues_before += count_residues(&chunk.bytes[..tail]);
            record.carry.clear();
            record.carry.extend_from_slice(&chunk.bytes[tail..]);
            record.carry_offset = chunk.offset + tail as u64;
            record.first = false;
        }
        Ok(true)
    }

    /// Appends up to [`READ_SIZE`] bytes to `pending`; a read that fails is an error at
    /// the offset (in the decompressed text) where the input stopped.
    fn fill(&mut self) -> Result<()> {
        let old = self.pending.len();
        self.pending.resize(old + READ_SIZE, 0);
        let n = loop {
            match self.input.read(&mut self.pending[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // Where the stream stopped: past everything read so far.
                    self.pending.truncate(old);
                    let offset = self.offset + old as u64;
                    let message = format!("cannot read: {e}");
                    return Err(Error::format(&self.input.path, offset, message));
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
    use crate::reads::tests::{first_error, truncated_gzip};

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
    fn a_truncated_gzip_file_is_an_error_where_its_text_stops() {
        let text: Vec<u8> = (0..5_000)
            .flat_map(|i| format!(">p{i}\nMKVLAAGIVGLLLAQWERTYIPASDFGHKLCVNM\n").into_bytes())
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let (path, inflated) = truncated_gzip(&dir, "cut.fa.gz", &text);
        let mut chunker = FastaChunker::open(&path).unwrap();
        let mut chunk = FastaChunk::default();
        let error = first_error(|| chunker.next_chunk(&mut chunk, 4096));
        let expected = format!("(at byte offset {})", inflated.len());
        assert!(
            error.contains("cut.fa.gz: cannot read: ") && error.ends_with(&expected),
            "{error}"
        );
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
    fn an_input_is_exhausted_once_its_last_record_is_handed_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.fa");
        std::fs::write(&path, b">a\nACGT\n>b\nGG\n\n").unwrap();
        let mut chunk = FastaChunk::default();
        let mut chunker = FastaChunker::open(&path).unwrap();
        assert!(!chunker.is_exhausted());
        assert!(chunker.next_chunk(&mut chunk, 1 << 20).unwrap());
        assert!(chunker.is_exhausted());
        let mut chunker = FastaChunker::open(&path).unwrap();
        assert!(chunker.next_chunk(&mut chunk, 4).unwrap());
        assert!(!chunker.is_exhausted(), "record b is still to come");
        assert!(chunker.next_chunk(&mut chunk, 4).unwrap());
        assert!(chunker.is_exhausted());
        assert!(!chunker.next_chunk(&mut chunk, 4).unwrap());
    }

    #[test]
    fn chunks_for_streams_grow_to_hold_their_longest_record_many_times() {
        // 30 records of 11 bytes, one of 206, 30 more of 11.
        let mut text = Vec::new();
        for i in 0..60 {
            if i == 30 {
                text.extend_from_slice(b">long\n");
                text.extend_from_slice(&[b'A'; 200]);
                text.push(b'\n');
            }
            text.extend_from_slice(format!(">s{i:02}\nACGT\n").as_bytes());
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.fa");
        std::fs::write(&path, &text).unwrap();
        let limits = [(40, false), (500, false), (5000, false), (5000, true)];
        let cases = limits.iter().flat_map(|&(limit, split)| {
            [1, 40, 300].into_iter().flat_map(move |target| {
                [1, 4, 64].map(move |streams| (limit, split, target, streams))
            })
        });
        for (limit, split, target, streams) in cases {
            let case = format!("limit {limit}, split {split}, target {target}, streams {streams}");
            let mut chunker = FastaChunker::open(&path).unwrap();
            if split {
                // Pieces only for records over 1,000 bytes: none here.
                chunker.split_records(1000, 10);
            }
            let mut chunk = FastaChunk::default();
            let (mut rebuilt, mut offset) = (Vec::new(), 0);
            while chunker
                .next_chunk_for_streams(&mut chunk, target, limit, streams)
                .unwrap()
            {
                assert_eq!(chunk.offset, offset, "{case}");
                offset += chunk.bytes.len() as u64;
                rebuilt.extend_from_slice(&chunk.bytes);
                let (len, longest) = (chunk.bytes.len(), longest_record(&chunk.bytes));
                let at_end = offset == text.len() as u64;
                assert!(len >= target || at_end, "{case}: {len} bytes");
                // Short of `streams` longest records only when adding more would pass
                // the limit.
                assert!(
                    len >= (streams * longest).min(limit) || at_end,
                    "{case}: {len} bytes, longest {longest}"
                );
            }
            assert_eq!(rebuilt, text, "{case}");
        }
        assert_eq!(longest_record(b">a\nAC\n>b\nACGT\n>c\nA"), 8);
    }

    /// A record rebuilt from its pieces: name, sequence, and each piece's
    /// (residues_before, residues).
    type Rebuilt = (String, Vec<u8>, Vec<(u64, u64)>);

    /// Every record of `text` chunked with long records cut into pieces.
    /// With `grow` as `(limit, streams)`, chunked by
    /// [`FastaChunker::next_chunk_for_streams`].
    fn pieced(
        text: &[u8],
        target: usize,
        piece_bytes: usize,
        overlap: u64,
        grow: Option<(usize, usize)>,
    ) -> Vec<Rebuilt> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.fa");
        std::fs::write(&path, text).unwrap();
        let mut chunker = FastaChunker::open(&path).unwrap();
        chunker.split_records(piece_bytes, overlap);
        let mut chunk = FastaChunk::default();
        let mut out: Vec<Rebuilt> = Vec::new();
        let mut open = false;
        while chunker.fill_chunk(&mut chunk, target, grow).unwrap() {
            for record in chunk.records() {
                let record = record.unwrap();
                let mut sequence = Vec::new();
                record
                    .translate(&chunk.path, &ResidueMap::identity(), &mut sequence)
                    .unwrap();
                match &chunk.piece {
                    None => {
                        assert!(!open, "a whole chunk inside a cut record");
                        out.push((record.name.to_string(), sequence, Vec::new()));
                    }
                    Some(piece) => {
                        assert_eq!(piece.first, !open);
                        if piece.first {
                            out.push((piece.name.clone(), Vec::new(), Vec::new()));
                        }
                        let (name, whole, pieces) = out.last_mut().unwrap();
                        assert_eq!(name, &piece.name);
                        let before = piece.residues_before as usize;
                        assert!(before <= whole.len(), "pieces leave no gap");
                        assert_eq!(
                            &whole[before..],
                            &sequence[..whole.len() - before],
                            "the overlap repeats the residues before"
                        );
                        whole.extend_from_slice(&sequence[whole.len() - before..]);
                        pieces.push((piece.residues_before, sequence.len() as u64));
                        open = !piece.last;
                    }
                }
            }
        }
        assert!(!open, "the last piece is marked");
        out
    }

    #[test]
    fn long_records_are_cut_into_overlapping_pieces() {
        let long: String = (0..3000)
            .map(|i| b"ACGT"[(i * 7 + i / 5) % 4] as char)
            .collect();
        let lines: Vec<&str> = long
            .as_bytes()
            .chunks(61)
            .map(|l| std::str::from_utf8(l).unwrap())
            .collect();
        for (body, eol) in [
            (lines.join("\n"), "\n"),
            (lines.join("\r\n"), "\r\n"),
            (long.clone(), "\n"),
        ] {
            let text = format!(">a x{eol}AC{eol}>long one{eol}{body}{eol}{eol}>b{eol}GG{eol}>long2{eol}{body}{eol}");
            let expected: Vec<(String, Vec<u8>)> = chunked(text.as_bytes(), 50).unwrap();
            for (target, piece_bytes, overlap) in
                [(50, 400, 30), (1, 100, 0), (1000, 1000, 99), (7, 64, 63)]
            {
                let got = pieced(text.as_bytes(), target, piece_bytes, overlap, None);
                let names: Vec<_> = got.iter().map(|(n, s, _)| (n.clone(), s.clone())).collect();
                assert_eq!(names, expected, "{target} {piece_bytes} {overlap}");
                // Chunks grown for their longest record cut the same pieces.
                let grown = pieced(
                    text.as_bytes(),
                    target,
                    piece_bytes,
                    overlap,
                    Some((5000, 64)),
                );
                assert_eq!(grown, got, "{target} {piece_bytes} {overlap}, grown");
                let (_, _, pieces) = &got[1];
                assert!(pieces.len() >= 3, "{pieces:?}");
                for w in pieces.windows(2) {
                    let (before, residues) = w[0];
                    let next = w[1].0;
                    assert!(
                        next == 0 || before + residues >= next + overlap,
                        "{pieces:?}"
                    );
                    assert!(
                        next + w[1].1 > before + residues,
                        "each piece adds residues"
                    );
                }
            }
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
