//! Streaming FASTA: one record at a time into a buffer the caller reuses.
//!
//! Accepts any line length, `\r\n` line ends, blank lines, lowercase letters (kept as
//! they are: callers decide what case means) and `>` headers whose first word is the
//! name. Rejects, with file and line: text before the first header, a header with no
//! name, and bytes that cannot be sequence (control characters, non-ASCII).

use crate::input::{human_size, Input, LineReader};
use crate::{Error, Result};

/// One FASTA record: the name (first word of the header), the rest of the header line,
/// and the sequence with line breaks removed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FastaRecord {
    /// The header's first word, without `>`.
    pub name: String,
    /// The header after the first word (may be empty).
    pub description: String,
    /// The sequence bytes as written (letters, `*`, `-`, `.`).
    pub sequence: Vec<u8>,
}

/// Reads FASTA records from an [`Input`].
pub struct FastaReader {
    lines: LineReader,
    records: u64,
    /// The longest header line accepted ([`MAX_HEADER`]; smaller in tests).
    max_header: usize,
}

/// The longest FASTA header line accepted (sequence lines may have any length).
pub const MAX_HEADER: usize = 16 << 20;

impl FastaReader {
    /// Reads from `input`.
    pub fn new(input: Input) -> Self {
        Self {
            lines: LineReader::new(input),
            records: 0,
            max_header: MAX_HEADER,
        }
    }

    /// Opens `path` (`-` for standard input; gzip recognised).
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Self> {
        Ok(Self::new(Input::open(path)?))
    }

    /// The input's path as given.
    pub fn path(&self) -> &std::path::Path {
        &self.lines.input.path
    }

    /// Records read so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Reads the next record into `record`; returns `false` at the end of the input.
    ///
    /// Sequence lines go straight into `record.sequence`, so a genome written on one
    /// line takes no more memory than one wrapped; a header line longer than
    /// [`MAX_HEADER`] is an error, found before more of it is read.
    pub fn read_record(&mut self, record: &mut FastaRecord) -> Result<bool> {
        loop {
            let Some(complete) = self.lines.next_line_prefix(self.max_header)? else {
                if self.records == 0 && self.lines.number == 0 {
                    return Err(Error::format(&self.lines.input.path, 0, "empty FASTA file"));
                }
                return Ok(false);
            };
            if self.lines.line.is_empty() {
                continue;
            }
            if self.lines.line[0] != b'>' {
                return Err(self.bad_line("sequence data before the first '>' header"));
            }
            if !complete {
                return Err(self.bad_line(&format!(
                    "header longer than {}, the longest accepted: the file is corrupt or its line breaks are missing",
                    human_size(self.max_header)
                )));
            }
            break;
        }
        let header = &self.lines.line[1..];
        let header = std::str::from_utf8(header)
            .map_err(|_| self.bad_line("header is not valid UTF-8"))?
            .trim();
        let (name, description) = match header.find(|c: char| c.is_ascii_whitespace()) {
            Some(i) => (&header[..i], header[i..].trim_start()),
            None => (header, ""),
        };
        if name.is_empty() {
            return Err(self.bad_line("header has no name"));
        }
        record.name.clear();
        record.name.push_str(name);
        record.description.clear();
        record.description.push_str(description);
        record.sequence.clear();
        self.records += 1;
        while !matches!(self.lines.peek()?, None | Some(b'>')) {
            let start = record.sequence.len();
            self.lines.append_line(&mut record.sequence)?;
            if let Some(&bad) = record.sequence[start..]
                .iter()
                .find(|&&b| !is_sequence_byte(b))
            {
                return Err(
                    self.bad_line(&format!("byte 0x{bad:02x} cannot be part of a sequence"))
                );
            }
        }
        Ok(true)
    }

    fn bad_line(&self, message: &str) -> Error {
        Error::line(&self.lines.input.path, self.lines.number, message)
    }
}

