//! Where sorted parts spill: one file per worker process in the job's spill directory,
//! each part writing its records and its table of cells into a range of it reserved for
//! the part. A merge opens a file per worker process rather than one per part: on a big
//! cluster every part holds records of nearly every cell, and a merge of one cell would
//! otherwise open tens of thousands of files. The parts' places are written by the task
//! that sums their cell sizes into a small file per group of parts ([`write_group`]),
//! which the merges read ([`read_groups`]): once per worker process and job, since a
//! big cluster's job has thousands of groups and each worker process runs many merges.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use seqfarm_io::output::{Output, Overwrite};

use crate::api::parts::wire::{WireReader, WireWriter};

/// Where a part's spill lies: its worker process's spill file, and the offset and length
/// of the part's table of cells in it (its records lie before the table, at the offsets
/// the table gives).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartSpill {
    pub file: PathBuf,
    pub table: (u64, u64),
}

/// Per spill directory, this process's spill file and the end of what its parts have
/// reserved in it.
static FILES: Mutex<Option<HashMap<PathBuf, (PathBuf, u64)>>> = Mutex::new(None);

/// A range of `len` bytes of this process's spill file in `dir` (made the first time):
/// the file and the range's offset. Ranges are never given twice, so a part written
/// again (recomputed) never overwrites what another part wrote.
pub(super) fn reserve(dir: &Path, len: u64) -> anyhow::Result<(PathBuf, u64)> {
    let mut files = FILES.lock().unwrap_or_else(|e| e.into_inner());
    let files = files.get_or_insert_with(HashMap::new);
    // A directory of the same name as an earlier job's (removed since) gets a new file.
    if !files.get(dir).is_some_and(|(name, _)| name.exists()) {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let name = dir.join(format!("worker-{}-{nanos:x}", std::process::id()));
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&name)
            .with_context(|| format!("cannot create {}", name.display()))?;
        files.insert(dir.to_path_buf(), (name, 0));
    }
    let (name, end) = files.get_mut(dir).expect("just inserted");
    let at = *end;
    *end += len;
    Ok((name.clone(), at))
}

/// The file of group `group`'s places in the spill directory `dir`.
fn group_path(dir: &Path, group: usize) -> PathBuf {
    dir.join(format!("group-{group}"))
}

/// Writes the places of a group of consecutive parts (in input order) as group `group`
/// of the spill directory `dir`.
pub fn write_group(dir: &Path, group: usize, parts: &[PartSpill]) -> anyhow::Result<()> {
    let mut w: WireWriter = WireWriter::default();
    w.number(parts.len() as u64);
    for part in parts {
        w.bytes(part.file.as_os_str().as_encoded_bytes())
            .number(part.table.0)
            .number(part.table.1);
    }
    // Written beside and renamed: a merge never reads half a group, and the directory's
    // stamp changes, so no worker process keeps the places it read before.
    let mut file = Output::create(group_path(dir, group), Overwrite::Allow)?;
    file.put(&w.0)?;
    Ok(file.commit()?)
}

/// The places of every part of the spill directory `dir`, in input order, from its
/// groups `0..groups`; read once by this process while `dir` is unchanged (the places
/// of the last few spill directories read are kept).
pub fn read_groups(dir: &Path, groups: usize) -> anyhow::Result<Arc<[PartSpill]>> {
    let stamp = DirStamp::of(dir)?;
    let read = GROUPS_READ.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = read
        .iter()
        .find(|r| r.0 == dir && r.1 == groups && r.2 == stamp)
    {
        return Ok(Arc::clone(&found.3));
    }
    drop(read);
    let parts: Arc<[PartSpill]> = read_groups_from_files(dir, groups)?.into();
    let mut read = GROUPS_READ.lock().unwrap_or_else(|e| e.into_inner());
    read.retain(|r| r.0 != dir);
    if read.len() >= GROUPS_KEPT {
        read.remove(0);
    }
    read.push((dir.to_path_buf(), groups, stamp, Arc::clone(&parts)));
    Ok(parts)
}

/// The jobs whose parts' places a worker process keeps at most (a worker process may
/// serve several clients' jobs at once).
const GROUPS_KEPT: usize = 4;

/// Per spill directory, the number of groups read, the directory's stamp when they were
/// read, and the parts' places, oldest first.
#[allow(clippy::type_complexity)]
static GROUPS_READ: Mutex<Vec<(PathBuf, usize, DirStamp, Arc<[PartSpill]>)>> =
    Mutex::new(Vec::new());

/// What tells a spill directory apart from another of the same name and from itself
/// after a file was added to it (a part recomputed on a new worker process, a group
/// written again): its device, inode and modification time. A change within the
/// filesystem's time resolution goes unseen, which costs nothing: places read before it
/// still hold their parts' records (a range of a spill file is never given twice, and
/// spill files stay until the job ends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DirStamp(u64, u64, i64, i64);

