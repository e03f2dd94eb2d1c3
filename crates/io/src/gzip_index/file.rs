//! The index file (`NAME.sfzi`): a header naming the gzip file's size and modification
//! time, the access points' table, the counted records, then the points' windows one
//! after the other. A loaded index holds the table and the records; it reads a point's
//! window from the file (kept open) when a reader starts there.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use super::{fingerprint, invalid, AccessPoint, GzipIndex, StreamRecords, Window, WINDOW};
use crate::output::{Output, Overwrite};
use crate::reads::RangeRecords;

/// The first bytes of an index file (format version 4: the windows after the table and
/// the records; version 3 had each window in its point's entry).
const MAGIC: &[u8; 8] = b"SFZI\x04\0\0\0";

/// A point's window length in the table when the point has none (a member's start).
const NO_WINDOW: u64 = u64::MAX;

impl GzipIndex {
    /// The index of `path` kept at `index_path`: its table and records read, its windows
    /// left in the file, which the index keeps open.
    pub(super) fn load_from(path: &Path, index_path: &Path) -> io::Result<Self> {
        let mut r = BufReader::new(File::open(index_path)?);
        let mut magic = [0u8; 8];
        r.read_exact(&mut magic)?;
        if &magic != MAGIC {
            return Err(invalid(format!(
                "{} is not a seqfarm gzip index",
                index_path.display()
            )));
        }
        let file_len = read_u64(&mut r)?;
        let mut modified = [0u8; 16];
        r.read_exact(&mut modified)?;
        let modified = i128::from_le_bytes(modified);
        if (file_len, modified) != fingerprint(path)? {
            return Err(invalid(format!(
                "{} was made from an older file",
                index_path.display()
            )));
        }
        let length = read_u64(&mut r)?;
        let count = read_u64(&mut r)?;
        let mut points = Vec::with_capacity(count.min(1 << 20) as usize);
        // Each window's offset from the end of the table and records, which the windows
        // follow one after the other.
        let mut windows_len = 0;
        for _ in 0..count {
            let out = read_u64(&mut r)?;
            let input = read_u64(&mut r)?;
            let mut bits = [0u8; 1];
            r.read_exact(&mut bits)?;
            let window = match read_u64(&mut r)? {
                NO_WINDOW => None,
                n if n <= 2 * WINDOW as u64 => {
                    let offset = windows_len;
                    windows_len += n;
                    Some(Window::Stored {
                        offset,
                        len: n as usize,
                    })
                }
                n => return Err(invalid(format!("a window of {n} bytes"))),
            };
            points.push(AccessPoint {
                out,
                input,
                bits: bits[0] & 7,
                window,
            });
        }
        let records = read_records(&mut r)?;
        let windows_at = r.stream_position()?;
        for point in &mut points {
            if let Some(Window::Stored { offset, .. }) = &mut point.window {
                *offset += windows_at;
            }
        }
        let file = r.into_inner();
        if windows_at + windows_len != file.metadata()?.len() {
            return Err(invalid(format!(
                "{} is cut short or damaged",
                index_path.display()
            )));
        }
        Self {
            points,
            length,
            file_len,
            modified,
            records,
            stored: Some(Arc::new(file)),
        }
        .check()
    }

    /// Writes the index, just made, to `index_path` (through a temporary file beside it,
    /// renamed, as every output is).
    pub(super) fn save(&self, index_path: &Path) -> io::Result<()> {
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&self.file_len.to_le_bytes());
        bytes.extend_from_slice(&self.modified.to_le_bytes());
        bytes.extend_from_slice(&self.length.to_le_bytes());
        bytes.extend_from_slice(&(self.points.len() as u64).to_le_bytes());
        let mut windows = Vec::new();
        for p in &self.points {
            bytes.extend_from_slice(&p.out.to_le_bytes());
            bytes.extend_from_slice(&p.input.to_le_bytes());
            bytes.push(p.bits);
            let len = match &p.window {
                None => NO_WINDOW,
                Some(Window::Packed(window)) => {
                    windows.push(window);
                    window.len() as u64
                }
                Some(Window::Stored { .. }) => {
                    return Err(io::Error::other(
                        "an index read from a file is saved as it is",
                    ))
                }
            };
            bytes.extend_from_slice(&len.to_le_bytes());
        }
        write_records(self.records.as_ref(), &mut bytes);
        for window in windows {
            bytes.extend_from_slice(window);
        }
        let write = || -> crate::Result<()> {
            let mut out = Output::create(index_path, Overwrite::Allow)?;
            out.put(&bytes)?;
            out.commit()
        };
        write().map_err(|e| io::Error::other(e.to_string()))
    }
}

/// The `len` bytes at `offset` of the index file `file` (a point's packed window).
pub(super) fn read_window(file: &File, offset: u64, len: usize) -> io::Result<Vec<u8>> {
    let mut window = vec![0u8; len];
    file.read_exact_at(&mut window, offset)?;
    Ok(window)
}

/// Appends the counted records to an index file's bytes: a byte saying whether there are
/// any, then their framing, anchor spacing, number and anchors.
fn write_records(records: Option<&StreamRecords>, bytes: &mut Vec<u8>) {
    let Some(StreamRecords { key, counted }) = records else {
        bytes.push(0);
        return;
    };
    bytes.push(1);
    bytes.push(key.0);
    for n in [key.1, counted.records, counted.anchors.len() as u64] {
        bytes.extend_from_slice(&n.to_le_bytes());
    }
    for anchor in &counted.anchors {
        bytes.extend_from_slice(&anchor.to_le_bytes());
    }
}

/// The counted records [`write_records`] wrote, checked: one anchor per `every` records.
fn read_records(r: &mut impl Read) -> io::Result<Option<StreamRecords>> {
    let mut flags = [0u8; 2];
    r.read_exact(&mut flags[..1])?;
    if flags[0] == 0 {
        return Ok(None);
    }
    r.read_exact(&mut flags[1..])?;
    let (every, records, anchors) = (read_u64(r)?, read_u64(r)?, read_u64(r)?);
    if every == 0 || anchors != records.div_ceil(every) {
        return Err(invalid("damaged record counts in a gzip index"));
    }
    let anchors = (0..anchors)
        .map(|_| read_u64(r))
        .collect::<io::Result<Vec<u64>>>()?;
    Ok(Some(StreamRecords {
        key: (flags[1], every),
        counted: RangeRecords { records, anchors },
    }))
}

fn read_u64(r: &mut impl Read) -> io::Result<u64> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}
