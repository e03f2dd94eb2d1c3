//! BGZF compressed on a pool of threads, written in order.
//!
//! Compressing is most of the cost of writing BGZF, and a writer that compresses on the
//! calling thread adds all of it to that thread: a farm's collector, the one sequential
//! stage, then limits how many workers it can feed. [`ParallelBgzfWriter`] only cuts the
//! stream into blocks on the calling thread; full blocks go, numbered, through a bounded
//! channel to a pool of compressing threads and come back compressed; the writer puts
//! them on the inner writer strictly in their order. Blocks are cut at the same input
//! sizes and compressed by the same [`BgzfCompressor`] as [`BgzfWriter`]'s, so the
//! output is byte for byte [`BgzfWriter`]'s whatever the number of threads.
//!
//! A line's virtual offsets are not known when it is written, only once the blocks before
//! it are compressed: [`ParallelBgzfWriter::stream_offset`] gives its offset in the
//! uncompressed stream, and [`BlockStarts::virtual_position`] turns that into its virtual
//! offset as soon as the blocks before it are written (for a CSI index built as the file
//! is written).
//!
//! At most `2 × threads + 2` blocks are in flight (sent and not yet written): `write`
//! hands out a full block, writes the compressed blocks that are ready, and waits for
//! one only when that many are out. Input and output buffers are reused. Dropping the
//! writer without [`ParallelBgzfWriter::finish`] stops and joins the threads.
//!
//! [`BgzfWriter`]: super::BgzfWriter

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Receiver, Sender};

use super::{BgzfCompressor, BLOCK_INPUT, EOF_MARKER};

/// A block to compress: its number in the stream, its input, and a buffer for its
/// output.
struct Job {
    seq: u64,
    input: Vec<u8>,
    output: Vec<u8>,
}

/// A compressed block: its number, the input buffer (for reuse), and the complete BGZF
/// block, or `None` when compressing it failed (a panic in the compressor).
struct Compressed {
    seq: u64,
    input: Vec<u8>,
    block: Option<Vec<u8>>,
}

/// The compressing threads and their two channels; dropping it closes the job channel
/// and joins the threads.
struct CompressorPool {
    jobs: Option<Sender<Job>>,
    done: Receiver<Compressed>,
    threads: Vec<JoinHandle<()>>,
}

impl CompressorPool {
    /// Starts `threads` (at least one) threads compressing at libdeflate `level`; both
    /// channels hold `capacity` blocks, the most the writer keeps in flight, so neither
    /// side ever waits to send.
    fn spawn(threads: usize, level: i32, capacity: usize) -> io::Result<Self> {
        let (jobs, job_rx) = bounded::<Job>(capacity);
        let (done_tx, done) = bounded::<Compressed>(capacity);
        let mut pool = Self {
            jobs: Some(jobs),
            done,
            threads: Vec::with_capacity(threads),
        };
        for _ in 0..threads.max(1) {
            let job_rx = job_rx.clone();
            let done_tx = done_tx.clone();
            let started = std::thread::Builder::new()
                .name("seqfarm-bgzf".into())
                .spawn(move || compress_jobs(level, &job_rx, &done_tx));
            match started {
                Ok(thread) => pool.threads.push(thread),
                // Under a process or address-space limit: fewer threads, the same bytes.
                Err(_) if !pool.threads.is_empty() => break,
                Err(e) => {
                    let message = format!("cannot start a thread to compress: {e}");
                    return Err(io::Error::new(e.kind(), message));
                }
            }
        }
        Ok(pool)
    }
}

impl Drop for CompressorPool {
    fn drop(&mut self) {
        self.jobs = None;
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// A compressing thread: compresses jobs until the job channel closes or the writer is
/// gone.
fn compress_jobs(level: i32, jobs: &Receiver<Job>, done: &Sender<Compressed>) {
    let mut compressor = BgzfCompressor::new(level);
    for Job {
        seq,
        input,
        mut output,
    } in jobs
    {
        output.clear();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            compressor.compress(&input, &mut output);
        }));
        let failed = outcome.is_err();
        let block = (!failed).then_some(output);
        if done.send(Compressed { seq, input, block }).is_err() || failed {
            return;
        }
    }
}

/// Where the blocks written so far start in the compressed file, and where the next one
/// will start.
#[derive(Debug)]
pub struct BlockStarts(Vec<u64>);

