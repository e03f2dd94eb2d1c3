//! Decompressing a gzip input on a thread of its own.
//!
//! A gzip stream can only be inflated from its start, one byte after the other: it is
//! the one part of reading that no number of workers can share. Inflating it on the
//! thread that also cuts the input into tasks (the farm's emitter) would add its whole
//! cost to that one sequential stage, and a gzipped protein database or FASTQ file then
//! limits how many workers one emitter can feed. [`InflateThread`] moves the inflating
//! to a thread of its own, a block ahead of the reader: the emitter only scans and
//! copies decompressed bytes, and the two run side by side.
//!
//! Blocks travel in a bounded channel and come back through a second one for reuse, so
//! the memory is `BLOCK × (DEPTH + 2)` whatever the input. An error is handed to the
//! reader in order, after the bytes before it. When the reader is dropped, the thread
//! stops at its next block.

use std::io::{self, BufRead, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use seqfarm_farm::threads::hand_over;

/// Decompressed bytes per block.
const BLOCK: usize = 1 << 20;
/// Blocks inflated ahead of the reader, at most.
const DEPTH: usize = 4;

/// What the inflating thread sends: a block of bytes, or the error that ended it.
enum Piece {
    Bytes(Vec<u8>),
    Failed(io::Error),
}

/// A reader of the bytes another thread decompresses (see the module docs).
pub struct InflateThread {
    pieces: Receiver<Piece>,
    spares: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    done: bool,
}

impl InflateThread {
    /// Starts a thread reading `decoder` (a gzip decoder over the raw input) into
    /// blocks; the returned reader yields the same bytes in the same order. When no
    /// thread can be started (a process or address-space limit), gives `decoder` back,
    /// to be read on the caller's thread.
    pub fn spawn<D: Read + Send + 'static>(decoder: D) -> Result<Self, D> {
        let (piece_tx, pieces) = sync_channel::<Piece>(DEPTH);
        let (spares, spare_rx) = sync_channel::<Vec<u8>>(DEPTH + 2);
        let start = |taken: Receiver<D>| {
            std::thread::Builder::new()
                .name("seqfarm-inflate".into())
                .spawn(move || {
                    if let Ok(mut decoder) = taken.recv() {
                        inflate(&mut decoder, &piece_tx, &spare_rx);
                    }
                })
        };
        hand_over(decoder, start)?;
        Ok(Self {
            pieces,
            spares,
            current: Vec::new(),
            pos: 0,
            done: false,
        })
    }
}

/// The inflating thread: sends `decoder`'s bytes in blocks (reusing the reader's spares)
/// until the input or the reader ends, or an error, sent after the bytes before it.
fn inflate(decoder: &mut impl Read, pieces: &SyncSender<Piece>, spares: &Receiver<Vec<u8>>) {
    loop {
        let mut block = spares.try_recv().unwrap_or_default();
        block.clear();
        block.reserve(BLOCK);
        let outcome = fill(decoder, &mut block);
        if !block.is_empty() && pieces.send(Piece::Bytes(block)).is_err() {
            return;
        }
        match outcome {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => {
                let _ = pieces.send(Piece::Failed(e));
                return;
            }
        }
    }
}

/// Reads from `decoder` until `block` holds [`BLOCK`] bytes (`Ok(true)`: there may be
/// more) or the input ends (`Ok(false)`). On an error, `block` keeps the bytes read
/// before it.
fn fill(decoder: &mut impl Read, block: &mut Vec<u8>) -> io::Result<bool> {
    while block.len() < BLOCK {
        match decoder
            .by_ref()
            .take((BLOCK - block.len()) as u64)
            .read_to_end(block)
        {
            Ok(0) => return Ok(false),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

impl BufRead for InflateThread {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pos >= self.current.len() && !self.done {
            match self.pieces.recv() {
                Ok(Piece::Bytes(block)) => {
                    let used = std::mem::replace(&mut self.current, block);
                    // The thread may have ended or have spares enough: a lost spare is
                    // only an allocation later.
                    let _ = self.spares.try_send(used);
                    self.pos = 0;
                }
                Ok(Piece::Failed(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => self.done = true,
            }
        }
        Ok(&self.current[self.pos.min(self.current.len())..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.current.len());
    }
}

impl Read for InflateThread {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    fn inflate_all(compressed: Vec<u8>) -> io::Result<Vec<u8>> {
        let decoder = flate2::read::MultiGzDecoder::new(io::Cursor::new(compressed));
        let Ok(mut reader) = InflateThread::spawn(decoder) else {
            panic!("no thread for the test");
        };
        let mut out = Vec::new();
        reader.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn yields_the_same_bytes_across_many_blocks() {
        let text: Vec<u8> = (0..3 * BLOCK + 12345)
            .map(|i| b"ACGT\n"[i % 5] ^ (i / 7919) as u8 & 1)
            .collect();
        assert_eq!(inflate_all(gzip(&text)).unwrap(), text);
        assert_eq!(inflate_all(gzip(b"")).unwrap(), b"");
    }

    #[test]
    fn an_error_comes_after_the_bytes_before_it() {
        let text = vec![b'A'; 2 * BLOCK + 10];
        let mut damaged = gzip(&text);
        let n = damaged.len();
        damaged.truncate(n - 8);
        let decoder = flate2::read::MultiGzDecoder::new(io::Cursor::new(damaged));
        let Ok(mut reader) = InflateThread::spawn(decoder) else {
            panic!("no thread for the test");
        };
        let mut out = Vec::new();
        let error = reader.read_to_end(&mut out).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
        assert!(out.len() >= 2 * BLOCK, "{}", out.len());
        assert!(out.iter().all(|&b| b == b'A'));
    }

    #[test]
    fn dropping_the_reader_early_is_fine() {
        let text = vec![b'C'; 8 * BLOCK];
        let decoder = flate2::read::MultiGzDecoder::new(io::Cursor::new(gzip(&text)));
        let Ok(mut reader) = InflateThread::spawn(decoder) else {
            panic!("no thread for the test");
        };
        let mut first = [0u8; 10];
        reader.read_exact(&mut first).unwrap();
        drop(reader);
    }
}
