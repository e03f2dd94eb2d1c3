//! Random access into a gzip file (one member, BGZF, or any concatenation of members):
//! access points found in one sequential pass, each where a deflate block or a member
//! begins, with the 32 KiB of output a block may refer back to, so that inflating can
//! start there instead of at the file's first byte. The points are kept in a file beside
//! the input (`NAME.sfzi`) and reused for as long as the input's size and modification
//! time are those it was made from. The pass that makes the points of a gzip member can
//! also count the file's records ([`RecordCounting`]), kept in the index beside them.

mod counting;
mod file;
#[allow(unsafe_code)]
mod stream;

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use crate::reads::RangeRecords;

use self::counting::RecordCounter;
pub use self::counting::{RecordCounting, StreamRecords};
pub use self::stream::GzipReader;
use self::stream::{Inflater, ZlibMode, WINDOW};

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
    window: Option<Window>,
}

/// Where an access point's window (deflate-compressed) lies.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Window {
    /// In memory, in an index just made.
    Packed(Vec<u8>),
    /// In the index file an index was loaded from, read when a reader starts at its
    /// point: a process that enters a file at a few points reads a few windows, not
    /// every one (a large file's index holds thousands).
    Stored { offset: u64, len: usize },
}

/// The access points of a gzip file.
#[derive(Debug, Clone)]
pub struct GzipIndex {
    /// Access points in stream order; the first is the file's start.
    pub points: Vec<AccessPoint>,
    /// Length of the inflated stream.
    pub length: u64,
    /// The file's size when the index was made.
    file_len: u64,
    /// The file's modification time (nanoseconds since 1970) when the index was made.
    modified: i128,
    /// The file's records, when the pass that made the index counted them.
    records: Option<StreamRecords>,
    /// The index file the index was loaded from, open, holding its points' windows
    /// ([`Window::Stored`]); `None` in an index just made.
    stored: Option<Arc<File>>,
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

    /// Where the index of `path` is kept when its directory cannot be written:
    /// `$XDG_CACHE_HOME/seqfarm/gzip-index/` (`~/.cache/...` by default), named after
    /// the file's absolute path.
    pub fn cache_path_for(path: &Path) -> Option<PathBuf> {
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Self::cache_path_in(&cache, path)
    }

    /// [`GzipIndex::cache_path_for`] under the cache directory `cache`.
    fn cache_path_in(cache: &Path, path: &Path) -> Option<PathBuf> {
        let absolute = std::path::absolute(path).ok()?;
        // FNV-1a of the absolute path: one name per file.
        let hash = absolute
            .as_os_str()
            .as_encoded_bytes()
            .iter()
            .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
        let name = absolute.file_name()?.to_string_lossy();
        Some(
            cache
                .join("seqfarm/gzip-index")
                .join(format!("{name}.{hash:016x}.sfzi")),
        )
    }

    /// The places the index of `path` is looked for, in order (the cache directory's
    /// from the environment unless `cache` is given).
    fn index_paths(path: &Path, cache: Option<&Path>) -> Vec<PathBuf> {
        let cached = match cache {
            Some(cache) => Self::cache_path_in(cache, path),
            None => Self::cache_path_for(path),
        };
        std::iter::once(Self::path_for(path))
            .chain(cached)
            .collect()
    }

