//! Opening inputs: a path or `-` for standard input, plain, gzip- or bzip2-compressed; and
//! reading text inputs line by line in bounded memory ([`LineReader`]), whatever the
//! length of their lines.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use flate2::bufread::MultiGzDecoder;

use crate::inflate_thread::InflateThread;
use crate::{Error, Result};

/// Read buffer size for streamed inputs.
const BUFFER: usize = 1 << 20;
/// Read buffer size for an input opened to look at its first bytes ([`Input::open_head`]).
const HEAD_BUFFER: usize = 64 << 10;

/// A readable input and the name it was opened by (for error messages).
pub struct Input {
    /// The path given by the user (`-` for standard input).
    pub path: PathBuf,
    /// Whether the input was compressed (gzip, BGZF or bzip2).
    pub compressed: bool,
    reader: Box<dyn BufRead + Send>,
    /// Bytes of text (decompressed) read so far, or from where reading began
    /// ([`Input::open_at`]).
    position: u64,
}

impl Input {
    /// Opens `path` (`-` for standard input), decompressing gzip, BGZF or bzip2
    /// transparently (recognised by their magic bytes, `1f 8b` and `BZh`, whatever the
    /// file name).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let raw: Box<dyn Read + Send> = if path == Path::new("-") {
            Box::new(io::stdin())
        } else {
            let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
            match MappedFile::map(&file) {
                Some(mapped) => return Self::from_buffered(path, Box::new(mapped)),
                None => Box::new(file),
            }
        };
        Self::from_reader(path, raw)
    }

    /// Opens `path` as [`Input::open`] does, for a caller that reads only its first bytes
    /// (to tell its format): a compressed file is decompressed as it is read, on this
    /// thread and a small buffer at a time, where [`Input::open`] decompresses megabytes
    /// ahead on a thread of its own, mostly for nothing here.
    pub fn open_head(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        if path == Path::new("-") {
            return Self::open(path);
        }
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let buffered = Box::new(BufReader::with_capacity(HEAD_BUFFER, file));
        Self::decompressed(path.to_path_buf(), buffered, false)
    }

    /// Reads `raw` (already opened, e.g. a stream whose first bytes were sniffed and
    /// chained back), decompressing gzip, BGZF or bzip2 transparently; `path` names it
    /// in errors.
    pub fn from_reader(path: impl Into<PathBuf>, raw: Box<dyn Read + Send>) -> Result<Self> {
        Self::from_buffered(path.into(), Box::new(BufReader::with_capacity(BUFFER, raw)))
    }

    /// [`Input::from_reader`] on a reader that buffers (or maps) already.
    fn from_buffered(path: PathBuf, buffered: Box<dyn BufRead + Send>) -> Result<Self> {
        Self::decompressed(path, buffered, true)
    }

    /// `buffered` decompressed as its magic bytes say, `ahead` on a thread of its own
    /// or, without `ahead`, as it is read (a small buffer at a time).
    fn decompressed(
        path: PathBuf,
        mut buffered: Box<dyn BufRead + Send>,
        ahead: bool,
    ) -> Result<Self> {
        let head = buffered.fill_buf().map_err(|e| Error::io(&path, e))?;
        let (gzipped, bzipped) = (is_gzip(head), is_bzip2(head));
        // Decompressed a block ahead on a thread of its own: the one sequential part
        // of reading stays off the thread that cuts the input into tasks.
        let decoder: Box<dyn Read + Send> = if gzipped {
            Box::new(MultiGzDecoder::new(buffered))
        } else if bzipped {
            Box::new(bzip2::bufread::MultiBzDecoder::new(buffered))
        } else {
            return Ok(Self {
                path,
                compressed: false,
                reader: buffered,
                position: 0,
            });
        };
        let reader: Box<dyn BufRead + Send> = if ahead {
            match InflateThread::spawn(decoder) {
                Ok(thread) => Box::new(thread),
                // No thread to be had: inflated as it is read, on this thread.
                Err(decoder) => Box::new(BufReader::with_capacity(BUFFER, decoder)),
            }
        } else {
            Box::new(BufReader::with_capacity(HEAD_BUFFER, decoder))
        };
        Ok(Self {
            path,
            compressed: true,
            reader,
            position: 0,
        })
    }

    /// Bytes of text (decompressed) read so far: where the next byte read lies in the
    /// text.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// Wraps an I/O error from reading this input with its path.
    pub fn error(&self, source: io::Error) -> Error {
        Error::io(&self.path, source)
    }

    /// A read of this input that failed in its line `line` (a truncated gzip stream, a
    /// disk error): the file, the line it cut, and the cause.
    pub fn line_error(&self, line: u64, cause: io::Error) -> Error {
        Error::line(&self.path, line, format!("cannot read: {cause}"))
    }
}