impl BlockStarts {
    /// The BGZF virtual offset of the byte at `stream_offset` in the uncompressed stream,
    /// once every block before its own is written (`None` until then); the end of the
    /// stream resolves after [`ParallelBgzfWriter::finish_with_block_starts`]. The same
    /// offsets as [`BgzfWriter::virtual_position`](super::BgzfWriter::virtual_position)
    /// gives, as the blocks are cut at the same sizes.
    pub fn virtual_position(&self, stream_offset: u64) -> Option<u64> {
        let block = BLOCK_INPUT as u64;
        let start = self.0.get((stream_offset / block) as usize)?;
        Some((start << 16) | (stream_offset % block))
    }
}

/// Compresses everything written to it into BGZF blocks on `inner`, on a pool of
/// threads, with output identical to [`BgzfWriter`](super::BgzfWriter)'s (see the module
/// docs). Call [`ParallelBgzfWriter::finish`] to write the last block and the EOF marker.
pub struct ParallelBgzfWriter<W: Write> {
    inner: W,
    pending: Vec<u8>,
    pool: CompressorPool,
    /// Number of the next block to send.
    sent: u64,
    /// Compressed offsets of the blocks written to `inner` and of the next one (so one
    /// more than the blocks written).
    block_starts: BlockStarts,
    /// Compressed blocks that came back before an earlier one.
    ready: BTreeMap<u64, Vec<u8>>,
    /// Input and output buffers to reuse.
    spare_inputs: Vec<Vec<u8>>,
    spare_outputs: Vec<Vec<u8>>,
    /// Blocks in flight, at most.
    max_in_flight: usize,
    /// Set once a block is lost (the inner writer failed): every later call fails.
    broken: bool,
}

impl<W: Write> ParallelBgzfWriter<W> {
    /// A writer compressing at libdeflate `level` (0–12; 6 is zlib's default) on
    /// `threads` threads (at least one).
    pub fn new(inner: W, level: i32, threads: usize) -> io::Result<Self> {
        let threads = threads.max(1);
        let max_in_flight = 2 * threads + 2;
        Ok(Self {
            inner,
            pending: Vec::with_capacity(BLOCK_INPUT),
            pool: CompressorPool::spawn(threads, level, max_in_flight)?,
            sent: 0,
            block_starts: BlockStarts(vec![0]),
            ready: BTreeMap::new(),
            spare_inputs: Vec::new(),
            spare_outputs: Vec::new(),
            max_in_flight,
            broken: false,
        })
    }

    /// Sends the buffered data as a last block, writes every block and then the EOF
    /// marker; stops the threads and returns the inner writer (not flushed).
    pub fn finish(self) -> io::Result<W> {
        self.finish_with_block_starts().map(|(inner, _)| inner)
    }

    /// [`finish`](Self::finish), returning too where every block starts, which resolves
    /// the virtual offset of any byte of the stream.
    pub fn finish_with_block_starts(mut self) -> io::Result<(W, BlockStarts)> {
        self.check()?;
        if !self.pending.is_empty() {
            self.send_block()?;
        }
        self.write_all_blocks()?;
        self.inner.write_all(&EOF_MARKER)?;
        Ok((self.inner, self.block_starts))
    }

    /// Bytes written to the writer so far: the offset of the next one in the
    /// uncompressed stream.
    pub fn stream_offset(&self) -> u64 {
        self.sent * BLOCK_INPUT as u64 + self.pending.len() as u64
    }

    /// Where the blocks written so far start.
    pub fn block_starts(&self) -> &BlockStarts {
        &self.block_starts
    }

    /// Fails if an earlier call lost a block.
    fn check(&self) -> io::Result<()> {
        if self.broken {
            return Err(io::Error::other(
                "an earlier BGZF block could not be written",
            ));
        }
        Ok(())
    }

