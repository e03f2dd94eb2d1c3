//! zlib's inflate, as a gzip index needs it: stopping at block boundaries, handing out
//! its window, and starting mid-member from a block boundary with a preset window.

use std::ffi::CStr;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use libz_rs_sys as z;

/// The most output a deflate block refers back to.
pub(super) const WINDOW: usize = 32 * 1024;

/// What a stream holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ZlibMode {
    /// A gzip member, header and trailer included.
    Gzip,
    /// Deflate data alone (a member entered at a block boundary).
    Raw,
}

impl ZlibMode {
    fn window_bits(self) -> i32 {
        match self {
            ZlibMode::Gzip => 15 + 16,
            ZlibMode::Raw => -15,
        }
    }
}

/// What one call of [`Inflater::inflate_block`] did.
pub(super) struct Step {
    pub consumed: usize,
    pub produced: usize,
    /// It stopped at the end of a deflate block (or of a member's header).
    pub block_end: bool,
    /// The block it is in, or just ended, is its member's last.
    pub last_block: bool,
    /// Unused bits of the last byte consumed.
    pub bits: u8,
    /// The member (with its trailer, in gzip mode) is complete.
    pub stream_end: bool,
}

/// A zlib inflate stream (boxed: zlib's state points back at it).
pub(super) struct Inflater {
    stream: Box<z::z_stream>,
}

// SAFETY: the stream is owned, and only used through `&mut self`.
unsafe impl Send for Inflater {}

impl Inflater {
    pub fn new(mode: ZlibMode) -> io::Result<Self> {
        let mut stream = Box::<z::z_stream>::default();
        // SAFETY: a default stream, the library's own version string and struct size.
        let ret = unsafe {
            z::inflateInit2_(
                &mut *stream,
                mode.window_bits(),
                z::zlibVersion(),
                std::mem::size_of::<z::z_stream>() as i32,
            )
        };
        let inflater = Self { stream };
        inflater.check(ret)?;
        Ok(inflater)
    }

    fn check(&self, ret: i32) -> io::Result<()> {
        if ret == z::Z_OK {
            return Ok(());
        }
        let message = if self.stream.msg.is_null() {
            format!("zlib error {ret}")
        } else {
            // SAFETY: zlib's messages are static NUL-terminated strings.
            unsafe { CStr::from_ptr(self.stream.msg) }
                .to_string_lossy()
                .into_owned()
        };
        Err(io::Error::new(io::ErrorKind::InvalidData, message))
    }

    /// Starts a new member (or deflate stream) of `mode`.
    pub fn reset(&mut self, mode: ZlibMode) -> io::Result<()> {
        // SAFETY: an initialised stream.
        let ret = unsafe { z::inflateReset2(&mut *self.stream, mode.window_bits()) };
        self.check(ret)
    }

    /// Gives a raw stream the high `bits` of `byte` (the block's start, before the first
    /// whole byte) and the output before the block.
    pub fn enter(&mut self, bits: u8, byte: u8, window: &[u8]) -> io::Result<()> {
        if bits > 0 {
            // SAFETY: an initialised stream.
            let ret = unsafe {
                z::inflatePrime(&mut *self.stream, bits as i32, (byte >> (8 - bits)) as i32)
            };
            self.check(ret)?;
        }
        // SAFETY: `window` is valid for its length.
        let ret = unsafe {
            z::inflateSetDictionary(&mut *self.stream, window.as_ptr(), window.len() as u32)
        };
        self.check(ret)
    }

    /// The output a block starting now may refer back to (at most 32 KiB).
    pub fn dictionary(&mut self) -> io::Result<Vec<u8>> {
        let mut window = vec![0u8; WINDOW];
        let mut len: u32 = 0;
        // SAFETY: `window` holds the 32 KiB zlib may write.
        let ret = unsafe { z::inflateGetDictionary(&*self.stream, window.as_mut_ptr(), &mut len) };
        self.check(ret)?;
        window.truncate(len as usize);
        Ok(window)
    }