/// Whether `head`, a file's first bytes, starts a gzip (or BGZF) stream.
fn is_gzip(head: &[u8]) -> bool {
    head.starts_with(&[0x1f, 0x8b])
}

/// Whether `head`, a file's first bytes, starts a bzip2 stream (`BZh` and a block size).
fn is_bzip2(head: &[u8]) -> bool {
    head.len() >= 4 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3])
}

/// Whether `head`, a file's first bytes (four suffice), starts a stream that
/// [`Input`] decompresses: its length then says nothing of the text's.
pub fn is_compressed(head: &[u8]) -> bool {
    is_gzip(head) || is_bzip2(head)
}

/// How a file's bytes are compressed, told by its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    /// Gzip: one member, several, or BGZF.
    Gzip,
    Bzip2,
}

/// A regular file's size on disk and how it is compressed (its magic bytes); `None` for
/// standard input, pipes and anything that cannot be opened. Opening a pipe here would
/// take its first bytes from the reader that comes after, so only regular files are
/// opened.
pub fn regular_file(path: &Path) -> Option<(u64, Compression)> {
    let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
    let mut head = [0u8; 4];
    let mut file = File::open(path).ok()?;
    let read = file.read(&mut head).ok()?;
    let head = &head[..read];
    let compression = if is_gzip(head) {
        Compression::Gzip
    } else if is_bzip2(head) {
        Compression::Bzip2
    } else {
        Compression::None
    };
    Some((meta.len(), compression))
}

/// A regular file's size on disk and whether [`Input`] decompresses it (see
/// [`regular_file`]).
pub fn regular_file_size(path: &Path) -> Option<(u64, bool)> {
    regular_file(path).map(|(len, c)| (len, c != Compression::None))
}

/// A regular file read through a read-only memory map. Reading a file with `read(2)`
/// has the kernel copy every byte into the process, on the thread that reads: for the
/// farm's emitter that copy was most of its work on an uncompressed FASTQ file. Mapped,
/// the pages come in by read-ahead and the emitter copies each byte once, into its
/// task. Pages read are released from the process every [`RELEASE_EVERY`] bytes (they
/// stay in the page cache), so the resident set stays bounded on a large file.
struct MappedFile {
    map: memmap2::Mmap,
    pos: usize,
    /// Pages before this offset have been released.
    released: usize,
}

/// Bytes read between two releases of the pages behind them.
const RELEASE_EVERY: usize = 64 << 20;

#[allow(unsafe_code)]
impl MappedFile {
    /// Maps `file` when it is a non-empty regular file and the map succeeds (streams,
    /// empty files, or an address space too small for the file: `None`, and the file is
    /// read instead).
    fn map(file: &File) -> Option<Self> {
        let meta = file.metadata().ok()?;
        if !meta.is_file() || meta.len() == 0 {
            return None;
        }
        // SAFETY: a read-only map of a file seqfarm only reads. Another program
        // truncating the file while it is read would make the kernel signal SIGBUS, as
        // for the memory-mapped BAM and index files.
        let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
        let _ = map.advise(memmap2::Advice::Sequential);
        Some(Self {
            map,
            pos: 0,
            released: 0,
        })
    }
}

#[allow(unsafe_code)]
impl BufRead for MappedFile {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(&self.map[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.map.len());
        let page = 4096;
        let end = self.pos / page * page;
        if end >= self.released + RELEASE_EVERY {
            // SAFETY: a read-only, file-backed mapping: MADV_DONTNEED only drops this
            // process's page-table entries for bytes already consumed; a later read
            // would fault the same bytes back in from the page cache.
            let _ = unsafe {
                self.map.unchecked_advise_range(
                    memmap2::UncheckedAdvice::DontNeed,
                    self.released,
                    end - self.released,
                )
            };
            self.released = end;
        }
    }
}

