//! Sequencing reads (FASTQ or FASTA, plain or gzip, `-` for standard input), cut for a
//! farm: the emitter only finds record boundaries, the workers parse.
//!
//! Two interfaces share the record framing and checks. [`InputChunker`] and
//! [`FragmentBatch`] read what bowtie2 reads: [`ReadSources`] (interleaved files, `-1`/`-2`
//! pairs, unpaired files, in that order, with `--skip`/`--upto`) in any
//! [`InputFormat`], as chunks of whole fragments (an unpaired read or both mates of a
//! pair), decoded with trimming and checks that mates are in step. [`ReadChunker`] and
//! [`ReadBatch`], below, read unpaired FASTQ/FASTA files.
//!
//! [`ReadChunker`] (emitter side) reads big blocks and cuts them at record boundaries
//! into [`ReadChunk`]s of at most a given number of records and bytes: a FASTQ record is
//! four lines, a FASTA record runs from a `>` line to the next one. It looks at nothing
//! else, so it runs at memory speed. [`ReadBatch::parse`] (worker side) checks and
//! decodes a chunk's records; errors name the file and the record's number, counted
//! from 1 in each file.
//!
//! Accepted: `\r\n` line ends, blank lines between records, lower case, IUPAC letters
//! (kept; the aligner scores them as N), `.` (read as N), `U` (read as T), empty reads.
//! Rejected with an error: a header not starting with `@`/`>`, a FASTQ record without
//! its `+` line (multi-line FASTQ is not supported), sequence and quality of different
//! lengths, quality characters below the offset or above `~`, letters that are not
//! nucleotides, reads longer than the limit, names that SAM cannot carry, a record cut
//! off by the end of the file, and unreadable input (e.g. truncated gzip).

use std::io::{BufRead, Read};
use std::path::PathBuf;

use crate::input::Input;
use crate::{Error, Result};

mod bam_reads;
mod chunker;
mod fragments;
mod records;
mod sources;

pub use chunker::{InputChunk, InputChunker, Layout, RecordFormat};
pub use fragments::{Fragment, FragmentBatch};
pub use sources::{InputFormat, ReadSources, TrimEnd, TrimTo};

/// Bytes read from the input at a time.
const READ_BLOCK: u64 = 1 << 16;
/// A record that has not ended after this many bytes is an error (not sequencing
/// reads, or line breaks missing): memory stays bounded whatever the input.
const MAX_RECORD_BYTES: usize = 4 << 20;

/// The two read formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadFormat {
    /// Four-line FASTQ records.
    #[default]
    Fastq,
    /// FASTA records (sequence on any number of lines, no qualities).
    Fasta,
}

/// Whole records of one input file, as raw bytes.
#[derive(Debug, Clone, Default)]
pub struct ReadChunk {
    /// The records' bytes (blank lines between records included).
    pub data: Vec<u8>,
    /// How many records `data` holds.
    pub records: usize,
    /// Number (1-based, in its file) of the first record.
    pub first_record: u64,
    /// The file the records come from (`-` for standard input).
    pub path: PathBuf,
    /// Their format.
    pub format: ReadFormat,
}

/// How big a chunk may grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkLimits {
    /// Most records per chunk.
    pub max_records: usize,
    /// A chunk stops growing once it holds this many bytes.
    pub max_bytes: usize,
}

impl Default for ChunkLimits {
    fn default() -> Self {
        Self {
            max_records: 2048,
            max_bytes: 1 << 20,
        }
    }
}

/// Cuts one or more read files, in order, into [`ReadChunk`]s (the farm's emitter).
pub struct ReadChunker {
    paths: Vec<PathBuf>,
    next_path: usize,
    input: Option<Input>,
    format: ReadFormat,
    input_done: bool,
    carry: Vec<u8>,
    next_record: u64,
    limits: ChunkLimits,
}

impl ReadChunker {
    /// Reads `paths` one after the other (`-` is standard input). Nothing is opened
    /// before the first [`ReadChunker::fill`].
    pub fn new(paths: Vec<PathBuf>, limits: ChunkLimits) -> Self {
        Self {
            paths,
            next_path: 0,
            input: None,
            format: ReadFormat::Fastq,
            input_done: false,
            carry: Vec::new(),
            next_record: 1,
            limits: ChunkLimits {
                max_records: limits.max_records.max(1),
                max_bytes: limits.max_bytes.max(1),
            },
        }
    }