    /// Hands `pending` to the compressors as the next block (first waiting for one block
    /// if too many are in flight), then writes the blocks that are ready.
    fn send_block(&mut self) -> io::Result<()> {
        while self.in_flight() >= self.max_in_flight {
            self.receive(true)?;
        }
        let next = self.spare_inputs.pop().unwrap_or_default();
        let input = std::mem::replace(&mut self.pending, next);
        self.pending.clear();
        self.pending.reserve(BLOCK_INPUT);
        let job = Job {
            seq: self.sent,
            input,
            output: self.spare_outputs.pop().unwrap_or_default(),
        };
        let sent = match &self.pool.jobs {
            Some(jobs) => jobs.send(job).is_ok(),
            None => false,
        };
        if !sent {
            self.broken = true;
            return Err(stopped());
        }
        self.sent += 1;
        while self.receive(false)? {}
        Ok(())
    }

    /// Waits for and writes every block in flight.
    fn write_all_blocks(&mut self) -> io::Result<()> {
        while self.in_flight() > 0 {
            self.receive(true)?;
        }
        Ok(())
    }

    /// Blocks sent and not yet written.
    fn in_flight(&self) -> usize {
        (self.sent - self.written()) as usize
    }

    /// Number of the next block to write to `inner`.
    fn written(&self) -> u64 {
        self.block_starts.0.len() as u64 - 1
    }

    /// Takes one compressed block from the pool (waiting for it when `wait`) and writes
    /// every block that is now next in order; `Ok(false)` when none was there.
    fn receive(&mut self, wait: bool) -> io::Result<bool> {
        let compressed = if wait {
            self.pool.done.recv().ok()
        } else {
            match self.pool.done.try_recv() {
                Ok(compressed) => Some(compressed),
                Err(crossbeam_channel::TryRecvError::Empty) => return Ok(false),
                Err(crossbeam_channel::TryRecvError::Disconnected) => None,
            }
        };
        let Some(Compressed { seq, input, block }) = compressed else {
            self.broken = true;
            return Err(stopped());
        };
        self.spare_inputs.push(input);
        let Some(block) = block else {
            self.broken = true;
            return Err(io::Error::other("compressing a BGZF block failed"));
        };
        self.ready.insert(seq, block);
        while let Some(block) = self.ready.remove(&self.written()) {
            if let Err(e) = self.inner.write_all(&block) {
                self.broken = true;
                return Err(e);
            }
            let end = self.block_starts.0.last().copied().unwrap_or(0) + block.len() as u64;
            self.block_starts.0.push(end);
            self.spare_outputs.push(block);
        }
        Ok(true)
    }
}

/// The error when the compressing threads are gone.
fn stopped() -> io::Error {
    io::Error::other("the BGZF compressing threads stopped")
}

