//! Records of a read file found from the middle of its stream, so that many machines can
//! each count the records of one byte range, and a part of the file can start at any
//! record, without anyone reading the file from its start.
//!
//! A record belongs to the range holding the line break just before its first line (the
//! first range, from offset 0, also holds a record at offset 0): every record belongs to
//! exactly one range whatever the ranges' bounds. A FASTQ record is found from anywhere
//! by its shape: a line starting with `@` whose line after next starts with `+` (a
//! quality line starting with `@` is followed by a name and a sequence, never by `+`).

use std::io::{self, BufRead, Read};

use super::chunker::record_format_of;
use super::records::Framing;
use super::{InputFormat, RecordFormat};
use crate::input::Input;
use crate::Result;

/// How the records of the file `input` opens are written, under the run's input
/// format (FASTQ or FASTA told apart by the file's first record when not given).
pub fn file_record_format(format: InputFormat, input: Input) -> Result<RecordFormat> {
    if let Some(given) = record_format_of(format) {
        return Ok(given);
    }
    let mut input = input;
    Ok(match super::detect_format(&mut input)? {
        super::ReadFormat::Fastq => RecordFormat::Fastq,
        super::ReadFormat::Fasta => RecordFormat::Fasta,
    })
}

/// The records of one byte range of a file's stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RangeRecords {
    /// How many records belong to the range.
    pub records: u64,
    /// Stream offsets of the range's records number 0, `every`, `2 * every`, …
    pub anchors: Vec<u64>,
}

/// A stream read into memory as far as it is looked at.
struct Ahead<R> {
    reader: R,
    buf: Vec<u8>,
    eof: bool,
}

impl<R: Read> Ahead<R> {
    /// Whether the stream holds `len` bytes (read as far as needed).
    fn has(&mut self, len: usize) -> io::Result<bool> {
        while self.buf.len() < len && !self.eof {
            let old = self.buf.len();
            self.buf.resize(old + (len - old).max(1 << 18), 0);
            let n = loop {
                match self.reader.read(&mut self.buf[old..]) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    other => break other?,
                }
            };
            self.buf.truncate(old + n);
            self.eof = n == 0;
        }
        Ok(self.buf.len() >= len)
    }

    /// The byte at `pos`, `None` past the end.
    fn byte(&mut self, pos: usize) -> io::Result<Option<u8>> {
        Ok(if self.has(pos + 1)? {
            Some(self.buf[pos])
        } else {
            None
        })
    }

    /// Where the line after the one at `pos` starts (the stream's end if it has none).
    /// A line longer than a record may be is an error, as it is to the command.
    fn next_line(&mut self, pos: usize) -> io::Result<usize> {
        let mut from = pos;
        loop {
            if let Some(i) = memchr::memchr(b'\n', &self.buf[from.min(self.buf.len())..]) {
                return Ok(from + i + 1);
            }
            from = from.max(self.buf.len());
            if from - pos > super::MAX_RECORD_BYTES {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "a line of more than {} bytes: not reads",
                        super::MAX_RECORD_BYTES
                    ),
                ));
            }
            if !self.has(self.buf.len() + 1)? {
                return Ok(self.buf.len().max(pos));
            }
        }
    }

    /// Whether a record starts at the line start `pos`.
    fn record_starts(&mut self, format: RecordFormat, pos: usize) -> io::Result<bool> {
        let Some(first) = self.byte(pos)? else {
            return Ok(false);
        };
        Ok(match format.framing() {
            Framing::Fastq => {
                let third = self.next_line(pos)?;
                let third = self.next_line(third)?;
                first == b'@' && self.byte(third)? == Some(b'+')
            }
            Framing::Fasta => first == b'>',
            Framing::Line => first != b'\n' && first != b'\r',
        })
    }

    /// The end of the record starting at `pos`.
    fn record_end(&mut self, format: RecordFormat, pos: usize) -> io::Result<usize> {
        match format.framing() {
            Framing::Fastq => {
                let mut end = pos;
                for _ in 0..4 {
                    end = self.next_line(end)?;
                }
                Ok(end)
            }
            Framing::Fasta => {
                let mut end = self.next_line(pos)?;
                while let Some(b) = self.byte(end)? {
                    if b == b'>' {
                        break;
                    }
                    end = self.next_line(end)?;
                }
                Ok(end)
            }
            Framing::Line => self.next_line(pos),
        }
    }

    /// The first position at or after `pos` that is not an empty line.
    fn skip_blank(&mut self, mut pos: usize) -> io::Result<usize> {
        while let Some(b'\n' | b'\r') = self.byte(pos)? {
            pos += 1;
        }
        Ok(pos)
    }
}