    /// Fills `chunk` with the next records; `Ok(false)` when every input is done.
    pub fn fill(&mut self, chunk: &mut ReadChunk) -> Result<bool> {
        loop {
            if self.input.is_none() && !self.open_next()? {
                return Ok(false);
            }
            if self.fill_from_current(chunk)? {
                return Ok(true);
            }
            self.input = None;
        }
    }

    /// Opens the next file and detects its format; `false` when there is none.
    fn open_next(&mut self) -> Result<bool> {
        let Some(path) = self.paths.get(self.next_path) else {
            return Ok(false);
        };
        self.next_path += 1;
        let mut input = Input::open(path)?;
        self.format = detect_format(&mut input)?;
        self.input = Some(input);
        self.input_done = false;
        self.carry.clear();
        self.next_record = 1;
        Ok(true)
    }

    /// Cuts the next chunk from the open input; `false` when it has no more records.
    fn fill_from_current(&mut self, chunk: &mut ReadChunk) -> Result<bool> {
        let Some(input) = self.input.as_mut() else {
            return Ok(false);
        };
        chunk.data.clear();
        chunk.data.extend_from_slice(&self.carry);
        self.carry.clear();
        chunk.records = 0;
        chunk.first_record = self.next_record;
        chunk.path.clone_from(&input.path);
        chunk.format = self.format;
        let data = &mut chunk.data;
        let mut pos = 0;
        loop {
            pos = skip_blank_lines(data, pos);
            match record_end(self.format, data, pos) {
                Some(end) => {
                    pos = end;
                    chunk.records += 1;
                    if chunk.records >= self.limits.max_records || pos >= self.limits.max_bytes {
                        break;
                    }
                }
                None if self.input_done => {
                    if pos < data.len() {
                        // The last record has no line end (or is cut short: the
                        // parser says which).
                        pos = data.len();
                        chunk.records += 1;
                    }
                    break;
                }
                None => {
                    let record = self.next_record + chunk.records as u64;
                    if data.len() - pos > MAX_RECORD_BYTES {
                        let message = format!(
                            "record is longer than {} MiB: not FASTQ/FASTA reads, or line breaks are missing",
                            MAX_RECORD_BYTES >> 20
                        );
                        return Err(Error::record(&input.path, record, message));
                    }
                    let read = match input.by_ref().take(READ_BLOCK).read_to_end(data) {
                        Ok(n) => n,
                        Err(e) => {
                            let message = format!("cannot read: {e}");
                            return Err(Error::record(&input.path, record, message));
                        }
                    };
                    self.input_done = read == 0;
                }
            }
        }
        self.carry.extend_from_slice(&data[pos..]);
        data.truncate(pos);
        self.next_record += chunk.records as u64;
        Ok(chunk.records > 0)
    }
}

