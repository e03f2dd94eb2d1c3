//! Record framing for the emitter: whole records of one file, found by their line
//! structure alone (nothing is checked or decoded here), and the k-mers of `-F`.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{
    detect_format, record_end, skip_blank_lines, ReadFormat, MAX_RECORD_BYTES, READ_BLOCK,
};
use crate::input::Input;
use crate::{Error, Result};

/// How records are delimited in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// Four lines per record.
    Fastq,
    /// From a `>` line to the next one.
    Fasta,
    /// One line per record (raw, QSEQ, tab-separated formats).
    Line,
}

/// Whole records of one file, one at a time, in a reused buffer.
pub(crate) struct RecordReader {
    input: Input,
    framing: Framing,
    buf: Vec<u8>,
    pos: usize,
    done: bool,
    /// Why the input could not be read further: reported, with the number of the
    /// record it cut, once the records read before it are returned.
    failed: Option<String>,
    /// Bytes of the (decompressed) stream dropped from `buf` so far.
    drained: u64,
    /// Records returned so far (the 1-based number of the last one).
    pub records: u64,
}

impl RecordReader {
    /// Reads `input`; `framing` `None` detects FASTQ or FASTA from the first record.
    pub fn from_input(mut input: Input, framing: Option<Framing>) -> Result<(Self, ReadFormat)> {
        let (framing, format) = match framing {
            Some(f) => (f, ReadFormat::Fastq),
            None => match detect_format(&mut input)? {
                ReadFormat::Fastq => (Framing::Fastq, ReadFormat::Fastq),
                ReadFormat::Fasta => (Framing::Fasta, ReadFormat::Fasta),
            },
        };
        let reader = Self {
            input,
            framing,
            buf: Vec::new(),
            pos: 0,
            done: false,
            failed: None,
            drained: 0,
            records: 0,
        };
        Ok((reader, format))
    }

    /// The file's path as given.
    pub fn path(&self) -> &PathBuf {
        &self.input.path
    }

    /// Whether the file is compressed (offsets are then in the decompressed stream).
    pub fn compressed(&self) -> bool {
        self.input.compressed
    }

    /// The offset in the (inflated) stream just past the last record returned.
    pub fn offset(&self) -> u64 {
        self.drained + self.pos as u64
    }

    /// The next record (blank lines before it skipped), `None` at the end of the file.
    pub fn next(&mut self) -> Result<Option<&[u8]>> {
        loop {
            self.pos = skip_blank_lines(&self.buf, self.pos);
            let end = match self.framing {
                Framing::Fastq => record_end(ReadFormat::Fastq, &self.buf, self.pos),
                Framing::Fasta => record_end(ReadFormat::Fasta, &self.buf, self.pos),
                Framing::Line => {
                    memchr::memchr(b'\n', &self.buf[self.pos..]).map(|i| self.pos + i + 1)
                }
            };
            let end = match end {
                Some(end) => Some(end),
                None if self.done => {
                    if let Some(message) = &self.failed {
                        let record = self.records + 1;
                        return Err(Error::record(&self.input.path, record, message.clone()));
                    }
                    (self.pos < self.buf.len()).then_some(self.buf.len())
                }
                None => {
                    self.refill()?;
                    continue;
                }
            };
            return Ok(end.map(|end| {
                let start = self.pos;
                self.pos = end;
                self.records += 1;
                &self.buf[start..end]
            }));
        }
    }

    /// Drops consumed bytes and reads the next block. A read error ends the input after
    /// the bytes read before it (a truncated gzip file gives its complete records first).
    fn refill(&mut self) -> Result<()> {
        let record = self.records + 1;
        self.drained += self.pos as u64;
        self.buf.drain(..self.pos);
        self.pos = 0;
        if self.buf.len() > MAX_RECORD_BYTES {
            let message = format!(
                "record is longer than {} MiB: not reads in the expected format, or line breaks are missing",
                MAX_RECORD_BYTES >> 20
            );
            return Err(Error::record(&self.input.path, record, message));
        }
        match self
            .input
            .by_ref()
            .take(READ_BLOCK)
            .read_to_end(&mut self.buf)
        {
            Ok(n) => self.done = n == 0,
            Err(e) => {
                self.failed = Some(format!("cannot read: {e}"));
                self.done = true;
            }
        }
        Ok(())
    }
}