impl DirStamp {
    fn of(dir: &Path) -> anyhow::Result<Self> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(dir).with_context(|| format!("cannot read {}", dir.display()))?;
        Ok(Self(m.dev(), m.ino(), m.mtime(), m.mtime_nsec()))
    }
}

/// [`read_groups`] from the group files themselves.
fn read_groups_from_files(dir: &Path, groups: usize) -> anyhow::Result<Vec<PartSpill>> {
    let mut parts = Vec::new();
    for group in 0..groups {
        let path = group_path(dir, group);
        let mut read = || -> anyhow::Result<()> {
            let bytes = std::fs::read(&path)?;
            let mut r = WireReader::new(&bytes);
            for _ in 0..r.number()? {
                let file = PathBuf::from(std::ffi::OsStr::from_bytes(r.bytes()?));
                parts.push(PartSpill {
                    file,
                    table: (r.number()?, r.number()?),
                });
            }
            anyhow::ensure!(r.is_empty(), "bytes after its end");
            Ok(())
        };
        read().with_context(|| format!("cannot read {}", path.display()))?;
    }
    Ok(parts)
}

/// Files open at once for a merge, at most: a cluster of more worker processes than
/// that stays within `ulimit -n` (its spill files are asked for in order of their paths,
/// so each is still opened once).
const OPEN_AT_ONCE: usize = 64;

/// Spill files opened once each for a merge, however many of its parts they hold (at
/// most [`OPEN_AT_ONCE`] open at a time).
#[derive(Default)]
pub(super) struct OpenFiles(HashMap<PathBuf, File>);

impl OpenFiles {
    /// `path`, opened the first time it is asked for.
    pub(super) fn get(&mut self, path: &Path) -> anyhow::Result<&File> {
        if !self.0.contains_key(path) {
            if self.0.len() >= OPEN_AT_ONCE {
                self.0.clear();
            }
            let file =
                File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
            self.0.insert(path.to_path_buf(), file);
        }
        Ok(&self.0[path])
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::FileExt;

    use seqfarm_io::output::write_pieces_at;

    use super::*;

    #[test]
    fn parts_reserve_ranges_of_one_file_per_directory() {
        let dir = tempfile::tempdir().unwrap();
        let (file, a) = reserve(dir.path(), 10).unwrap();
        let (same, b) = reserve(dir.path(), 5).unwrap();
        assert_eq!((file.clone(), a, b), (same, 0, 10));
        write_pieces_at(&file, b, [&b"fghij"[..]]).unwrap();
        write_pieces_at(&file, a, [&b"abcd"[..], &b"e"[..], &b"-----"[..]]).unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"abcde-----fghij");
        let other = tempfile::tempdir().unwrap();
        assert_ne!(reserve(other.path(), 1).unwrap().0, file);
    }

    #[test]
    fn a_merge_holds_a_bounded_number_of_files_open() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = OpenFiles::default();
        for i in 0..OPEN_AT_ONCE + 10 {
            let path = dir.path().join(format!("worker-{i}"));
            std::fs::write(&path, [i as u8]).unwrap();
            let mut byte = [0u8];
            files
                .get(&path)
                .unwrap()
                .read_exact_at(&mut byte, 0)
                .unwrap();
            assert_eq!(byte, [i as u8]);
            assert!(files.0.len() <= OPEN_AT_ONCE);
        }
        let e = files.get(&dir.path().join("absent")).unwrap_err();
        assert!(format!("{e:#}").contains("cannot read"), "{e:#}");
    }

    #[test]
    fn groups_read_back_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let part = |name: &str, at| PartSpill {
            file: dir.path().join(name),
            table: (at, 48),
        };
        write_group(dir.path(), 0, &[part("worker-1", 100), part("worker-2", 0)]).unwrap();
        write_group(dir.path(), 1, &[part("worker-1", 500)]).unwrap();
        let parts = read_groups(dir.path(), 2).unwrap();
        assert_eq!(
            *parts,
            [
                part("worker-1", 100),
                part("worker-2", 0),
                part("worker-1", 500)
            ]
        );
        let e = read_groups(dir.path(), 3).unwrap_err();
        assert!(format!("{e:#}").contains("group-2"), "{e:#}");
    }

    #[test]
    fn groups_are_read_once_while_their_directory_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let part = |at| PartSpill {
            file: dir.path().join("worker-1"),
            table: (at, 48),
        };
        write_group(dir.path(), 0, &[part(0)]).unwrap();
        let first = read_groups(dir.path(), 1).unwrap();
        assert!(Arc::ptr_eq(&first, &read_groups(dir.path(), 1).unwrap()));
        // A group written again renames its file into the directory, which changes the
        // directory's time; set here, since the clock may not have moved in between.
        write_group(dir.path(), 0, &[part(96)]).unwrap();
        let stamp = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1);
        File::open(dir.path()).unwrap().set_modified(stamp).unwrap();
        assert_eq!(&*read_groups(dir.path(), 1).unwrap(), [part(96)]);
    }
}