/// The format of `input` from its first non-blank byte (FASTQ for an empty input).
fn detect_format(input: &mut Input) -> Result<ReadFormat> {
    loop {
        let path = input.path.clone();
        let buf = input.fill_buf().map_err(|e| Error::io(&path, e))?;
        if buf.is_empty() {
            return Ok(ReadFormat::Fastq);
        }
        match buf.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(i) => {
                return match buf[i] {
                    b'@' => Ok(ReadFormat::Fastq),
                    b'>' => Ok(ReadFormat::Fasta),
                    other => Err(Error::format(
                        &path,
                        0,
                        format!(
                            "not FASTQ or FASTA: the first record starts with {:?}, not '@' or '>'",
                            char::from(other)
                        ),
                    )),
                };
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

/// The first position at or after `pos` that is not an empty line.
fn skip_blank_lines(data: &[u8], mut pos: usize) -> usize {
    while pos < data.len() && (data[pos] == b'\n' || data[pos] == b'\r') {
        pos += 1;
    }
    pos
}

/// The end of the record starting at `pos`, if the record is complete in `data`.
fn record_end(format: ReadFormat, data: &[u8], pos: usize) -> Option<usize> {
    if pos >= data.len() {
        return None;
    }
    match format {
        ReadFormat::Fastq => memchr::memchr_iter(b'\n', &data[pos..])
            .nth(3)
            .map(|i| pos + i + 1),
        ReadFormat::Fasta => {
            memchr::memmem::find(&data[pos + 1..], b"\n>").map(|i| pos + 1 + i + 1)
        }
    }
}

/// How records are checked and decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseOptions {
    /// Subtracted from quality characters: 33 (Sanger/Illumina 1.8+) or 64.
    pub quality_offset: u8,
    /// Longest read accepted.
    pub max_len: usize,
    /// Bases removed from the 5' end of every read (`-5/--trim5`).
    pub trim5: usize,
    /// Bases removed from the 3' end of every read (`-3/--trim3`).
    pub trim3: usize,
    /// Reads cut to a longest length (`--trim-to`), after `trim5`/`trim3`.
    pub trim_to: Option<TrimTo>,
    /// Qualities are space-separated integers (`--int-quals`).
    pub int_quals: bool,
    /// Mates whose names differ beyond a `/1`/`/2` suffix are an error.
    pub check_mate_names: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self {
            quality_offset: 33,
            max_len: 10_000,
            trim5: 0,
            trim3: 0,
            trim_to: None,
            int_quals: false,
            check_mate_names: true,
        }
    }
}

/// One decoded read, borrowed from a [`FragmentBatch`] or a [`ReadBatch`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadRef<'a> {
    /// The name SAM writes: the header's first word; for a mate, without a trailing
    /// `/1`, `/2` or `/3` (as bowtie2 writes mates' names).
    pub name: &'a [u8],
    /// Upper-case bases (`ACGT`, `N` and other IUPAC letters), trimmed.
    pub bases: &'a [u8],
    /// Phred qualities (`0..=93`), trimmed; `None` for formats without qualities
    /// (FASTA, `-r`, `-F`, `-c` without `:QUALS`).
    pub qualities: Option<&'a [u8]>,
    /// The whole header, comment included (for `--sam-no-qname-trunc`); for a mate,
    /// without a trailing `/1`, `/2` or `/3`.
    pub full_name: &'a [u8],
    /// The header after its first word and the whitespace character that ends it
    /// (for `--sam-append-comment`); empty if none.
    pub comment: &'a [u8],
    /// The record as it was in the input, untrimmed, without its final line break
    /// (what `--un`/`--al` write); a `--tab5`/`--tab6` pair's mates share the line.
    /// Empty from [`ReadBatch`].
    pub original: &'a [u8],
    /// QSEQ's filter flag was 0: the read failed the instrument's filter
    /// (`--qc-filter` reports it as filtered).
    pub filtered: bool,
}

#[derive(Debug, Clone, Copy)]
struct Span {
    name: (u32, u32),
    header: (u32, u32),
    bases: (u32, u32),
    has_qualities: bool,
}

/// The decoded reads of one chunk, in reused buffers (one per worker).
#[derive(Debug, Clone, Default)]
pub struct ReadBatch {
    names: Vec<u8>,
    bases: Vec<u8>,
    qualities: Vec<u8>,
    spans: Vec<Span>,
}

