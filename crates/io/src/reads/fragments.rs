//! The worker side of read input: [`FragmentBatch::parse`] checks and decodes an
//! [`InputChunk`] into unpaired reads and pairs, in input order, applying trimming and
//! checking that mates belong together.

mod decode;

use self::decode::{decode_bases, decode_qualities};
use super::chunker::{InputChunk, Layout, RecordFormat};
use super::sources::TrimEnd;
use super::{preview, skip_blank_lines, ParseOptions, ReadRef};
use crate::sam::MAX_QNAME_LEN;
use crate::{Error, Result};

/// One fragment of a batch: an unpaired read or the two mates of a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fragment<'a> {
    /// An unpaired read.
    Single(ReadRef<'a>),
    /// Mate 1 and mate 2.
    Pair([ReadRef<'a>; 2]),
}

type Range = (u32, u32);

#[derive(Debug, Clone, Copy)]
struct ReadSpan {
    name: Range,
    full_name: Range,
    header: Range,
    comment: Range,
    original: Range,
    bases: Range,
    has_qualities: bool,
    filtered: bool,
}

/// The decoded fragments of one chunk, in reused buffers (one per worker).
#[derive(Debug, Clone, Default)]
pub struct FragmentBatch {
    text: Vec<u8>,
    bases: Vec<u8>,
    qualities: Vec<u8>,
    reads: Vec<ReadSpan>,
    /// Index of each fragment's first read, and whether it is a pair.
    fragments: Vec<(u32, bool)>,
    scratch: Vec<u8>,
}

/// A record's fields, before decoding.
struct Fields<'a> {
    /// The name and comment (`None`: the read is named by its fragment's number).
    header: Option<&'a [u8]>,
    sequence: &'a [u8],
    qualities: Option<&'a [u8]>,
    filtered: bool,
}

impl FragmentBatch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of fragments (unpaired reads and pairs).
    pub fn len(&self) -> usize {
        self.fragments.len()
    }

    /// Whether there are no fragments.
    pub fn is_empty(&self) -> bool {
        self.fragments.is_empty()
    }

    /// Number of reads (a pair counts two).
    pub fn reads(&self) -> usize {
        self.reads.len()
    }

    /// Fragment `i`, in input order.
    pub fn fragment(&self, i: usize) -> Fragment<'_> {
        let (first, paired) = self.fragments[i];
        let first = first as usize;
        if paired {
            Fragment::Pair([self.read(first), self.read(first + 1)])
        } else {
            Fragment::Single(self.read(first))
        }
    }

    /// Read `i` of the batch (mates count separately, mate 1 first).
    pub fn read(&self, i: usize) -> ReadRef<'_> {
        let s = &self.reads[i];
        let text = |(a, b): Range| &self.text[a as usize..b as usize];
        let range = |(a, b): Range| a as usize..b as usize;
        ReadRef {
            name: text(s.name),
            bases: &self.bases[range(s.bases)],
            qualities: s.has_qualities.then(|| &self.qualities[range(s.bases)]),
            full_name: text(s.full_name),
            comment: text(s.comment),
            original: text(s.original),
            filtered: s.filtered,
        }
    }

    /// Checks and decodes every fragment of `chunk`, replacing the batch's content.
    pub fn parse(&mut self, chunk: &InputChunk, options: &ParseOptions) -> Result<()> {
        self.text.clear();
        self.bases.clear();
        self.qualities.clear();
        self.reads.clear();
        self.fragments.clear();
        let format = chunk.format;
        let [data1, data2] = &chunk.data;
        let [path1, path2] = &chunk.paths;
        let (mut pos1, mut pos2) = (0, 0);
        let mut i = 0u64;
        loop {
            let rdid = chunk.first_fragment + i;
            let first_read = self.reads.len() as u32;
            match chunk.layout {
                Layout::Unpaired => {
                    let Some(record) = next_record(format, data1, &mut pos1) else {
                        break;
                    };
                    let number = chunk.first_record[0] + i;
                    self.push_record(format, record, 0, rdid, options)
                        .map_err(|m| Error::record(path1, number, m))?;
                    self.fragments.push((first_read, false));
                }
                Layout::Interleaved => {
                    let Some(record) = next_record(format, data1, &mut pos1) else {
                        break;
                    };
                    let number = chunk.first_record[0] + 2 * i;
                    self.push_record(format, record, 1, rdid, options)
                        .map_err(|m| Error::record(path1, number, m))?;
                    let Some(record) = next_record(format, data1, &mut pos1) else {
                        let message = "the last record of an interleaved file has no mate";
                        return Err(Error::record(path1, number, message));
                    };
                    self.push_record(format, record, 2, rdid, options)
                        .map_err(|m| Error::record(path1, number + 1, m))?;
                    self.check_mates(options, (path1, number), (path1, number + 1))?;
                    self.fragments.push((first_read, true));
                }
                Layout::TwoFiles => {
                    let Some(record) = next_record(format, data1, &mut pos1) else {
                        break;
                    };
                    let number = [chunk.first_record[0] + i, chunk.first_record[1] + i];
                    self.push_record(format, record, 1, rdid, options)
                        .map_err(|m| Error::record(path1, number[0], m))?;
                    let Some(record) = next_record(format, data2, &mut pos2) else {
                        let message = format!("has no mate in {}", path2.display());
                        return Err(Error::record(path1, number[0], message));
                    };
                    self.push_record(format, record, 2, rdid, options)
                        .map_err(|m| Error::record(path2, number[1], m))?;
                    self.check_mates(options, (path1, number[0]), (path2, number[1]))?;
                    self.fragments.push((first_read, true));
                }
                Layout::Tabbed => {
                    let Some(line) = next_record(RecordFormat::Raw, data1, &mut pos1) else {
                        break;
                    };
                    let number = chunk.first_record[0] + i;
                    let paired = self
                        .push_tabbed(format, line, rdid, options)
                        .map_err(|m| Error::record(path1, number, m))?;
                    if paired {
                        self.check_mates(options, (path1, number), (path1, number))?;
                    }
                    self.fragments.push((first_read, paired));
                }
            }
            i += 1;
        }
        Ok(())
    }

    /// Errors if the last two reads' names differ beyond a mate suffix.
    fn check_mates(
        &self,
        options: &ParseOptions,
        (path1, number1): (&std::path::PathBuf, u64),
        (path2, number2): (&std::path::PathBuf, u64),
    ) -> Result<()> {
        let n = self.reads.len();
        let (a, b) = (self.read(n - 2), self.read(n - 1));
        if !options.check_mate_names || a.name == b.name || numbered_mates(a.name, b.name) {
            return Ok(());
        }
        let word = |s: &ReadSpan| {
            let header = &self.text[s.header.0 as usize..s.header.1 as usize];
            let end = header
                .iter()
                .position(|b| b.is_ascii_whitespace())
                .unwrap_or(header.len());
            String::from_utf8_lossy(&header[..end]).into_owned()
        };
        let (w1, w2) = (word(&self.reads[n - 2]), word(&self.reads[n - 1]));
        let other = if path1 == path2 {
            format!("record {number2}")
        } else {
            format!("{} record {number2}", path2.display())
        };
        let message = format!(
            "mate names differ: `{w1}` here and `{w2}` in {other} \
             (mates' names must be equal up to a /1 or /2 suffix, or .1 and .2)"
        );
        Err(Error::record(path1, number1, message))
    }

    /// Decodes one record of `format` as mate `mate` (0 unpaired, 1 or 2).
    fn push_record(
        &mut self,
        format: RecordFormat,
        record: &[u8],
        mate: u8,
        rdid: u64,
        options: &ParseOptions,
    ) -> std::result::Result<(), String> {
        let record = trim_line_end(record);
        match format {
            RecordFormat::Fastq => {
                let mut lines = record.split(|&b| b == b'\n').map(trim_cr);
                let header = lines.next().unwrap_or_default();
                let header = header
                    .strip_prefix(b"@")
                    .ok_or_else(|| bad_header(header, '@'))?;
                let (Some(sequence), Some(plus)) = (lines.next(), lines.next()) else {
                    return Err("truncated record at the end of the input".into());
                };
                if plus.first() != Some(&b'+') {
                    return Err(format!(
                        "expected a '+' line after the sequence, found {:?} (multi-line FASTQ is not supported)",
                        preview(plus)
                    ));
                }
                let Some(qualities) = lines.next() else {
                    return Err("truncated record at the end of the input: no quality line".into());
                };
                let fields = Fields {
                    header: Some(header),
                    sequence,
                    qualities: Some(qualities),
                    filtered: false,
                };
                self.push_read(fields, record, mate, rdid, options)
            }
            RecordFormat::Fasta => {
                let mut lines = record.split(|&b| b == b'\n').map(trim_cr);
                let header = lines.next().unwrap_or_default();
                let header = header
                    .strip_prefix(b">")
                    .ok_or_else(|| bad_header(header, '>'))?;
                let mut sequence = std::mem::take(&mut self.scratch);
                sequence.clear();
                for line in lines {
                    sequence.extend_from_slice(line);
                    if sequence.len() > options.max_len {
                        break;
                    }
                }
                let fields = Fields {
                    header: Some(header),
                    sequence: &sequence,
                    qualities: None,
                    filtered: false,
                };
                let result = self.push_read(fields, record, mate, rdid, options);
                self.scratch = sequence;
                result
            }
            RecordFormat::Raw => {
                let fields = Fields {
                    header: None,
                    sequence: trim_cr(record),
                    qualities: None,
                    filtered: false,
                };
                self.push_read(fields, record, mate, rdid, options)
            }
            RecordFormat::Kmer | RecordFormat::CommandLine => {
                let line = trim_cr(record);
                let (name, rest) = split_tab(line).ok_or("expected a name and a sequence")?;
                let (sequence, qualities) = match format {
                    RecordFormat::CommandLine => match rest.iter().position(|&b| b == b':') {
                        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
                        None => (rest, None),
                    },
                    _ => (rest, None),
                };
                let fields = Fields {
                    header: Some(name),
                    sequence,
                    qualities,
                    filtered: false,
                };
                self.push_read(fields, line, mate, rdid, options)
            }
            RecordFormat::Qseq => self.push_qseq(trim_cr(record), mate, rdid, options),
            RecordFormat::Tab5 | RecordFormat::Tab6 => {
                Err("internal: tab-separated lines are parsed as fragments".into())
            }
        }
    }

    /// A QSEQ line: the name is `machine_run_lane_tile_x_y_index/read`.
    fn push_qseq(
        &mut self,
        line: &[u8],
        mate: u8,
        rdid: u64,
        options: &ParseOptions,
    ) -> std::result::Result<(), String> {
        let fields: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
        if fields.len() != 11 {
            return Err(format!(
                "expected 11 tab-separated QSEQ fields, found {}",
                fields.len()
            ));
        }
        let filtered = match fields[10] {
            b"1" => false,
            b"0" => true,
            other => {
                return Err(format!(
                    "QSEQ filter flag must be 0 or 1, found {:?}",
                    preview(other)
                ))
            }
        };
        let mut name = std::mem::take(&mut self.scratch);
        name.clear();
        for (i, field) in fields[..8].iter().enumerate() {
            if i > 0 {
                name.push(if i == 7 { b'/' } else { b'_' });
            }
            name.extend_from_slice(field);
        }
        let read = Fields {
            header: Some(&name),
            sequence: fields[8],
            qualities: Some(fields[9]),
            filtered,
        };
        let result = self.push_read(read, line, mate, rdid, options);
        self.scratch = name;
        result
    }

    /// A `--tab5`/`--tab6` line: an unpaired read (3 fields) or a pair; `true` for a pair.
    fn push_tabbed(
        &mut self,
        format: RecordFormat,
        line: &[u8],
        rdid: u64,
        options: &ParseOptions,
    ) -> std::result::Result<bool, String> {
        let line = trim_cr(trim_line_end(line));
        let f: Vec<&[u8]> = line.split(|&b| b == b'\t').collect();
        fn read<'a>(header: &'a [u8], sequence: &'a [u8], qualities: &'a [u8]) -> Fields<'a> {
            Fields {
                header: Some(header),
                sequence,
                qualities: Some(qualities),
                filtered: false,
            }
        }
        match (format, f.len()) {
            (_, 3) => {
                self.push_read(read(f[0], f[1], f[2]), line, 0, rdid, options)?;
                Ok(false)
            }
            // The pair's line is mate 1's original record and mate 2 has none, so that
            // `--un-conc`/`--al-conc` write the line once (to the mate-1 file), as
            // bowtie2 does.
            (RecordFormat::Tab5, 5) => {
                self.push_read(read(f[0], f[1], f[2]), line, 1, rdid, options)?;
                self.push_read(read(f[0], f[3], f[4]), &[], 2, rdid, options)?;
                Ok(true)
            }
            (RecordFormat::Tab6, 6) => {
                self.push_read(read(f[0], f[1], f[2]), line, 1, rdid, options)?;
                self.push_read(read(f[3], f[4], f[5]), &[], 2, rdid, options)?;
                Ok(true)
            }
            (_, n) => {
                let paired = if format == RecordFormat::Tab5 {
                    "name seq1 qual1 seq2 qual2"
                } else {
                    "name1 seq1 qual1 name2 seq2 qual2"
                };
                Err(format!(
                    "expected 3 tab-separated fields (name seq qual) or {} ({paired}), found {n}",
                    if format == RecordFormat::Tab5 { 5 } else { 6 }
                ))
            }
        }
    }

    /// Checks, decodes and trims one read and appends it.
    fn push_read(
        &mut self,
        fields: Fields<'_>,
        original: &[u8],
        mate: u8,
        rdid: u64,
        options: &ParseOptions,
    ) -> std::result::Result<(), String> {
        let start = self.text.len() as u32;
        self.text.extend_from_slice(original);
        let original = (start, self.text.len() as u32);
        let h0 = self.text.len();
        match fields.header {
            Some(h) if !h.is_empty() => self.text.extend_from_slice(h),
            _ => self
                .text
                .extend_from_slice(itoa::Buffer::new().format(rdid).as_bytes()),
        }
        let h1 = self.text.len();
        let word_end = self.text[h0..h1]
            .iter()
            .position(|b| b.is_ascii_whitespace())
            .map_or(h1, |i| h0 + i);
        let comment_start = (word_end + 1).min(h1);
        let (mut name_end, mut full_end) = (word_end, h1);
        if mate != 0 {
            name_end = h0 + strip_mate_suffix(&self.text[h0..name_end]).len();
            full_end = h0 + strip_mate_suffix(&self.text[h0..full_end]).len();
        }
        // Longer names are cut to SAM's limit, as bowtie2 cuts them (at 255, which
        // samtools then refuses).
        name_end = name_end.min(h0 + MAX_QNAME_LEN);
        check_name(&self.text[h0..name_end])?;
        let bases = decode_bases(fields.sequence, &mut self.bases, options)?;
        let len = bases.1 - bases.0;
        let has_qualities = match fields.qualities {
            Some(q) => {
                let n = decode_qualities(q, &mut self.qualities, options)?;
                if n != len as usize {
                    return Err(format!(
                        "sequence has {len} bases but quality has {n} values"
                    ));
                }
                true
            }
            None => {
                self.qualities.resize(self.bases.len(), 0);
                false
            }
        };
        let bases = trim(bases, options);
        let r = |a: usize, b: usize| (a as u32, b as u32);
        self.reads.push(ReadSpan {
            name: r(h0, name_end),
            full_name: r(h0, full_end),
            header: r(h0, h1),
            comment: r(comment_start, h1),
            original,
            bases,
            has_qualities,
            filtered: fields.filtered,
        });
        Ok(())
    }
}

