//! Opening inputs: a path or `-` for standard input, plain or gzip-compressed.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::bufread::MultiGzDecoder;

use crate::{Error, Result};

/// Read buffer size for streamed inputs.
const BUFFER: usize = 1 << 20;

/// A readable input and the name it was opened by (for error messages).
pub struct Input {
    /// The path given by the user (`-` for standard input).
    pub path: PathBuf,
    /// Whether the input was gzip-compressed.
    pub gzipped: bool,
    reader: Box<dyn BufRead + Send>,
}

impl Input {
    /// Opens `path` (`-` for standard input), decompressing gzip or BGZF transparently
    /// (recognised by the magic bytes `1f 8b`, whatever the file name).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let raw: Box<dyn Read + Send> = if path == Path::new("-") {
            Box::new(io::stdin())
        } else {
            Box::new(File::open(&path).map_err(|e| Error::io(&path, e))?)
        };
        Self::from_reader(path, raw)
    }

    /// Reads `raw` (already opened, e.g. a stream whose first bytes were sniffed and
    /// chained back), decompressing gzip or BGZF transparently; `path` names it in errors.
    pub fn from_reader(path: impl Into<PathBuf>, raw: Box<dyn Read + Send>) -> Result<Self> {
        let path = path.into();
        let mut buffered = BufReader::with_capacity(BUFFER, raw);
        let head = buffered.fill_buf().map_err(|e| Error::io(&path, e))?;
        let gzipped = head.starts_with(&[0x1f, 0x8b]);
        let reader: Box<dyn BufRead + Send> = if gzipped {
            Box::new(BufReader::with_capacity(
                BUFFER,
                MultiGzDecoder::new(buffered),
            ))
        } else {
            Box::new(buffered)
        };
        Ok(Self {
            path,
            gzipped,
            reader,
        })
    }

    /// Wraps an I/O error from reading this input with its path.
    pub fn error(&self, source: io::Error) -> Error {
        Error::io(&self.path, source)
    }
}

/// An [`Input`] read line by line into one reused buffer, counting lines so that errors
/// can name the line (the text formats: FASTA, VCF, BED).
pub struct LineReader {
    /// The input read from.
    pub input: Input,
    /// The current line, without its line end (`\n` or `\r\n`).
    pub line: Vec<u8>,
    /// Lines read so far (the 1-based number of the current line).
    pub number: u64,
}

impl LineReader {
    /// Reads lines from `input`.
    pub fn new(input: Input) -> Self {
        Self {
            input,
            line: Vec::with_capacity(256),
            number: 0,
        }
    }

    /// Reads the next line into `line`; `false` at the end of the input.
    pub fn next_line(&mut self) -> Result<bool> {
        self.line.clear();
        let n = self
            .input
            .read_until(b'\n', &mut self.line)
            .map_err(|e| self.input.error(e))?;
        if n == 0 {
            return Ok(false);
        }
        self.number += 1;
        while matches!(self.line.last(), Some(b'\n' | b'\r')) {
            self.line.pop();
        }
        Ok(true)
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read(buf)
    }
}

impl BufRead for Input {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.reader.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.reader.consume(amt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn reads_plain_and_gzip_alike() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("a.txt");
        std::fs::write(&plain, b"hello\nworld\n").unwrap();
        let gz = dir.path().join("a.txt.gz");
        let mut enc = flate2::write::GzEncoder::new(
            File::create(&gz).unwrap(),
            flate2::Compression::default(),
        );
        enc.write_all(b"hello\n").unwrap();
        enc.finish().unwrap();
        // A second gzip member, as in BGZF or `cat a.gz b.gz`.
        let mut enc = flate2::write::GzEncoder::new(
            std::fs::OpenOptions::new().append(true).open(&gz).unwrap(),
            flate2::Compression::default(),
        );
        enc.write_all(b"world\n").unwrap();
        enc.finish().unwrap();
        for p in [&plain, &gz] {
            let mut s = String::new();
            let mut input = Input::open(p).unwrap();
            input.read_to_string(&mut s).unwrap();
            assert_eq!(s, "hello\nworld\n");
        }
        assert!(Input::open(&gz).unwrap().gzipped);
    }

    #[test]
    fn missing_file_names_the_path() {
        let err = Input::open("/nonexistent/reads.fq").err().unwrap();
        assert!(err.to_string().starts_with("/nonexistent/reads.fq: "));
    }
}
