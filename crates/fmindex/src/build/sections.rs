//! Where the big sections of a build go while it runs: memory, or an anonymous file
//! (deleted by the system however the process ends) when the build has a spill
//! directory, so that the finished BWT and samples do not count against the budget.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use bytemuck::Pod;
use memmap2::Mmap;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use crate::occ::{OccBlock, DOLLAR_FLAG, ROWS_PER_BLOCK};

/// A finished section.
pub(crate) enum Stored<T: Pod> {
    /// In memory.
    Memory(Vec<T>),
    /// In an anonymous file, with its checksum.
    Spilled {
        file: File,
        len: usize,
        checksum: u64,
    },
}

impl<T: Pod> Stored<T> {
    /// Size in bytes.
    pub fn byte_len(&self) -> u64 {
        let items = match self {
            Stored::Memory(v) => v.len(),
            Stored::Spilled { len, .. } => *len,
        };
        (items * size_of::<T>()) as u64
    }

    /// The xxh3 checksum of the bytes.
    pub fn checksum(&self) -> u64 {
        match self {
            Stored::Memory(v) => xxh3_64(bytemuck::cast_slice(v)),
            Stored::Spilled { checksum, .. } => *checksum,
        }
    }

    /// Copies the bytes to `out`.
    pub fn write_to(&self, out: &mut dyn Write) -> io::Result<()> {
        match self {
            Stored::Memory(v) => out.write_all(bytemuck::cast_slice(v)),
            Stored::Spilled { file, .. } => {
                let mut file = file;
                file.seek(SeekFrom::Start(0))?;
                let mut buffer = vec![0u8; 1 << 20];
                loop {
                    let n = file.read(&mut buffer)?;
                    if n == 0 {
                        return Ok(());
                    }
                    out.write_all(&buffer[..n])?;
                }
            }
        }
    }

    /// The items, borrowed or mapped.
    pub fn view(&self) -> io::Result<View<'_, T>> {
        match self {
            Stored::Memory(v) => Ok(View::Borrowed(v)),
            Stored::Spilled { len: 0, .. } => Ok(View::Borrowed(&[])),
            // SAFETY: the file is an anonymous temporary file that only this build holds
            // and no longer writes: nothing changes it while the map lives.
            Stored::Spilled { file, .. } => Ok(View::Mapped(unsafe { Mmap::map(file)? })),
        }
    }
}

/// A section's items, in memory or mapped from its file.
pub(crate) enum View<'a, T> {
    Borrowed(&'a [T]),
    Mapped(Mmap),
}

impl<T: Pod> View<'_, T> {
    /// The items.
    pub fn items(&self) -> &[T] {
        match self {
            View::Borrowed(v) => v,
            View::Mapped(map) => bytemuck::cast_slice(map),
        }
    }
}

/// Appends items to a section in memory or in an anonymous file.
pub(crate) enum StoreWriter<T: Pod> {
    Memory(Vec<T>),
    Spill {
        out: BufWriter<File>,
        hasher: Box<Xxh3>,
        len: usize,
    },
}

impl<T: Pod> StoreWriter<T> {
    /// A writer to memory (`spill` is `None`) or to a new anonymous file in `spill`.
    pub fn new(spill: Option<&Path>) -> io::Result<Self> {
        Ok(match spill {
            None => StoreWriter::Memory(Vec::new()),
            Some(dir) => StoreWriter::Spill {
                out: BufWriter::with_capacity(1 << 22, tempfile::tempfile_in(dir)?),
                hasher: Box::default(),
                len: 0,
            },
        })
    }

    /// Appends `items`.
    #[inline]
    pub fn extend(&mut self, items: &[T]) -> io::Result<()> {
        match self {
            StoreWriter::Memory(v) => v.extend_from_slice(items),
            StoreWriter::Spill { out, hasher, len } => {
                let bytes = bytemuck::cast_slice(items);
                hasher.update(bytes);
                out.write_all(bytes)?;
                *len += items.len();
            }
        }
        Ok(())
    }

    /// The finished section.
    pub fn finish(self) -> io::Result<Stored<T>> {
        Ok(match self {
            StoreWriter::Memory(v) => Stored::Memory(v),
            StoreWriter::Spill { out, hasher, len } => Stored::Spilled {
                file: out.into_inner().map_err(|e| e.into_error())?,
                len,
                checksum: hasher.digest(),
            },
        })
    }
}

/// Writes BWT rows in order as [`OccBlock`]s with their counts, the superblock table
/// beside them: the streaming form of `BlockWriter` + `finish_counts`.
pub(crate) struct OccStream {
    out: StoreWriter<OccBlock>,
    block: OccBlock,
    in_block: u64,
    blocks: u64,
    /// Counts since the superblock began, and in all.
    relative: [u64; 4],
    total: [u64; 4],
    supers: Vec<u64>,
    super_shift: u32,
}

impl OccStream {
    /// A stream writing its blocks to `out`, `2^super_shift` blocks per superblock.
    pub fn new(out: StoreWriter<OccBlock>, super_shift: u32) -> Self {
        Self {
            out,
            block: OccBlock::default(),
            in_block: 0,
            blocks: 0,
            relative: [0; 4],
            total: [0; 4],
            supers: Vec::new(),
            super_shift,
        }
    }

    fn start_block(&mut self) {
        if self.blocks.is_multiple_of(1 << self.super_shift) {
            self.supers.extend_from_slice(&self.total);
            self.relative = [0; 4];
        }
        for c in 0..4 {
            self.block.counts[c] = self.relative[c] as u32;
        }
    }

    /// Appends the next row's symbol: `Some(code)`, or `None` for a separator.
    #[inline]
    pub fn push(&mut self, symbol: Option<u8>) -> io::Result<()> {
        if self.in_block == 0 {
            self.start_block();
        }
        let j = self.in_block as usize;
        match symbol {
            Some(code) => {
                self.block.set(j, code);
                self.relative[code as usize] += 1;
                self.total[code as usize] += 1;
            }
            None => self.block.counts[0] |= DOLLAR_FLAG,
        }
        self.in_block += 1;
        if self.in_block == ROWS_PER_BLOCK {
            self.out.extend(&[self.block])?;
            self.block = OccBlock::default();
            self.in_block = 0;
            self.blocks += 1;
        }
        Ok(())
    }

    /// Writes the last (possibly empty) block: blocks, superblock table, symbol totals.
    pub fn finish(mut self) -> io::Result<(Stored<OccBlock>, Vec<u64>, [u64; 4])> {
        if self.in_block == 0 {
            self.start_block();
        }
        self.out.extend(&[self.block])?;
        Ok((self.out.finish()?, self.supers, self.total))
    }
}