/// Letters, `*` (stop), `-` and `.` (gaps), and blanks inside a line (ignored by callers
/// that split on letters) are accepted as sequence.
pub(crate) fn is_sequence_byte(b: u8) -> bool {
    b.is_ascii_alphabetic() || matches!(b, b'*' | b'-' | b'.' | b' ' | b'\t')
}

impl Iterator for FastaReader {
    type Item = Result<FastaRecord>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut record = FastaRecord::default();
        match self.read_record(&mut record) {
            Ok(true) => Some(Ok(record)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(text: &[u8]) -> Result<Vec<FastaRecord>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.fa");
        std::fs::write(&path, text).unwrap();
        FastaReader::open(&path)?.collect()
    }

    #[test]
    fn multi_line_records_with_descriptions() {
        let recs = read_all(b">chr1 first one\r\nACGT\nacgt\n\n>chr2\nNNNN\n>empty\n").unwrap();
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[0].name, "chr1");
        assert_eq!(recs[0].description, "first one");
        assert_eq!(recs[0].sequence, b"ACGTacgt");
        assert_eq!(recs[1].sequence, b"NNNN");
        assert_eq!(recs[2].name, "empty");
        assert!(recs[2].sequence.is_empty());
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = read_all(b"ACGT\n>x\nAC\n").unwrap_err().to_string();
        assert!(e.contains("x.fa") && e.contains("line 1"), "{e}");
        let e = read_all(b">x\nAC\x01GT\n").unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("0x01"), "{e}");
        // One record: the error is on line 2 of record 1, and says so without "record 2".
        let e = read_all(b">only\nACGTXX!!\n").unwrap_err().to_string();
        assert!(
            e.ends_with("x.fa: line 2: byte 0x21 cannot be part of a sequence"),
            "{e}"
        );
        let e = read_all(b"> \nAC\n").unwrap_err().to_string();
        assert!(e.contains("no name"), "{e}");
        let e = read_all(b"").unwrap_err().to_string();
        assert!(e.contains("empty FASTA"), "{e}");
    }

    #[test]
    fn a_sequence_on_one_line_reads_as_one_wrapped() {
        let one = format!(">a\n{}\n>b\nAC\r\n", "ACGT".repeat(100_000));
        let wrapped = format!(
            ">a\n{}\n>b\nA\nC\n",
            "ACGT"
                .repeat(100_000)
                .as_bytes()
                .chunks(60)
                .map(|l| std::str::from_utf8(l).unwrap())
                .collect::<Vec<_>>()
                .join("\n")
        );
        let one = read_all(one.as_bytes()).unwrap();
        assert_eq!(one, read_all(wrapped.as_bytes()).unwrap());
        assert_eq!(one[0].sequence.len(), 400_000);
        assert_eq!(one[1].sequence, b"AC");
    }

    #[test]
    fn a_header_longer_than_the_limit_is_an_error() {
        let input = Input::from_reader(
            "h.fa",
            Box::new(std::io::Cursor::new(
                b">abcdefgh\nAC\n>abcdefghi\nAC\n".to_vec(),
            )),
        )
        .unwrap();
        let mut reader = FastaReader::new(input);
        reader.max_header = 9;
        let mut record = FastaRecord::default();
        assert!(reader.read_record(&mut record).unwrap());
        let e = reader.read_record(&mut record).unwrap_err().to_string();
        assert!(
            e.starts_with("h.fa: line 3: header longer than 9 bytes, the longest accepted"),
            "{e}"
        );
        let input = Input::from_reader(
            "s.fa",
            Box::new(std::io::Cursor::new(b"ACGTACGTACGTACGT\n".to_vec())),
        )
        .unwrap();
        let mut reader = FastaReader::new(input);
        reader.max_header = 9;
        let e = reader.read_record(&mut record).unwrap_err().to_string();
        assert_eq!(e, "s.fa: line 1: sequence data before the first '>' header");
    }
}