    fn run(&mut self, input: &[u8], output: &mut [u8], flush: i32) -> io::Result<Step> {
        let s = &mut *self.stream;
        s.next_in = input.as_ptr();
        s.avail_in = input.len().min(u32::MAX as usize) as u32;
        s.next_out = output.as_mut_ptr();
        s.avail_out = output.len().min(u32::MAX as usize) as u32;
        let (avail_in, avail_out) = (s.avail_in, s.avail_out);
        // SAFETY: the pointers and lengths above are `input`'s and `output`'s.
        let ret = unsafe { z::inflate(s, flush) };
        let s = &mut *self.stream;
        let step = Step {
            consumed: (avail_in - s.avail_in) as usize,
            produced: (avail_out - s.avail_out) as usize,
            block_end: s.data_type & 128 != 0,
            last_block: s.data_type & 64 != 0,
            bits: (s.data_type & 7) as u8,
            stream_end: ret == z::Z_STREAM_END,
        };
        s.next_in = std::ptr::null();
        s.next_out = std::ptr::null_mut();
        match ret {
            z::Z_OK | z::Z_STREAM_END | z::Z_BUF_ERROR => Ok(step),
            z::Z_NEED_DICT => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a preset dictionary is needed",
            )),
            other => {
                self.check(other)?;
                Ok(step)
            }
        }
    }

    /// Inflates until the end of a block, of `input` or of `output`'s room.
    pub fn inflate_block(&mut self, input: &[u8], output: &mut [u8]) -> io::Result<Step> {
        self.run(input, output, z::Z_BLOCK)
    }

    /// Inflates as much as `input` and `output` allow.
    pub fn inflate(&mut self, input: &[u8], output: &mut [u8]) -> io::Result<Step> {
        self.run(input, output, z::Z_NO_FLUSH)
    }
}

impl Drop for Inflater {
    fn drop(&mut self) {
        // SAFETY: an initialised stream, ended once.
        unsafe { z::inflateEnd(&mut *self.stream) };
    }
}

/// The inflated stream of a gzip file from an access point on, through every later
/// member to the end of the file.
pub struct GzipReader {
    file: File,
    inflater: Inflater,
    mode: ZlibMode,
    input: Vec<u8>,
    pos: usize,
    have: usize,
    /// The current member is done (its trailer still to skip when `mode` is raw).
    member_ended: bool,
    done: bool,
    /// File offset of `input[0]` (for messages).
    offset: u64,
}

impl GzipReader {
    /// Reads `path` from byte `input` on: a member's start without `window`, or a
    /// block's start (its first `bits` bits in the byte before) with the output before
    /// it.
    pub(super) fn open(
        path: &Path,
        input: u64,
        bits: u8,
        window: Option<&[u8]>,
    ) -> io::Result<Self> {
        let mut file = File::open(path)?;
        let start = input - u64::from(bits > 0);
        file.seek(SeekFrom::Start(start))?;
        let mode = if window.is_some() {
            ZlibMode::Raw
        } else {
            ZlibMode::Gzip
        };
        let mut inflater = Inflater::new(mode)?;
        if let Some(window) = window {
            let mut byte = [0u8; 1];
            if bits > 0 {
                file.read_exact(&mut byte)?;
            }
            inflater.enter(bits, byte[0], window)?;
        }
        Ok(Self {
            file,
            inflater,
            mode,
            input: vec![0u8; 1 << 18],
            pos: 0,
            have: 0,
            member_ended: false,
            done: false,
            offset: input,
        })
    }

    /// Refills the input buffer when it is used up; `false` at the end of the file.
    fn fill(&mut self) -> io::Result<bool> {
        if self.pos == self.have {
            self.offset += self.have as u64;
            self.have = self.file.read(&mut self.input)?;
            self.pos = 0;
        }
        Ok(self.have > 0)
    }

    /// Skips a raw member's 8-byte trailer, then starts the next member, if any.
    fn next_member(&mut self) -> io::Result<()> {
        if self.mode == ZlibMode::Raw {
            let mut skip = 8;
            while skip > 0 {
                if !self.fill()? {
                    return Err(self.cut_short());
                }
                let n = skip.min(self.have - self.pos);
                self.pos += n;
                skip -= n;
            }
        }
        if !self.fill()? {
            self.done = true;
            return Ok(());
        }
        self.mode = ZlibMode::Gzip;
        self.inflater.reset(ZlibMode::Gzip)?;
        self.member_ended = false;
        Ok(())
    }

    fn cut_short(&self) -> io::Error {
        io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "gzip stream cut short at byte {}",
                self.offset + self.pos as u64
            ),
        )
    }
}

impl Read for GzipReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            if self.done {
                return Ok(0);
            }
            if self.member_ended {
                self.next_member()?;
                continue;
            }
            if !self.fill()? {
                return Err(self.cut_short());
            }
            let at = self.offset + self.pos as u64;
            let step = self
                .inflater
                .inflate(&self.input[self.pos..self.have], out)
                .map_err(|e| io::Error::new(e.kind(), format!("{e} (byte {at})")))?;
            self.pos += step.consumed;
            self.member_ended = step.stream_end;
            if step.produced > 0 {
                return Ok(step.produced);
            }
            if step.consumed == 0 && !step.stream_end && self.pos < self.have {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("inflate stalled at byte {at}"),
                ));
            }
        }
    }
}