impl Read for MappedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let rest = &self.map[self.pos..];
        let n = rest.len().min(buf.len());
        buf[..n].copy_from_slice(&rest[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// An [`Input`] read line by line into one reused buffer, counting lines so that errors
/// can name the line (the text formats: FASTA, VCF, BED, SAM).
///
/// Memory stays bounded whatever the input: [`LineReader::next_line`] refuses a line
/// longer than the reader's limit (see [`LineReader::with_max_len`]) before buffering
/// more of it, [`LineReader::next_line_prefix`] keeps a line's first bytes and skips the
/// rest unbuffered, and [`LineReader::append_line`] leaves the bound to the caller, who
/// keeps what it reads.
pub struct LineReader {
    /// The input read from.
    pub input: Input,
    /// The current line, without its line end (`\n` or `\r\n`).
    pub line: Vec<u8>,
    /// Lines read so far (the 1-based number of the current line).
    pub number: u64,
    max_len: usize,
    what: &'static str,
    /// The current line's end has not been read yet.
    in_line: bool,
    /// The current line was cut by [`LineReader::next_line_prefix`]: its rest is skipped
    /// before anything else is read.
    cut: bool,
}

/// The longest line [`LineReader::next_line`] accepts unless told otherwise.
pub const DEFAULT_MAX_LINE: usize = 16 << 20;

impl LineReader {
    /// Reads lines from `input`, each at most [`DEFAULT_MAX_LINE`] bytes long.
    pub fn new(input: Input) -> Self {
        Self {
            input,
            line: Vec::with_capacity(256),
            number: 0,
            max_len: DEFAULT_MAX_LINE,
            what: "line",
            in_line: false,
            cut: false,
        }
    }

    /// Accepts lines of at most `max_len` bytes (line end excluded) in
    /// [`LineReader::next_line`]; `what` names such a line in the error about a longer
    /// one ("SAM line", "FASTA header").
    pub fn with_max_len(mut self, max_len: usize, what: &'static str) -> Self {
        self.max_len = max_len;
        self.what = what;
        self
    }

    /// Reads the next line into `line`; `false` at the end of the input. A line longer
    /// than the limit is an error naming the line, raised before more than the limit is
    /// held in memory.
    pub fn next_line(&mut self) -> Result<bool> {
        self.skip_cut()?;
        self.line.clear();
        match self.read_part(self.max_len)? {
            None => Ok(false),
            Some(true) => Ok(true),
            Some(false) => Err(Error::line(
                &self.input.path,
                self.number,
                format!(
                    "longer than {}, the longest {} accepted: the file is corrupt or its line breaks are missing",
                    human_size(self.max_len),
                    self.what
                ),
            )),
        }
    }

    /// Reads the first `max` bytes of the next line into `line`; `None` at the end of
    /// the input, `Some(false)` when the line was cut. The rest of a cut line is skipped
    /// without being kept, by the next read (so a caller that stops at an error in the
    /// prefix does not read on).
    pub fn next_line_prefix(&mut self, max: usize) -> Result<Option<bool>> {
        self.skip_cut()?;
        self.line.clear();
        let read = self.read_part(max)?;
        self.cut = read == Some(false);
        Ok(read)
    }

    /// Reads at most `max` further bytes of the current line into `line` (of the next
    /// line when the last one was read to its end), so that a line of any length can be
    /// walked in bounded memory; `false` at the end of the input.
    /// [`LineReader::in_line`] tells whether the line goes on.
    pub fn next_part(&mut self, max: usize) -> Result<bool> {
        self.skip_cut()?;
        self.line.clear();
        Ok(self.read_part(max)?.is_some())
    }

    /// Whether the current line's end has not been read yet (after
    /// [`LineReader::next_part`]).
    pub fn in_line(&self) -> bool {
        self.in_line
    }

    /// Appends the next line (or what is left of the current one after
    /// [`LineReader::next_part`]), without its line end, to `out`, which may grow as long
    /// as the line: the caller keeps it, and bounds it. `false` at the end of the input.
    pub fn append_line(&mut self, out: &mut Vec<u8>) -> Result<bool> {
        self.skip_cut()?;
        let start = out.len();
        let read = read_part(
            &mut self.input,
            &mut self.number,
            &mut self.in_line,
            out,
            usize::MAX,
        )?;
        if read.is_some() {
            while out.len() > start && out.last() == Some(&b'\r') {
                out.pop();
            }
        }
        Ok(read.is_some())
    }

    /// Where the next line starts: `(bytes of text before it, lines before it)`. The
    /// rest of a line cut by [`LineReader::next_line_prefix`] is skipped first, as the
    /// next read would skip it.
    pub fn next_line_start(&mut self) -> Result<(u64, u64)> {
        self.skip_cut()?;
        Ok((self.input.position(), self.number))
    }

    /// The next byte to be read (between lines: the first byte of the next line),
    /// without reading it; `None` at the end of the input.
    pub fn peek(&mut self) -> Result<Option<u8>> {
        self.skip_cut()?;
        let next = self.number + u64::from(!self.in_line);
        match self.input.reader.fill_buf() {
            Ok(buf) => Ok(buf.first().copied()),
            Err(e) => Err(self.input.line_error(next, e)),
        }
    }

    /// Reads at most `max` bytes of the current line into `line` (starting the next
    /// line if the last one was read to its end), then removes a trailing `\r` once the
    /// line's end is reached. `None` at the end of the input, `Some(true)` when the
    /// line's end was reached, `Some(false)` when the line goes on.
    fn read_part(&mut self, max: usize) -> Result<Option<bool>> {
        let read = read_part(
            &mut self.input,
            &mut self.number,
            &mut self.in_line,
            &mut self.line,
            max,
        )?;
        if read == Some(true) {
            while self.line.last() == Some(&b'\r') {
                self.line.pop();
            }
        }
        Ok(read)
    }

    /// Skips what is left of a line cut by [`LineReader::next_line_prefix`], reading it
    /// in blocks.
    fn skip_cut(&mut self) -> Result<()> {
        if !std::mem::take(&mut self.cut) {
            return Ok(());
        }
        while self.in_line {
            let line = self.number;
            let input = &mut self.input;
            let buf = match input.reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) => return Err(input.line_error(line, e)),
            };
            if buf.is_empty() {
                self.in_line = false;
                break;
            }
            let (n, ended) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            self.input.consume(n);
            self.in_line = !ended;
        }
        Ok(())
    }
}

