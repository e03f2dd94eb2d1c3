//! The records of a gzip file counted while its index is made: the pass inflates the
//! whole stream anyway, so a second thread counts the records of what it inflates, and
//! a job that would otherwise inflate the file again to count them reads the counts
//! from the index instead.

use std::io::{self, Read};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::thread::JoinHandle;

use crate::reads::{records_in_range, RangeRecords, RecordFormat};

/// Inflated bytes handed to the counting thread at a time.
const CHUNK: usize = 1 << 20;
/// Chunks on their way to the counting thread, at most.
const IN_FLIGHT: usize = 4;

/// Which records to count, and how often to note where one starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordCounting {
    /// The format the records are read in (only how it delimits records matters).
    pub format: RecordFormat,
    /// The offsets of records number 0, `every`, `2 * every`, … are kept.
    pub every: u64,
}

impl RecordCounting {
    /// How the counts are told apart in an index file: the records' delimiting and the
    /// spacing of their anchors.
    pub(super) fn key(&self) -> (u8, u64) {
        (self.format.framing() as u8, self.every)
    }
}

/// The records of a whole inflated stream, as [`records_in_range`] counts them from
/// offset 0 to the end, with what they were counted as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamRecords {
    /// [`RecordCounting::key`] of the counting.
    pub(super) key: (u8, u64),
    pub(super) counted: RangeRecords,
}

/// The inflated stream fed to a counting thread chunk by chunk, inflated straight into
/// the chunk it is sent in.
pub(super) struct RecordCounter {
    /// The chunk being filled ([`CHUNK`] bytes), its first `filled` bytes inflated.
    pending: Vec<u8>,
    filled: usize,
    chunks: Option<SyncSender<Vec<u8>>>,
    spare: Receiver<Vec<u8>>,
    thread: JoinHandle<io::Result<RangeRecords>>,
    key: (u8, u64),
}

impl RecordCounter {
    /// Starts counting as `counting` asks.
    pub(super) fn start(counting: RecordCounting) -> io::Result<Self> {
        let (chunks, received) = mpsc::sync_channel(IN_FLIGHT);
        let (returned, spare) = mpsc::channel();
        let reader = ChunkReader {
            chunks: received,
            returned,
            chunk: Vec::new(),
            at: 0,
        };
        let thread = std::thread::Builder::new()
            .name("gzip-index-count".into())
            .spawn(move || {
                records_in_range(reader, counting.format, 0, u64::MAX, counting.every)
            })?;
        Ok(Self {
            pending: vec![0; CHUNK],
            filled: 0,
            chunks: Some(chunks),
            spare,
            thread,
            key: counting.key(),
        })
    }

    /// Where the stream's next bytes go (then say how many: [`RecordCounter::filled`]).
    pub(super) fn space(&mut self) -> &mut [u8] {
        &mut self.pending[self.filled..]
    }

    /// Counts the next `n` bytes of the stream, put into [`RecordCounter::space`].
    pub(super) fn filled(&mut self, n: usize) {
        self.filled += n;
        if self.filled == CHUNK {
            self.send();
        }
    }

    /// Hands the bytes filled in to the counting thread (nothing once it has stopped).
    fn send(&mut self) {
        let mut next = self.spare.try_recv().unwrap_or_default();
        next.resize(CHUNK, 0);
        let mut chunk = std::mem::replace(&mut self.pending, next);
        chunk.truncate(std::mem::take(&mut self.filled));
        if let Some(chunks) = &self.chunks {
            if chunks.send(chunk).is_err() {
                self.chunks = None;
            }
        }
    }

    /// The records of the whole stream; `None` when they could not be counted (a line
    /// too long to be a record's: the job will say so when it reads the file).
    pub(super) fn finish(mut self) -> Option<StreamRecords> {
        self.send();
        self.chunks = None;
        let counted = self.thread.join().ok()?.ok()?;
        Some(StreamRecords {
            key: self.key,
            counted,
        })
    }
}

/// The counting thread's stream: the chunks as they arrive, each sent back for reuse.
struct ChunkReader {
    chunks: Receiver<Vec<u8>>,
    returned: Sender<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Read for ChunkReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.chunk.len() {
            let Ok(next) = self.chunks.recv() else {
                return Ok(0);
            };
            let used = std::mem::replace(&mut self.chunk, next);
            let _ = self.returned.send(used);
            self.at = 0;
        }
        let n = out.len().min(self.chunk.len() - self.at);
        out[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
