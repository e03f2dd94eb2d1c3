//! Sorted runs on disk: hidden BGZF files (level 1) beside the output, deleted when
//! read back or, whatever happens, when their [`RunFiles`] is dropped.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::bam::BgzfBlockReader;
use crate::bgzf::{InflateBuffer, Inflater};
use crate::bgzf_writer::{BgzfCompressor, BLOCK_INPUT};
use crate::{Error, Result};

/// Compression level of runs: fast, as samtools sort's temporary files.
const RUN_LEVEL: i32 = 1;

/// The run files of one sort: where they go, which are waiting to be merged, and which
/// are still on disk (deleted on drop).
pub struct RunFiles {
    output: PathBuf,
    created: usize,
    waiting: Vec<WaitingRun>,
    on_disk: Vec<PathBuf>,
}

/// A run written and not yet read back, oldest first in [`RunFiles`].
struct WaitingRun {
    path: PathBuf,
    /// 0 for a run of records from memory, one more than its sources' for a merged run.
    level: u32,
}

impl RunFiles {
    /// No runs yet; they will be named after `output`, in its directory.
    pub fn new(output: &Path) -> Self {
        Self {
            output: output.to_path_buf(),
            created: 0,
            waiting: Vec::new(),
            on_disk: Vec::new(),
        }
    }

    /// Runs created so far.
    pub fn created(&self) -> usize {
        self.created
    }

    /// Runs written and not yet read back.
    #[cfg(test)]
    pub fn open(&self) -> usize {
        self.waiting.len()
    }

    /// How many of the newest waiting runs are of one level (the newest run's), and that
    /// level.
    pub fn newest_of_one_level(&self) -> (usize, u32) {
        let Some(newest) = self.waiting.last() else {
            return (0, 0);
        };
        let count = self
            .waiting
            .iter()
            .rev()
            .take_while(|run| run.level == newest.level)
            .count();
        (count, newest.level)
    }

    /// A new run file of records from memory: `dir/.NAME.seqfarm-PID.sort.NNNN.tmp`.
    pub fn create(&mut self) -> Result<RunWriter> {
        self.create_at_level(0)
    }

    /// A new run file that merges runs of level `level - 1`.
    pub fn create_at_level(&mut self, level: u32) -> Result<RunWriter> {
        self.created += 1;
        let path =
            crate::output::hidden_beside(&self.output, &format!("sort.{:04}.tmp", self.created));
        let file = File::create(&path).map_err(|e| Error::io(&path, e))?;
        crate::pending_files::register(&path);
        self.on_disk.push(path.clone());
        self.waiting.push(WaitingRun {
            path: path.clone(),
            level,
        });
        Ok(RunWriter {
            path,
            file: BufWriter::with_capacity(1 << 20, file),
            pending: Vec::with_capacity(BLOCK_INPUT),
            blocks: Vec::new(),
            compressor: BgzfCompressor::new(RUN_LEVEL),
        })
    }

    /// Opens every waiting run for reading, oldest first, and deletes its name (the
    /// open file stays readable where the system allows it; otherwise it is deleted
    /// on drop).
    pub fn take_readers(&mut self) -> Result<Vec<RunReader>> {
        self.take_newest_readers(self.waiting.len())
    }

    /// [`RunFiles::take_readers`] for the newest `count` waiting runs only.
    pub fn take_newest_readers(&mut self, count: usize) -> Result<Vec<RunReader>> {
        let first = self.waiting.len().saturating_sub(count);
        let mut readers = Vec::new();
        for WaitingRun { path, .. } in self.waiting.split_off(first) {
            let file = File::open(&path).map_err(|e| Error::io(&path, e))?;
            if std::fs::remove_file(&path).is_ok() {
                self.on_disk.retain(|p| p != &path);
                crate::pending_files::unregister(&path);
            }
            readers.push(RunReader {
                blocks: BgzfBlockReader::new(&path, BufReader::with_capacity(1 << 20, file)),
                path,
                data: InflateBuffer::new(),
                block: Vec::new(),
                inflater: Inflater::new(),
                current: 0,
            });
        }
        Ok(readers)
    }
}

impl Drop for RunFiles {
    fn drop(&mut self) {
        for path in self.on_disk.drain(..) {
            let _ = std::fs::remove_file(&path);
            crate::pending_files::unregister(&path);
        }
    }
}

/// Writes one run: records back to back, compressed in BGZF blocks.
pub struct RunWriter {
    path: PathBuf,
    file: BufWriter<File>,
    pending: Vec<u8>,
    blocks: Vec<u8>,
    compressor: BgzfCompressor,
}

impl RunWriter {
    /// Appends one record (with its length).
    pub fn write_record(&mut self, record: &[u8]) -> Result<()> {
        self.pending.extend_from_slice(record);
        if self.pending.len() >= BLOCK_INPUT {
            self.flush_blocks(false)?;
        }
        Ok(())
    }

    /// Compresses the pending bytes (whole blocks only unless `all`) and writes them.
    fn flush_blocks(&mut self, all: bool) -> Result<()> {
        let whole = if all {
            self.pending.len()
        } else {
            self.pending.len() / BLOCK_INPUT * BLOCK_INPUT
        };
        self.blocks.clear();
        self.compressor
            .compress(&self.pending[..whole], &mut self.blocks);
        self.file
            .write_all(&self.blocks)
            .map_err(|e| Error::io(&self.path, e))?;
        self.pending.drain(..whole);
        Ok(())
    }

    /// Writes the last block and flushes the file.
    pub fn finish(mut self) -> Result<()> {
        self.flush_blocks(true)?;
        self.file.flush().map_err(|e| Error::io(&self.path, e))
    }
}

/// Reads a run's records back, one block at a time.
pub struct RunReader {
    path: PathBuf,
    blocks: BgzfBlockReader<BufReader<File>>,
    data: InflateBuffer,
    block: Vec<u8>,
    inflater: Inflater,
    /// Length of the current record, at the start of `data`.
    current: usize,
}

impl RunReader {
    /// Moves to the next record; false at the end of the run.
    pub fn advance(&mut self) -> Result<bool> {
        self.data.consume(self.current);
        self.current = 0;
        if !self.fill(4)? {
            return if self.data.is_empty() {
                Ok(false)
            } else {
                Err(self.truncated())
            };
        }
        let bytes = self.data.as_slice();
        let len = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize + 4;
        if !self.fill(len)? {
            return Err(self.truncated());
        }
        self.current = len;
        Ok(true)
    }

    /// The record [`RunReader::advance`] moved to (with its length).
    pub fn record(&self) -> &[u8] {
        &self.data.as_slice()[..self.current]
    }

    fn truncated(&self) -> Error {
        Error::format(
            &self.path,
            self.blocks.position(),
            "sort run ends inside a record",
        )
    }

    /// Inflates blocks until `n` bytes are buffered; false if the run ends first.
    fn fill(&mut self, n: usize) -> Result<bool> {
        while self.data.len() < n {
            let at = self.blocks.position();
            self.block.clear();
            if !self.blocks.read_block(&mut self.block)? {
                return Ok(false);
            }
            self.inflater
                .inflate_raw(&self.block, at, &mut self.data)
                .map_err(|e| Error::format(&self.path, e.offset, e.kind.to_string()))?;
        }
        Ok(true)
    }
}
