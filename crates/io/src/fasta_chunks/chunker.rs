//! The reading side of FASTA chunks: [`FastaChunker`] reads an input in blocks and hands
//! out chunks of whole records, growing a chunk to hold its longest record when asked,
//! or cutting a record longer than a chunk into overlapping pieces.

use std::io::Read;
use std::path::Path;

use memchr::memmem;

use super::{
    count_residues, find, find_record_start, header_name, is_blank, longest_record,
    tail_with_residues, FastaChunk, RecordPiece, READ_SIZE,
};
use crate::input::Input;
use crate::{Error, Result};

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
    pub(super) fn fill_chunk(
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
