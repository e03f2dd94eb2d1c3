//! Sequencing reads (FASTQ or FASTA, plain or gzip, `-` for standard input), cut for a
//! farm: the emitter only finds record boundaries, the workers parse.
//!
//! [`InputChunker`] and [`FragmentBatch`] read what bowtie2 reads: [`ReadSources`]
//! (interleaved files, `-1`/`-2` pairs, unpaired files, in that order, with
//! `--skip`/`--upto`) in any [`InputFormat`], as chunks of whole fragments (an unpaired
//! read or both mates of a pair), decoded with trimming and checks that mates are in
//! step. [`InputChunker`] (emitter side) reads big blocks and cuts them at record
//! boundaries only — a FASTQ record is four lines, a FASTA record runs from a `>` line to
//! the next one — so it runs at memory speed; [`FragmentBatch::parse`] (worker side)
//! checks and decodes a chunk's records; errors name the file and the record's number,
//! counted from 1 in each file.
//!
//! Accepted: `\r\n` line ends, blank lines between records, lower case, IUPAC letters
//! (kept; the aligner scores them as N), `.` (read as N), `U` (read as T), empty reads.
//! Rejected with an error: a header not starting with `@`/`>`, a FASTQ record without
//! its `+` line (multi-line FASTQ is not supported), sequence and quality of different
//! lengths, quality characters below the offset or above `~`, letters that are not
//! nucleotides, reads longer than the limit, names that SAM cannot carry, a record cut
//! off by the end of the file, and unreadable input (e.g. truncated gzip).

use std::io::BufRead;

use crate::input::Input;
use crate::{Error, Result};

mod bam_reads;
mod chunker;
mod fragments;
mod ranges;
mod records;
mod sources;

pub use chunker::{ChunkSpan, FileOpener, InputChunk, InputChunker, Layout, RecordFormat};
pub use fragments::{Fragment, FragmentBatch};
pub use ranges::{file_record_format, records_in_range, skip_records, RangeRecords};
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

/// How big a chunk may grow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkLimits {
    /// Most fragments per chunk; a chunk also ends where the number of fragments read
    /// (skipped ones included) reaches a multiple of it.
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

/// The format of `input` from its first non-blank byte (FASTQ for an empty input).
pub(crate) fn detect_format(input: &mut Input) -> Result<ReadFormat> {
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
    /// Qualities are on Solexa's scale (`--solexa-quals`: ASCII 64 plus the Solexa
    /// score, -5 to 62), converted to Phred as bowtie2 converts them; so are integer
    /// qualities with `int_quals`.
    pub solexa: bool,
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
            solexa: false,
            max_len: 10_000,
            trim5: 0,
            trim3: 0,
            trim_to: None,
            int_quals: false,
            check_mate_names: true,
        }
    }
}

/// One decoded read, borrowed from a [`FragmentBatch`].
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
    /// (what `--un`/`--al` write); a `--tab5`/`--tab6` pair's line is mate 1's, and
    /// mate 2's is empty.
    pub original: &'a [u8],
    /// QSEQ's filter flag was 0: the read failed the instrument's filter
    /// (`--qc-filter` reports it as filtered).
    pub filtered: bool,
}

fn too_long(len: usize, max: usize) -> String {
    format!("read is {len} bases long; reads of up to {max} bases are accepted")
}

/// The start of a line, for messages.
fn preview(line: &[u8]) -> String {
    let cut = &line[..line.len().min(40)];
    String::from_utf8_lossy(cut).into_owned()
}

#[cfg(test)]
pub(crate) mod tests;