    /// The access points of `path`, one at the first block or member start after every
    /// `span` bytes of output (a member's start rather than a block within its first 64
    /// KiB): for BGZF from its blocks' headers alone, otherwise by inflating it once,
    /// which then counts its records too as `counting` asks (on a second thread).
    pub fn build(path: &Path, span: u64, counting: Option<RecordCounting>) -> io::Result<Self> {
        let (file_len, modified) = fingerprint(path)?;
        let mut file = File::open(path)?;
        if let Some((points, length)) = bgzf_points(&file, span)? {
            return Ok(Self {
                points,
                length,
                file_len,
                modified,
                records: None,
                stored: None,
            });
        }
        let mut counter = counting.map(RecordCounter::start).transpose()?;
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
            // Inflated straight into the counter's chunk when counting.
            let into = match &mut counter {
                Some(counter) => counter.space(),
                None => &mut output[..],
            };
            let step = inflater
                .inflate_block(&input[pos..have], into)
                .map_err(|e| invalid(format!("{e} (byte {total_in})")))?;
            if step.consumed == 0 && step.produced == 0 && !step.stream_end && pos < have {
                return Err(invalid(format!("inflate stalled at byte {total_in}")));
            }
            pos += step.consumed;
            total_in += step.consumed as u64;
            total_out += step.produced as u64;
            if let Some(counter) = &mut counter {
                counter.filled(step.produced);
            }
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
                    window: Some(Window::Packed(packed)),
                });
                last = total_out;
            }
        }
        Ok(Self {
            points,
            length: total_out,
            file_len,
            modified,
            records: counter.and_then(RecordCounter::finish),
            stored: None,
        })
    }

    /// The file's records as `counting` counts them (from its start to its end), when
    /// the pass that made the index counted them so.
    pub fn records(&self, counting: &RecordCounting) -> Option<&RangeRecords> {
        self.records
            .as_ref()
            .filter(|r| r.key == counting.key())
            .map(|r| &r.counted)
    }

    /// The index kept beside `path` (or in the cache directory, see
    /// [`GzipIndex::cache_path_for`]) if it was made from the file as it is now, or one
    /// made now (points every `span` bytes of output) and kept there for the next
    /// reader, with the records `counting` asks for when it is made. `Err` when `path`
    /// cannot be inflated or the index written in either place.
    pub fn open_or_build(
        path: &Path,
        span: u64,
        counting: Option<RecordCounting>,
    ) -> io::Result<Self> {
        Self::open_or_build_in(path, span, counting, None)
    }

    /// [`GzipIndex::open_or_build`] with the cache directory `cache` when given.
    fn open_or_build_in(
        path: &Path,
        span: u64,
        counting: Option<RecordCounting>,
        cache: Option<&Path>,
    ) -> io::Result<Self> {
        if let Ok(index) = Self::load_in(path, cache) {
            return Ok(index);
        }
        let index = Self::build(path, span, counting)?;
        let mut failures = Vec::new();
        for index_path in Self::index_paths(path, cache) {
            if let Some(dir) = index_path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            match index.save(&index_path) {
                Ok(()) => return Ok(index),
                Err(e) => failures.push(format!("{}: {e}", index_path.display())),
            }
        }
        Err(io::Error::other(format!(
            "cannot write its index ({})",
            failures.join("; ")
        )))
    }

    /// The index of `path` kept beside it or in the cache directory; `Err` when there is
    /// none, it is damaged, or `path` changed since it was made.
    pub fn load(path: &Path) -> io::Result<Self> {
        Self::load_in(path, None)
    }

    /// [`GzipIndex::load`] with the cache directory `cache` when given.
    fn load_in(path: &Path, cache: Option<&Path>) -> io::Result<Self> {
        let mut last = None;
        for index_path in Self::index_paths(path, cache) {
            match Self::load_from(path, &index_path) {
                Ok(index) => return Ok(index),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| io::Error::from(io::ErrorKind::NotFound)))
    }

    /// Whether `path` is still the file this index was made from (same size and
    /// modification time).
    pub fn is_current(&self, path: &Path) -> bool {
        fingerprint(path).is_ok_and(|f| f == (self.file_len, self.modified))
    }

    /// Fails unless the points can be read from: the first at the file's start, then
    /// ascending, a window wherever a point is within a member.
    fn check(self) -> io::Result<Self> {
        let first = self.points.first();
        let ordered = self
            .points
            .windows(2)
            .all(|w| w[0].out < w[1].out && w[0].input < w[1].input);
        let entered = self
            .points
            .iter()
            .all(|p| p.window.is_some() || p.bits == 0);
        if first.is_some_and(|p| p.out == 0 && p.input == 0) && ordered && entered {
            Ok(self)
        } else {
            Err(invalid("a damaged gzip index"))
        }
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
            Some(Window::Packed(packed)) => Some(unpack_window(packed)?),
            Some(Window::Stored { offset, len }) => {
                let file = self
                    .stored
                    .as_ref()
                    .ok_or_else(|| invalid("no index file"))?;
                Some(unpack_window(&file::read_window(file, *offset, *len)?)?)
            }
        };
        GzipReader::open(path, p.input, p.bits, window.as_deref())
    }
}

/// The 32 KiB (at most) of output a point's `packed` window holds.
fn unpack_window(packed: &[u8]) -> io::Result<Vec<u8>> {
    let mut window = vec![0u8; WINDOW];
    let n = libdeflater::Decompressor::new()
        .deflate_decompress(packed, &mut window)
        .map_err(|e| invalid(format!("a damaged window in the index: {e:?}")))?;
    window.truncate(n);
    Ok(window)
}

/// The access points of a BGZF file, found from its blocks' headers and footers alone
/// (nothing inflated) with the inflated length; `None` when `file` is not BGZF
/// throughout.
fn bgzf_points(file: &File, span: u64) -> io::Result<Option<(Vec<AccessPoint>, u64)>> {
    // SAFETY: read-only, and only through `block_at`, which checks every length.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(file)? };
    let (mut out, mut last) = (0u64, 0u64);
    let mut points = Vec::new();
    for block in crate::bgzf::BlockScanner::new(&map, 0, map.len() as u64) {
        let Ok(block) = block else {
            return Ok(None);
        };
        if block.offset == 0 || out - last >= span {
            points.push(AccessPoint {
                out,
                input: block.offset,
                bits: 0,
                window: None,
            });
            last = out;
        }
        out += block.inflated_size as u64;
    }
    Ok((!points.is_empty()).then_some((points, out)))
}

#[cfg(test)]
mod tests;