/// The first line of a record, for messages.
pub(crate) fn first_line(record: &[u8]) -> String {
    let line = record.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    super::preview(line)
}

/// The k-mers of FASTA sequences (`-F k:<k>,i:<interval>`), each written as a line
/// `<name>_<offset>\t<k-mer>`: bowtie2 skips characters that are neither bases nor
/// IUPAC codes, reads IUPAC codes as `N`, starts over at each sequence, and names each
/// k-mer after its sequence's first word and its 0-based offset.
pub(crate) struct KmerReader {
    lines: crate::input::LineReader,
    k: usize,
    interval: usize,
    prefix: Vec<u8>,
    window: Vec<u8>,
    /// Bases still to read before the next k-mer is complete.
    eat: usize,
    /// Offset of the next k-mer in its sequence.
    offset: u64,
    beginning: bool,
    line_pos: usize,
    /// K-mers written so far.
    pub records: u64,
}

impl KmerReader {
    /// Opens the FASTA file `path`.
    pub fn open(path: &Path, k: usize, interval: usize) -> Result<Self> {
        let lines = crate::input::LineReader::new(Input::open(path)?)
            .with_max_len(crate::fasta::MAX_HEADER, "FASTA header");
        Ok(Self {
            lines,
            k: k.max(1),
            interval: interval.max(1),
            prefix: Vec::new(),
            window: Vec::new(),
            eat: k.max(1) - 1,
            offset: 0,
            beginning: true,
            line_pos: 0,
            records: 0,
        })
    }

    /// The file's path as given.
    pub fn path(&self) -> &PathBuf {
        &self.lines.input.path
    }

    /// Appends the next k-mer's line to `out`; `false` at the end of the file. Sequence
    /// lines are read in parts of [`READ_BLOCK`] bytes, so a sequence written on one
    /// line takes no more memory than one wrapped.
    pub fn next_into(&mut self, out: &mut Vec<u8>) -> Result<bool> {
        loop {
            if self.line_pos >= self.lines.line.len() {
                if !self.lines.in_line() && self.lines.peek()? == Some(b'>') {
                    self.lines.next_line()?;
                    self.start_sequence();
                    self.line_pos = self.lines.line.len();
                    continue;
                }
                if !self.lines.next_part(READ_BLOCK as usize)? {
                    return Ok(false);
                }
                self.line_pos = 0;
                continue;
            }
            let c = self.lines.line[self.line_pos];
            self.line_pos += 1;
            let base = match c.to_ascii_uppercase() {
                b @ (b'A' | b'C' | b'G' | b'T') => b,
                b'N' | b'R' | b'Y' | b'M' | b'K' | b'S' | b'W' | b'B' | b'D' | b'H' | b'V' => b'N',
                _ => continue,
            };
            if self.window.len() == self.k {
                self.window.remove(0);
            }
            self.window.push(base);
            if self.eat > 0 {
                self.eat -= 1;
                if !self.beginning {
                    self.offset += 1;
                }
                continue;
            }
            out.extend_from_slice(&self.prefix);
            out.extend_from_slice(itoa::Buffer::new().format(self.offset).as_bytes());
            out.push(b'\t');
            out.extend_from_slice(&self.window);
            out.push(b'\n');
            self.eat = self.interval - 1;
            self.offset += 1;
            self.beginning = false;
            self.records += 1;
            return Ok(true);
        }
    }

    /// A `>` line: the name prefix is its first word and `_`.
    fn start_sequence(&mut self) {
        let header = &self.lines.line[1..];
        let word = header
            .split(|b| b.is_ascii_whitespace())
            .next()
            .unwrap_or_default();
        self.prefix.clear();
        self.prefix.extend_from_slice(word);
        self.prefix.push(b'_');
        self.window.clear();
        self.eat = self.k - 1;
        self.offset = 0;
        self.beginning = true;
    }
}