impl<W: Write> Write for ParallelBgzfWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check()?;
        let take = buf.len().min(BLOCK_INPUT - self.pending.len());
        self.pending.extend_from_slice(&buf[..take]);
        if self.pending.len() == BLOCK_INPUT {
            self.send_block()?;
        }
        Ok(take)
    }

    /// Writes every complete block sent so far and flushes the inner writer; data short
    /// of a block stays buffered (a flush must not cut blocks small).
    fn flush(&mut self) -> io::Result<()> {
        self.check()?;
        self.write_all_blocks()?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::super::BgzfWriter;
    use super::*;

    /// Text that compresses, of `len` bytes.
    fn text(len: usize) -> Vec<u8> {
        (0u32..)
            .flat_map(|i| format!("20,{i},A,C,{},0,{},0\n", i % 17, i % 5).into_bytes())
            .take(len)
            .collect()
    }

    /// What `BgzfWriter` writes for `data` given in pieces of `piece` bytes.
    fn sequential(data: &[u8], piece: usize, level: i32) -> Vec<u8> {
        let mut w = BgzfWriter::new(Vec::new(), level);
        for part in data.chunks(piece.max(1)) {
            w.write_all(part).unwrap();
        }
        w.finish().unwrap()
    }

    /// What `ParallelBgzfWriter` on `threads` threads writes for the same.
    fn parallel(data: &[u8], piece: usize, level: i32, threads: usize) -> Vec<u8> {
        let mut w = ParallelBgzfWriter::new(Vec::new(), level, threads).unwrap();
        for part in data.chunks(piece.max(1)) {
            w.write_all(part).unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn stream_offsets_resolve_to_bgzf_writers_virtual_positions() {
        let data = text(9 * BLOCK_INPUT + 4_321);
        for (piece, threads) in [(7_777, 1), (65_280, 2), (100_003, 3)] {
            let mut serial = BgzfWriter::new(Vec::new(), 6);
            let mut w = ParallelBgzfWriter::new(Vec::new(), 6, threads).unwrap();
            let mut points = vec![(0, 0)];
            for part in data.chunks(piece) {
                serial.write_all(part).unwrap();
                w.write_all(part).unwrap();
                points.push((w.stream_offset(), serial.virtual_position()));
                for &(offset, expected) in &points {
                    if let Some(position) = w.block_starts().virtual_position(offset) {
                        assert_eq!(position, expected, "offset {offset} before the end");
                    }
                }
            }
            let (_, starts) = w.finish_with_block_starts().unwrap();
            for (offset, expected) in points {
                assert_eq!(starts.virtual_position(offset), Some(expected), "{offset}");
            }
        }
    }

    #[test]
    fn output_is_bgzf_writers_at_any_thread_count() {
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("empty", Vec::new()),
            ("one byte", b"x".to_vec()),
            ("one block", text(BLOCK_INPUT)),
            ("one block and a byte", text(BLOCK_INPUT + 1)),
            ("many blocks", text(40 * BLOCK_INPUT + 12_345)),
        ];
        for (name, data) in &cases {
            for piece in [1 << 20, 7_777, 65_281, 3] {
                if piece == 3 && data.len() > 4 * BLOCK_INPUT {
                    continue;
                }
                let expected = sequential(data, piece, 6);
                for threads in [1, 2, 4] {
                    assert!(
                        parallel(data, piece, 6, threads) == expected,
                        "{name}, pieces of {piece}, {threads} threads"
                    );
                }
            }
        }
    }

    #[test]
    fn incompressible_blocks_and_other_levels_match() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let noise: Vec<u8> = (0..5 * BLOCK_INPUT + 99)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        for level in [0, 1, 12] {
            assert_eq!(
                parallel(&noise, 10_000, level, 3),
                sequential(&noise, 10_000, level)
            );
        }
    }

    #[test]
    fn flush_writes_the_blocks_sent() {
        let data = text(3 * BLOCK_INPUT + 10);
        let mut w = ParallelBgzfWriter::new(Vec::new(), 6, 2).unwrap();
        w.write_all(&data).unwrap();
        w.flush().unwrap();
        let sequential = sequential(&data, data.len(), 6);
        // Everything but the last partial block and the EOF marker.
        let mut one = BgzfWriter::new(Vec::new(), 6);
        one.write_all(&data[3 * BLOCK_INPUT..]).unwrap();
        let tail = one.finish().unwrap().len();
        assert_eq!(w.inner, sequential[..sequential.len() - tail]);
    }

    /// A writer that fails after `left` bytes.
    struct Failing {
        left: usize,
    }

    impl Write for Failing {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::other("disk full"));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failing_inner_writer_is_an_error_not_a_hang() {
        for threads in [1, 2, 4] {
            for left in [0, 100, 50_000] {
                let data = text(60 * BLOCK_INPUT);
                let mut w = ParallelBgzfWriter::new(Failing { left }, 6, threads).unwrap();
                let error = w
                    .write_all(&data)
                    .and_then(|()| w.finish().map(|_| ()))
                    .unwrap_err();
                assert!(error.to_string().contains("disk full"), "{error}");
            }
            // Failing only at the end.
            let mut w = ParallelBgzfWriter::new(Failing { left: 0 }, 6, threads).unwrap();
            w.write_all(b"a little").unwrap();
            assert!(w.finish().is_err());
        }
    }

    #[test]
    fn later_calls_fail_after_an_error() {
        let mut w = ParallelBgzfWriter::new(Failing { left: 0 }, 6, 2).unwrap();
        let data = text(20 * BLOCK_INPUT);
        assert!(w.write_all(&data).is_err());
        assert!(w.write(b"more").is_err());
        assert!(w.flush().is_err());
        assert!(w.finish().is_err());
    }

    #[test]
    fn dropping_without_finish_stops_the_threads() {
        for threads in [1, 4] {
            let mut w = ParallelBgzfWriter::new(Vec::new(), 6, threads).unwrap();
            w.write_all(&text(30 * BLOCK_INPUT + 5)).unwrap();
            // Drop closes the job channel and joins the threads: a thread left waiting
            // would stall the test here.
            drop(w);
        }
    }
}
