//! Loading an index: the file mapped or copied into anonymous memory (read by several
//! threads at once), or bytes in memory, checked and turned into an [`FmIndex`]; and the
//! deferred verification of every section's checksum beside the work that uses it.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use memmap2::{Mmap, MmapMut};
#[cfg(unix)]
use seqfarm_farm::threads::spawn_scoped_or_run;

use super::parse::parse;
use super::{FmIndex, LoadMode, LoadOptions};
use crate::build::IndexImage;
use crate::error::LoadError;
use crate::format::{self, SectionId, MAGIC, PAGE};
use crate::occ::{Bwt, DollarDirectory, DollarLookup};

pub(super) enum Backing {
    /// The file mapped read-only, and the file itself (for reads of the same inode).
    Mapped {
        map: Mmap,
        file: File,
    },
    Copied(MmapMut),
}

impl Backing {
    pub(super) fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mapped { map, .. } => map,
            Backing::Copied(m) => m,
        }
    }

    /// A reader of the mapped file with a file description of its own, so that its
    /// sequential reads keep their own read-ahead state rather than share the one the
    /// mapping's page faults use: `path` opened again, if it is still the same file.
    fn own_reader(&self, path: &Path) -> Option<File> {
        #[cfg(unix)]
        if let Backing::Mapped { file, .. } = self {
            use std::os::unix::fs::MetadataExt;
            let reader = File::open(path).ok()?;
            let (a, b) = (file.metadata().ok()?, reader.metadata().ok()?);
            return (a.dev() == b.dev() && a.ino() == b.ino()).then_some(reader);
        }
        let _ = path;
        None
    }

    /// Bytes `at..at + len` of the index: read from `reader` (the same file) into
    /// `buffer` when there is one, else the mapped or copied bytes themselves.
    fn range<'a>(
        &'a self,
        at: usize,
        len: usize,
        reader: Option<&File>,
        buffer: &'a mut Vec<u8>,
    ) -> std::io::Result<&'a [u8]> {
        #[cfg(unix)]
        if let Some(reader) = reader {
            use std::os::unix::fs::FileExt;
            buffer.resize(len, 0);
            reader.read_exact_at(buffer, at as u64)?;
            return Ok(buffer);
        }
        let _ = (reader, buffer);
        Ok(&self.bytes()[at..at + len])
    }
}

/// Bytes [`FmIndex::verify_checksums`] hashes between checks of its stop flag.
const VERIFY_CHUNK: usize = 1 << 20;

/// Anonymous memory for a copy of an index of `len` bytes, in transparent huge pages
/// where the system allows them: the index is read at random, and in 4 KiB pages nearly
/// every search step also misses the TLB. The advice is only an optimisation; a refusal
/// is silent.
fn anon_copy(len: usize) -> std::io::Result<MmapMut> {
    let anon = MmapMut::map_anon(len)?;
    #[cfg(target_os = "linux")]
    let _ = anon.advise(memmap2::Advice::HugePage);
    Ok(anon)
}

/// Least bytes each thread of [`read_in_parts`] reads: below this, a thread costs more
/// than the pages it fills.
const MIN_READ_PART: usize = 32 << 20;
/// The parts of [`read_in_parts`] start at multiples of 2 MiB into the copy, so where the
/// kernel starts the mapping on a huge page (as recent Linux does for large anonymous
/// mappings), no huge page is filled by two threads.
const READ_PART_ALIGN: usize = 2 << 20;

/// Fills `buffer` with the first `buffer.len()` bytes of `file`, by up to `threads`
/// threads at once, each reading one part of at least `min_part` bytes at its offset
/// (positioned reads, which leave the file's cursor alone). One thread where positioned
/// reads are not available.
fn read_in_parts(
    file: &File,
    buffer: &mut [u8],
    threads: usize,
    min_part: usize,
) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let threads = threads.min(buffer.len() / min_part.max(1)).max(1);
        if threads == 1 {
            return file.read_exact_at(buffer, 0);
        }
        let part = buffer
            .len()
            .div_ceil(threads)
            .next_multiple_of(READ_PART_ALIGN);
        std::thread::scope(|scope| {
            let readers: Vec<_> = buffer
                .chunks_mut(part)
                .enumerate()
                .map(|(k, piece)| {
                    spawn_scoped_or_run(scope, "seqfarm-index-read", move || {
                        file.read_exact_at(piece, (k * part) as u64)
                    })
                })
                .collect();
            readers.into_iter().try_for_each(|r| {
                r.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        })
    }
    #[cfg(not(unix))]
    {
        use std::io::Seek;
        let _ = (threads, min_part);
        let mut reader = file;
        reader.rewind()?;
        reader.read_exact(buffer)
    }
}

