//! Random access into a gzip file (one member, BGZF, or any concatenation of members):
//! access points found in one sequential pass, each where a deflate block or a member
//! begins, with the 32 KiB of output a block may refer back to, so that inflating can
//! start there instead of at the file's first byte. The points are kept in a file beside
//! the input (`NAME.sfzi`) and reused for as long as the input's size and modification
//! time are those it was made from.

#[allow(unsafe_code)]
mod stream;

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

pub use self::stream::GzipReader;
use self::stream::{Inflater, ZlibMode, WINDOW};

/// The first bytes of an index file (format version 1).
const MAGIC: &[u8; 8] = b"SFZI\x01\0\0\0";

/// A place inflating can start from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessPoint {
    /// Offset in the inflated stream.
    pub out: u64,
    /// Offset in the file of the first whole byte to inflate from: a member's gzip
    /// header when `window` is `None`.
    input: u64,
    /// How many high bits of the byte before `input` belong to the block (0 to 7).
    bits: u8,
    /// The output a block starting here may refer back to, deflate-compressed; `None`
    /// at a member's start.
    window: Option<Vec<u8>>,
}

/// The access points of a gzip file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GzipIndex {
    /// Access points in stream order; the first is the file's start.
    pub points: Vec<AccessPoint>,
    /// Length of the inflated stream.
    pub length: u64,
    /// The file's size when the index was made.
    file_len: u64,
    /// The file's modification time (nanoseconds since 1970) when the index was made.
    modified: i128,
}

/// The size and modification time a file's index must match.
fn fingerprint(path: &Path) -> io::Result<(u64, i128)> {
    let meta = std::fs::metadata(path)?;
    let modified = match meta.modified()?.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    };
    Ok((meta.len(), modified))
}

fn invalid(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message.into())
}

impl GzipIndex {
    /// Where the index of `path` is kept: beside it, named `NAME.sfzi`.
    pub fn path_for(path: &Path) -> PathBuf {
        let mut name = path.as_os_str().to_owned();
        name.push(".sfzi");
        PathBuf::from(name)
    }