impl ReadBatch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of reads.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are no reads.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Read `i`.
    pub fn get(&self, i: usize) -> ReadRef<'_> {
        let s = self.spans[i];
        let range = |(a, b): (u32, u32)| a as usize..b as usize;
        let header = &self.names[range(s.header)];
        let comment = header
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .map_or(&header[header.len()..], |i| &header[i + 1..]);
        ReadRef {
            name: &self.names[range(s.name)],
            bases: &self.bases[range(s.bases)],
            qualities: s.has_qualities.then(|| &self.qualities[range(s.bases)]),
            full_name: header,
            comment,
            original: &[],
            filtered: false,
        }
    }

    /// Checks and decodes every record of `chunk`, replacing the batch's content.
    pub fn parse(&mut self, chunk: &ReadChunk, options: &ParseOptions) -> Result<()> {
        self.names.clear();
        self.bases.clear();
        self.qualities.clear();
        self.spans.clear();
        let mut lines = Lines {
            data: &chunk.data,
            pos: 0,
        };
        let mut number = chunk.first_record;
        loop {
            lines.pos = skip_blank_lines(lines.data, lines.pos);
            let Some(header) = lines.next() else {
                break;
            };
            let fail = |message: String| Error::record(&chunk.path, number, message);
            let span = match chunk.format {
                ReadFormat::Fastq => self.parse_fastq(header, &mut lines, options),
                ReadFormat::Fasta => self.parse_fasta(header, &mut lines, options),
            }
            .map_err(fail)?;
            self.spans.push(span);
            number += 1;
        }
        Ok(())
    }

    fn parse_fastq(
        &mut self,
        header: &[u8],
        lines: &mut Lines<'_>,
        options: &ParseOptions,
    ) -> std::result::Result<Span, String> {
        let (name, header) = self.push_name(header, b'@')?;
        let (Some(sequence), Some(plus)) = (lines.next(), lines.next()) else {
            return Err("truncated record at the end of the input".into());
        };
        if plus.first() != Some(&b'+') {
            return Err(format!(
                "expected a '+' line after the sequence, found {:?} (multi-line FASTQ is not supported)",
                preview(plus)
            ));
        }
        let Some(quality) = lines.next() else {
            return Err("truncated record at the end of the input: no quality line".into());
        };
        if quality.len() != sequence.len() {
            return Err(format!(
                "sequence has {} bases but quality has {} values",
                sequence.len(),
                quality.len()
            ));
        }
        let bases = self.push_bases(sequence, options)?;
        let offset = options.quality_offset;
        for (i, &q) in quality.iter().enumerate() {
            if q < offset || q > b'~' {
                return Err(format!(
                    "invalid quality character {:?} at position {} (quality offset {offset})",
                    char::from(q),
                    i + 1
                ));
            }
            self.qualities.push(q - offset);
        }
        Ok(Span {
            name,
            header,
            bases,
            has_qualities: true,
        })
    }

    fn parse_fasta(
        &mut self,
        header: &[u8],
        lines: &mut Lines<'_>,
        options: &ParseOptions,
    ) -> std::result::Result<Span, String> {
        let (name, header) = self.push_name(header, b'>')?;
        let start = self.bases.len();
        while lines.peek() != Some(b'>') {
            let Some(line) = lines.next() else {
                break;
            };
            self.push_bases(line, options)?;
            if self.bases.len() - start > options.max_len {
                break;
            }
        }
        let len = self.bases.len() - start;
        if len > options.max_len {
            return Err(too_long(len, options.max_len));
        }
        // Keep the quality buffer aligned with the bases (spans index both).
        self.qualities.resize(self.bases.len(), 0);
        Ok(Span {
            name,
            header,
            bases: (start as u32, self.bases.len() as u32),
            has_qualities: false,
        })
    }

    /// Appends the header after the marker; returns the name (its first word, checked
    /// for SAM) and the whole header.
    fn push_name(&mut self, header: &[u8], marker: u8) -> std::result::Result<Names, String> {
        if header.first() != Some(&marker) {
            return Err(format!(
                "expected a header line starting with '{}', found {:?}",
                char::from(marker),
                preview(header)
            ));
        }
        let name = header[1..]
            .split(|b| b.is_ascii_whitespace())
            .next()
            .unwrap_or_default();
        fragments::check_name(name)?;
        let start = self.names.len() as u32;
        self.names.extend_from_slice(&header[1..]);
        let name = (start, start + name.len() as u32);
        Ok((name, (start, self.names.len() as u32)))
    }

    /// Appends upper-cased bases, checked.
    fn push_bases(
        &mut self,
        line: &[u8],
        options: &ParseOptions,
    ) -> std::result::Result<(u32, u32), String> {
        if line.len() > options.max_len {
            return Err(too_long(line.len(), options.max_len));
        }
        let start = self.bases.len();
        for (i, &b) in line.iter().enumerate() {
            let upper = match b.to_ascii_uppercase() {
                c @ (b'A' | b'C' | b'G' | b'T' | b'N') => c,
                b'U' => b'T',
                b'.' => b'N',
                c @ (b'R' | b'Y' | b'S' | b'W' | b'K' | b'M' | b'B' | b'D' | b'H' | b'V') => c,
                _ => {
                    return Err(format!(
                    "invalid base {:?} at position {} (expected A, C, G, T, N or an IUPAC code)",
                    char::from(b),
                    i + 1
                ))
                }
            };
            self.bases.push(upper);
        }
        Ok((start as u32, self.bases.len() as u32))
    }
}

/// A read's name and whole header, as ranges of [`ReadBatch`]'s name buffer.
type Names = ((u32, u32), (u32, u32));

fn too_long(len: usize, max: usize) -> String {
    format!("read is {len} bases long; reads of up to {max} bases are accepted")
}

/// The start of a line, for messages.
fn preview(line: &[u8]) -> String {
    let cut = &line[..line.len().min(40)];
    String::from_utf8_lossy(cut).into_owned()
}

/// Lines of a chunk without their `\n` / `\r\n`.
struct Lines<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Lines<'a> {
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.pos >= self.data.len() {
            return None;
        }
        let rest = &self.data[self.pos..];
        let (line, advance) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], i + 1),
            None => (rest, rest.len()),
        };
        self.pos += advance;
        Some(line.strip_suffix(b"\r").unwrap_or(line))
    }

    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }
}

#[cfg(test)]
mod tests;