impl FmIndex {
    /// Verifies every section's checksum: the check an index opened with
    /// `verify_checksums: false` skipped, run beside the work that uses the index. A
    /// mapped index's file is read (1 MiB at a time) through a file description of its
    /// own, so its sequential read-ahead is not disturbed by the searches' page faults
    /// and the pages the searches never touch are not mapped into the process; a copied
    /// index (or a mapped file since replaced at its path) is hashed in memory. Returns
    /// `Ok(false)` if `stop` was set before it finished (the work it ran beside ended
    /// first, with an error), checking it every MiB.
    pub fn verify_checksums(&self, stop: &AtomicBool) -> Result<bool, LoadError> {
        let bytes = self.bytes();
        let (_, table) = format::decode_header(&bytes[..PAGE as usize]);
        let mut buffer = Vec::new();
        let reader = self.backing.own_reader(&self.path);
        for (section, id) in table.iter().zip(SectionId::ALL) {
            // Loading checked that every section lies inside the file.
            let start = section.offset as usize;
            let end = start + section.len as usize;
            let mut hasher = xxhash_rust::xxh3::Xxh3::new();
            for at in (start..end).step_by(VERIFY_CHUNK) {
                if stop.load(Ordering::Relaxed) {
                    return Ok(false);
                }
                let chunk = self
                    .backing
                    .range(at, VERIFY_CHUNK.min(end - at), reader.as_ref(), &mut buffer)
                    .map_err(|e| LoadError::Io {
                        path: self.path.clone(),
                        cause: e,
                    })?;
                hasher.update(chunk);
            }
            if hasher.digest() != section.checksum {
                return Err(LoadError::Checksum {
                    path: self.path.clone(),
                    section: id.name(),
                });
            }
        }
        Ok(true)
    }

    /// Loads the index file at `path` (see [`index_path`](super::index_path)).
    pub fn open(path: impl AsRef<Path>, options: LoadOptions) -> Result<Self, LoadError> {
        Self::open_with(path.as_ref(), options, |_| {})
    }

    /// Loads the index file at `path` into anonymous memory ([`LoadMode::Copy`]), read
    /// by `threads` threads ([`LoadOptions::threads`]), calling `prepare` on that memory
    /// once it is mapped and before any byte of it is written: the moment to set a NUMA
    /// memory policy (`mbind`), which decides where the pages go when the copy first
    /// touches them (whichever thread touches them).
    pub fn open_copy_with(
        path: impl AsRef<Path>,
        verify_checksums: bool,
        threads: usize,
        prepare: impl FnOnce(&mut [u8]),
    ) -> Result<Self, LoadError> {
        let options = LoadOptions {
            mode: LoadMode::Copy,
            verify_checksums,
            threads,
        };
        Self::open_with(path.as_ref(), options, prepare)
    }