    /// Inflates `path` once, recording an access point at the first block or member
    /// start after every `span` bytes of output (a member's start rather than a block
    /// within its first 64 KiB, so that BGZF needs no windows).
    pub fn build(path: &Path, span: u64) -> io::Result<Self> {
        let (file_len, modified) = fingerprint(path)?;
        let mut file = File::open(path)?;
        let mut inflater = Inflater::new(ZlibMode::Gzip)?;
        let mut input = vec![0u8; 1 << 20];
        let mut output = vec![0u8; 1 << 18];
        let (mut have, mut pos) = (0usize, 0usize);
        let (mut total_in, mut total_out, mut last) = (0u64, 0u64, 0u64);
        let mut points = vec![AccessPoint {
            out: 0,
            input: 0,
            bits: 0,
            window: None,
        }];
        let mut member_ended = false;
        let mut member_out = 0u64;
        let mut compressor =
            libdeflater::Compressor::new(libdeflater::CompressionLvl::new(6).expect("level 6"));
        loop {
            if pos == have {
                have = file.read(&mut input)?;
                pos = 0;
                if have == 0 {
                    if member_ended || total_in == 0 {
                        break;
                    }
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        format!("gzip stream cut short at byte {total_in}"),
                    ));
                }
            }
            if member_ended {
                if total_out - last >= span {
                    points.push(AccessPoint {
                        out: total_out,
                        input: total_in,
                        bits: 0,
                        window: None,
                    });
                    last = total_out;
                }
                inflater.reset(ZlibMode::Gzip)?;
                member_ended = false;
                member_out = total_out;
            }
            let step = inflater
                .inflate_block(&input[pos..have], &mut output)
                .map_err(|e| invalid(format!("{e} (byte {total_in})")))?;
            if step.consumed == 0 && step.produced == 0 && !step.stream_end && pos < have {
                return Err(invalid(format!("inflate stalled at byte {total_in}")));
            }
            pos += step.consumed;
            total_in += step.consumed as u64;
            total_out += step.produced as u64;
            if step.stream_end {
                member_ended = true;
            } else if step.block_end
                && !step.last_block
                && total_out - last >= span
                && total_out - member_out > 2 * WINDOW as u64
            {
                let window = inflater.dictionary()?;
                let mut packed = vec![0u8; compressor.deflate_compress_bound(window.len())];
                let n = compressor
                    .deflate_compress(&window, &mut packed)
                    .map_err(|e| invalid(format!("cannot pack a window: {e:?}")))?;
                packed.truncate(n);
                points.push(AccessPoint {
                    out: total_out,
                    input: total_in,
                    bits: step.bits,
                    window: Some(packed),
                });
                last = total_out;
            }
        }
        Ok(Self {
            points,
            length: total_out,
            file_len,
            modified,
        })
    }

    /// The index kept beside `path` if it was made from the file as it is now, or one
    /// made now (points every `span` bytes of output) and kept beside it for the next
    /// reader. `Err` when `path` cannot be inflated or the index cannot be written.
    pub fn open_or_build(path: &Path, span: u64) -> io::Result<Self> {
        let index_path = Self::path_for(path);
        if let Ok(index) = Self::load(path) {
            return Ok(index);
        }
        let index = Self::build(path, span)?;
        index.save(&index_path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot write its index {}: {e}", index_path.display()),
            )
        })?;
        Ok(index)
    }

    /// The index kept beside `path`; `Err` when there is none, it is damaged, or `path`
    /// changed since it was made.
    pub fn load(path: &Path) -> io::Result<Self> {
        let index_path = Self::path_for(path);
        let mut r = BufReader::new(File::open(&index_path)?);
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic)?;
        if &magic != MAGIC {
            return Err(invalid(format!(
                "{} is not a seqfarm gzip index",
                index_path.display()
            )));
        }
        let file_len = read_u64(&mut r)?;
        let modified = read_u64(&mut r)? as i64 as i128 * 1_000_000_000 + read_u64(&mut r)? as i128;
        if (file_len, modified) != fingerprint(path)? {
            return Err(invalid(format!(
                "{} was made from an older file",
                index_path.display()
            )));
        }
        let length = read_u64(&mut r)?;
        let count = read_u64(&mut r)?;
        let mut points = Vec::with_capacity(count.min(1 << 20) as usize);
        for _ in 0..count {
            let out = read_u64(&mut r)?;
            let input = read_u64(&mut r)?;
            let mut b = [0u8; 1];
            r.read_exact(&mut b)?;
            let window_len = read_u64(&mut r)?;
            let window = match window_len {
                u64::MAX => None,
                n if n <= 2 * WINDOW as u64 => {
                    let mut w = vec![0u8; n as usize];
                    r.read_exact(&mut w)?;
                    Some(w)
                }
                n => return Err(invalid(format!("a window of {n} bytes"))),
            };
            points.push(AccessPoint {
                out,
                input,
                bits: b[0] & 7,
                window,
            });
        }
        Ok(Self {
            points,
            length,
            file_len,
            modified,
        })
    }

    /// Writes the index to `index_path` (through a temporary file beside it, renamed).
    fn save(&self, index_path: &Path) -> io::Result<()> {
        let dir = index_path.parent().filter(|d| !d.as_os_str().is_empty());
        let mut tmp = tempfile::Builder::new()
            .prefix(".sfzi-")
            .tempfile_in(dir.unwrap_or(Path::new(".")))?;
        {
            let mut w = io::BufWriter::new(tmp.as_file_mut());
            w.write_all(MAGIC)?;
            w.write_all(&self.file_len.to_le_bytes())?;
            let seconds = self.modified.div_euclid(1_000_000_000) as i64;
            let nanos = self.modified.rem_euclid(1_000_000_000) as u64;
            w.write_all(&(seconds as u64).to_le_bytes())?;
            w.write_all(&nanos.to_le_bytes())?;
            w.write_all(&self.length.to_le_bytes())?;
            w.write_all(&(self.points.len() as u64).to_le_bytes())?;
            for p in &self.points {
                w.write_all(&p.out.to_le_bytes())?;
                w.write_all(&p.input.to_le_bytes())?;
                w.write_all(&[p.bits])?;
                match &p.window {
                    None => w.write_all(&u64::MAX.to_le_bytes())?,
                    Some(window) => {
                        w.write_all(&(window.len() as u64).to_le_bytes())?;
                        w.write_all(window)?;
                    }
                }
            }
            w.flush()?;
        }
        tmp.as_file().sync_data()?;
        tmp.persist(index_path).map_err(|e| e.error)?;
        Ok(())
    }

    /// The inflated stream of `path` (the file this index was made from) from access
    /// point `point` on.
    pub fn reader_at(&self, path: &Path, point: usize) -> io::Result<GzipReader> {
        let p = self
            .points
            .get(point)
            .ok_or_else(|| invalid(format!("no access point {point}")))?;
        let window = match &p.window {
            None => None,
            Some(packed) => {
                let mut window = vec![0u8; WINDOW];
                let n = libdeflater::Decompressor::new()
                    .deflate_decompress(packed, &mut window)
                    .map_err(|e| invalid(format!("a damaged window in the index: {e:?}")))?;
                window.truncate(n);
                Some(window)
            }
        };
        GzipReader::open(path, p.input, p.bits, window.as_deref())
    }
}

fn read_u64(r: &mut impl Read) -> io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

#[cfg(test)]
mod tests;