/// Appends at most `max` bytes of the current line of `input` to `out`, starting the
/// next line (and counting it in `number`) unless `in_line`; consumes the line end
/// once it is reached. `None` at the end of the input, `Some(true)` at the line's end,
/// `Some(false)` when `max` bytes were appended and the line goes on.
fn read_part(
    input: &mut Input,
    number: &mut u64,
    in_line: &mut bool,
    out: &mut Vec<u8>,
    max: usize,
) -> Result<Option<bool>> {
    let limit = out.len().saturating_add(max);
    // A `\r` just past `max` is let in, in case it is the `\r` of a `\r\n` line end.
    let mut took_cr = false;
    loop {
        let buf = match input.reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) => return Err(input.line_error(*number + u64::from(!*in_line), e)),
        };
        if buf.is_empty() {
            let had_line = std::mem::take(in_line);
            return Ok(had_line.then_some(true));
        }
        if !*in_line {
            *in_line = true;
            *number += 1;
        }
        let room = limit.saturating_sub(out.len());
        if room == 0 {
            match buf[0] {
                b'\n' => {
                    input.consume(1);
                    *in_line = false;
                    return Ok(Some(true));
                }
                b'\r' if !took_cr => {
                    took_cr = true;
                    out.push(b'\r');
                    input.consume(1);
                    continue;
                }
                _ => return Ok(Some(false)),
            }
        }
        let window = &buf[..buf.len().min(room)];
        let (take, ended) = match memchr::memchr(b'\n', window) {
            Some(i) => (i, true),
            None => (window.len(), false),
        };
        grow_within(out, take, limit);
        out.extend_from_slice(&window[..take]);
        input.consume(take + usize::from(ended));
        if ended {
            *in_line = false;
            return Ok(Some(true));
        }
    }
}

/// Makes room in `out` for `n` more bytes, doubling as usual but never past `limit`
/// bytes (unless `n` needs it): a line cut at a limit holds no more than the limit.
fn grow_within(out: &mut Vec<u8>, n: usize, limit: usize) {
    let needed = out.len() + n;
    if needed > out.capacity() {
        let want = out.capacity().saturating_mul(2).min(limit).max(needed);
        out.reserve_exact(want - out.len());
    }
}

/// `n` bytes in the largest binary unit that divides it (`256 MiB`, `64 KiB`).
pub fn human_size(n: usize) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} bytes")
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.reader.read(buf)?;
        self.position += n as u64;
        Ok(n)
    }
}

impl BufRead for Input {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.reader.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.position += amt as u64;
        self.reader.consume(amt)
    }
}

mod resume;
#[cfg(test)]
mod tests;

pub use resume::{locate_blocks, BlockStart, TextPoint};