/// The next record of `data` from `pos` (blank lines skipped), whole records assumed.
fn next_record<'a>(format: RecordFormat, data: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    let start = skip_blank_lines(data, *pos);
    if start >= data.len() {
        *pos = start;
        return None;
    }
    let end = super::chunker::record_end_in(format, data, start);
    *pos = end;
    Some(&data[start..end])
}

fn trim_line_end(record: &[u8]) -> &[u8] {
    record.strip_suffix(b"\n").unwrap_or(record)
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn split_tab(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let i = memchr::memchr(b'\t', line)?;
    Some((&line[..i], &line[i + 1..]))
}

fn bad_header(header: &[u8], marker: char) -> String {
    format!(
        "expected a header line starting with '{marker}', found {:?}",
        preview(header)
    )
}

/// The name without a trailing `/1`, `/2` or `/3`, as bowtie2 writes mates' names.
/// Whether `name1` and `name2` are the names SRA gives mates: `PREFIX.1` and
/// `PREFIX.2` (e.g. `SRR123.7.1` and `SRR123.7.2`). The names are kept as they are,
/// as bowtie2 keeps them.
fn numbered_mates(name1: &[u8], name2: &[u8]) -> bool {
    match (name1, name2) {
        ([prefix1 @ .., b'.', b'1'], [prefix2 @ .., b'.', b'2']) => {
            !prefix1.is_empty() && prefix1 == prefix2
        }
        _ => false,
    }
}

pub(crate) fn strip_mate_suffix(name: &[u8]) -> &[u8] {
    match name {
        [rest @ .., b'/', b'1' | b'2' | b'3'] => rest,
        _ => name,
    }
}

/// Checks that SAM can carry `name` as a QNAME.
pub(crate) fn check_name(name: &[u8]) -> std::result::Result<(), String> {
    if name.is_empty() {
        return Err("read name is empty (SAM needs at least one character)".into());
    }
    if let Some(&bad) = name
        .iter()
        .find(|&&b| !(b'!'..=b'~').contains(&b) || b == b'@')
    {
        return Err(format!(
            "read name {:?} contains {:?}, which SAM does not allow in names",
            String::from_utf8_lossy(name),
            char::from(bad)
        ));
    }
    Ok(())
}

/// The bases left by `-5/--trim5`, `-3/--trim3` and `--trim-to`.
fn trim((start, end): Range, options: &ParseOptions) -> Range {
    let len = (end - start) as usize;
    let (t5, t3) = (options.trim5, options.trim3);
    let (mut start, mut end) = if len <= t5 + t3 {
        (start, start)
    } else {
        (start + t5 as u32, end - t3 as u32)
    };
    if let Some(to) = options.trim_to {
        if to.len > 0 && (end - start) as usize > to.len {
            match to.end {
                TrimEnd::Three => end = start + to.len as u32,
                TrimEnd::Five => start = end - to.len as u32,
            }
        }
    }
    (start, end)
}

#[cfg(test)]
#[path = "fragment_tests.rs"]
mod tests;