/// Stream bytes a count holds behind the record it is at, at most (those before are
/// dropped, so that a whole file is counted in bounded memory).
const HELD_BEHIND: usize = 1 << 20;

/// The records of `format` belonging to the range `start..end` of a file's stream
/// (see the module's text), `stream` reading it from `start` on; with the offsets of
/// every `every`-th of them. The stream is read as far as the range's last record,
/// holding about a MiB of it at a time, so a range may be the whole file.
pub fn records_in_range(
    stream: impl Read,
    format: RecordFormat,
    start: u64,
    end: u64,
    every: u64,
) -> io::Result<RangeRecords> {
    count_records(stream, format, start, end, every, HELD_BEHIND)
}

/// [`records_in_range`], dropping the stream's bytes once `held` lie behind the record
/// it is at.
fn count_records(
    stream: impl Read,
    format: RecordFormat,
    start: u64,
    end: u64,
    every: u64,
    held: usize,
) -> io::Result<RangeRecords> {
    let mut ahead = Ahead {
        reader: stream,
        buf: Vec::new(),
        eof: false,
    };
    // The range's end, from the first byte `ahead` holds.
    let mut len = end - start;
    let mut found = None;
    if start == 0 && ahead.record_starts(format, 0)? {
        found = Some(0);
    }
    let mut from = 0;
    while found.is_none() && (from as u64) < len {
        let line = ahead.next_line(from)?;
        if line as u64 > len || line == from || ahead.buf[line - 1] != b'\n' {
            break;
        }
        if ahead.record_starts(format, line)? {
            found = Some(line);
        }
        from = line;
    }
    let mut range = RangeRecords::default();
    let Some(mut pos) = found else {
        return Ok(range);
    };
    let every = every.max(1);
    // Stream offset of the first byte `ahead` holds.
    let mut base = start;
    loop {
        if range.records % every == 0 {
            range.anchors.push(base + pos as u64);
        }
        range.records += 1;
        let end_of_record = ahead.record_end(format, pos)?;
        let next = ahead.skip_blank(end_of_record)?;
        // The record after belongs to the next range if its line break does.
        if ahead.byte(next)?.is_none() || next as u64 > len {
            return Ok(range);
        }
        pos = next;
        if pos > held {
            ahead.buf.drain(..pos);
            base += pos as u64;
            len -= pos as u64;
            pos = 0;
        }
    }
}

/// Drops the rest of the line `reader` is in; `false` at the end of the stream.
fn drop_line(reader: &mut impl BufRead) -> io::Result<bool> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(false);
        }
        match memchr::memchr(b'\n', buf) {
            Some(i) => {
                reader.consume(i + 1);
                return Ok(true);
            }
            None => {
                let n = buf.len();
                reader.consume(n);
            }
        }
    }
}

/// The next byte of `reader`, not consumed.
fn peek(reader: &mut impl BufRead) -> io::Result<Option<u8>> {
    Ok(reader.fill_buf()?.first().copied())
}

/// Reads past `n` records of `format` from `reader`, which is at a record's start (or
/// at empty lines before one).
pub fn skip_records(reader: &mut impl BufRead, format: RecordFormat, n: u64) -> io::Result<()> {
    for _ in 0..n {
        while let Some(b'\n' | b'\r') = peek(reader)? {
            reader.consume(1);
        }
        match format.framing() {
            Framing::Fastq => {
                for _ in 0..4 {
                    drop_line(reader)?;
                }
            }
            Framing::Fasta => {
                drop_line(reader)?;
                while !matches!(peek(reader)?, None | Some(b'>')) {
                    drop_line(reader)?;
                }
            }
            Framing::Line => {
                drop_line(reader)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