    fn open_with(
        path: &Path,
        options: LoadOptions,
        prepare: impl FnOnce(&mut [u8]),
    ) -> Result<Self, LoadError> {
        let path = path.to_path_buf();
        let io = |e| LoadError::Io {
            path: path.clone(),
            cause: e,
        };
        let mut file = File::open(&path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "is a directory, not an index file",
            )));
        }
        let len = meta.len();
        if len < PAGE {
            let mut head = Vec::new();
            file.read_to_end(&mut head).map_err(io)?;
            if !head.starts_with(MAGIC) {
                return Err(LoadError::Foreign { path });
            }
            return Err(LoadError::Truncated {
                path,
                expected: PAGE,
                actual: len,
            });
        }
        let backing = match options.mode {
            LoadMode::Mmap => {
                // SAFETY: the file is mapped read-only; seqfarm never modifies an index in
                // place (it writes a new file and renames it), so the mapped bytes do not
                // change under us. Another program truncating the file would be a bug
                // outside our control (the kernel then signals SIGBUS).
                let map = unsafe { Mmap::map(&file) }.map_err(io)?;
                Backing::Mapped { map, file }
            }
            LoadMode::Copy => {
                let mut anon = anon_copy(len as usize).map_err(io)?;
                prepare(&mut anon);
                read_in_parts(&file, &mut anon, options.threads, MIN_READ_PART).map_err(io)?;
                Backing::Copied(anon)
            }
        };
        Self::from_backing(backing, path, options.mode, options.verify_checksums)
    }

    /// Loads an index from bytes in memory (copied into anonymous memory); `name` is
    /// used in error messages.
    pub fn from_bytes(bytes: &[u8], name: impl Into<PathBuf>) -> Result<Self, LoadError> {
        let path = name.into();
        let io = |e| LoadError::Io {
            path: path.clone(),
            cause: e,
        };
        if bytes.len() < PAGE as usize {
            if !bytes.starts_with(MAGIC) {
                return Err(LoadError::Foreign { path });
            }
            return Err(LoadError::Truncated {
                path,
                expected: PAGE,
                actual: bytes.len() as u64,
            });
        }
        let mut anon = anon_copy(bytes.len()).map_err(io)?;
        anon.copy_from_slice(bytes);
        Self::from_backing(Backing::Copied(anon), path, LoadMode::Copy, true)
    }

    /// Loads a freshly built index without a file.
    pub fn from_image(image: &IndexImage) -> Result<Self, LoadError> {
        let mut bytes = Vec::with_capacity(image.file_len() as usize);
        image.write_to(&mut bytes).map_err(|e| LoadError::Io {
            path: "(built index)".into(),
            cause: e,
        })?;
        Self::from_bytes(&bytes, "(built index)")
    }

    fn from_backing(
        backing: Backing,
        path: PathBuf,
        mode: LoadMode,
        verify: bool,
    ) -> Result<Self, LoadError> {
        // SAFETY: `bytes` points into the mapping owned by `backing`, which is moved into
        // the returned `FmIndex` and dropped only after every view derived from `bytes`
        // (fields are dropped in declaration order, views first). Moving an `Mmap` does
        // not move the mapped memory. The views are only handed out with the lifetime
        // of `&self`.
        let bytes: &'static [u8] = unsafe {
            let b = backing.bytes();
            std::slice::from_raw_parts(b.as_ptr(), b.len())
        };
        let parsed = parse(bytes, &path, verify)?;
        let dollar_directory = DollarDirectory::new(parsed.bwt.dollars, parsed.bwt.len());
        // SAFETY: the view borrows only the directory's heap buffers, owned by
        // `dollar_directory`, which is moved into the returned `FmIndex` (moving a `Vec`
        // does not move its buffer), never changed, and dropped after `bwt` (declaration
        // order). Only the lifetime changes.
        let directory = unsafe {
            std::mem::transmute::<DollarLookup<'_>, DollarLookup<'static>>(dollar_directory.view())
        };
        Ok(FmIndex {
            bwt: Bwt {
                directory,
                ..parsed.bwt
            },
            sa: parsed.sa,
            kmers: parsed.kmers,
            kmer_len: parsed.params.kmer_len,
            reference_words: parsed.reference_words,
            layout: parsed.layout,
            mask: parsed.mask,
            path,
            file_len: bytes.len() as u64,
            checksums_verified: verify,
            mode,
            dollar_directory,
            backing,
        })
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::{read_in_parts, READ_PART_ALIGN};

    /// A file read by several threads, in parts of 2 MiB and a short last one, reads as
    /// it reads in one piece; more threads than parts, or parts under the minimum, read
    /// it too.
    #[test]
    fn a_file_read_in_parts_reads_whole() {
        let len = 2 * READ_PART_ALIGN + READ_PART_ALIGN / 2 + 123;
        let bytes: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4099) as u8).collect();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(&bytes).unwrap();
        for (threads, min_part) in [(3, 1 << 20), (8, 1 << 20), (2, len), (0, 1), (3, 0)] {
            let mut copy = vec![0u8; len];
            read_in_parts(&file, &mut copy, threads, min_part).unwrap();
            assert!(
                copy == bytes,
                "{threads} threads, parts of at least {min_part}"
            );
        }
        let mut longer = vec![0u8; len + 1];
        assert!(read_in_parts(&file, &mut longer, 3, 1 << 20).is_err());
    }
}
