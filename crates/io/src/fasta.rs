//! Streaming FASTA: one record at a time into a buffer the caller reuses.
//!
//! Accepts any line length, `\r\n` line ends, blank lines, lowercase letters (kept as
//! they are: callers decide what case means) and `>` headers whose first word is the
//! name. Rejects, with file and line: text before the first header, a header with no
//! name, and bytes that cannot be sequence (control characters, non-ASCII).

use crate::input::{Input, LineReader};
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
    /// A header line read while finishing the previous record.
    pending_header: bool,
}

impl FastaReader {
    /// Reads from `input`.
    pub fn new(input: Input) -> Self {
        Self {
            lines: LineReader::new(input),
            records: 0,
            pending_header: false,
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
    pub fn read_record(&mut self, record: &mut FastaRecord) -> Result<bool> {
        if !self.pending_header {
            loop {
                if !self.lines.next_line()? {
                    if self.records == 0 && self.lines.number == 0 {
                        return Err(Error::format(&self.lines.input.path, 0, "empty FASTA file"));
                    }
                    return Ok(false);
                }
                if self.lines.line.is_empty() {
                    continue;
                }
                if self.lines.line[0] != b'>' {
                    return Err(self.bad_line("sequence data before the first '>' header"));
                }
                break;
            }
        }
        self.pending_header = false;
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
        while self.lines.next_line()? {
            if self.lines.line.first() == Some(&b'>') {
                self.pending_header = true;
                break;
            }
            if let Some(&bad) = self.lines.line.iter().find(|&&b| !is_sequence_byte(b)) {
                return Err(
                    self.bad_line(&format!("byte 0x{bad:02x} cannot be part of a sequence"))
                );
            }
            record.sequence.extend_from_slice(&self.lines.line);
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
}
