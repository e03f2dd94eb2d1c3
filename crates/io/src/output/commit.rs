//! Moving a run's outputs into place as one set (see [`Output::commit_together`]).

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{Output, Overwrite};
use crate::{pending_files, Error, Result};

/// One output's move from its temporary file to its place.
struct Move {
    /// The destination as given, which messages name.
    path: PathBuf,
    temp: PathBuf,
    target: PathBuf,
    /// A companion of the set's main file (an index), not the main file itself.
    companion: bool,
    /// Whether a file at the target may be replaced.
    overwrite: Overwrite,
}

impl Move {
    /// The file at the target that the move must not meet: a directory always, any
    /// file when the output may not replace one.
    fn check(&self) -> Result<()> {
        match std::fs::symlink_metadata(&self.target) {
            Ok(meta) if meta.is_dir() => Err(Error::io(
                &self.path,
                io::Error::new(io::ErrorKind::IsADirectory, "is a directory"),
            )),
            Ok(_) if self.overwrite == Overwrite::Refuse => Err(Error::Exists {
                path: self.path.clone(),
            }),
            _ => Ok(()),
        }
    }

    /// Moves the temporary file into place; without replacing a file when the output
    /// may not (a hard link fails on an existing name, where a rename replaces it).
    fn make(&self) -> Result<()> {
        let moved = match self.overwrite {
            Overwrite::Allow => std::fs::rename(&self.temp, &self.target),
            Overwrite::Refuse => match std::fs::hard_link(&self.temp, &self.target) {
                Ok(()) => std::fs::remove_file(&self.temp),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Err(e),
                // A filesystem without hard links: the check made under the lock stands.
                Err(_) => std::fs::rename(&self.temp, &self.target),
            },
        };
        moved.map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => Error::Exists {
                path: self.path.clone(),
            },
            _ => Error::io(&self.path, e),
        })
    }
}

impl Output {
    /// Flushes `outputs` and moves them into place as one set: the first is the main
    /// file (a BAM), the others its companions (its index). Every file is written and
    /// checked before any is moved, so a companion whose place is a directory fails the
    /// run with nothing replaced. The companions already in place are removed before
    /// the main file replaces its old one, so a reader never finds a new file beside an
    /// old companion (between the moves it may find the main file without its
    /// companions, or the old main file alone). The moves hold a lock on each
    /// directory they write, so two runs committing the same set end with one run's
    /// files, never a mix, and SIGINT, SIGTERM and SIGHUP wait until the set is in place.
    /// An output that must not replace a file (FACETS' rule without `--force`) is moved
    /// without replacing: a file that appeared there during the run is refused. If a
    /// move fails, the files this call already moved are removed again.
    pub fn commit_together(mut outputs: Vec<Output>) -> Result<()> {
        for out in &mut outputs {
            out.writer.flush().map_err(|e| Error::io(&out.path, e))?;
        }
        let moves: Vec<Move> = (outputs.iter().enumerate())
            .filter_map(|(i, out)| {
                let (temp, target) = out.temp.clone()?;
                Some(Move {
                    path: out.path.clone(),
                    temp,
                    target,
                    companion: i > 0,
                    overwrite: out.overwrite,
                })
            })
            .collect();
        let _locks = DirectoryLocks::take(moves.iter().map(|m| m.target.as_path()));
        pending_files::while_held(|list| {
            for m in &moves {
                m.check()?;
            }
            for m in moves.iter().filter(|m| m.companion) {
                match std::fs::remove_file(&m.target) {
                    Err(e) if e.kind() != io::ErrorKind::NotFound => {
                        return Err(Error::io(&m.path, e))
                    }
                    _ => {}
                }
            }
            for (done, m) in moves.iter().enumerate() {
                if let Err(e) = m.make() {
                    for placed in &moves[..done] {
                        let _ = std::fs::remove_file(&placed.target);
                    }
                    return Err(e);
                }
            }
            for m in &moves {
                pending_files::take_off(list, &m.temp);
            }
            Ok(())
        })?;
        for out in &mut outputs {
            out.temp = None;
        }
        Ok(())
    }
}

/// Exclusive `flock`s on the directories of a set of outputs, taken in one order (so
/// two runs never wait for each other crosswise) and released when dropped. A directory
/// that cannot be opened is not locked.
struct DirectoryLocks {
    /// The open directories; closing them releases their locks.
    _held: Vec<File>,
}

impl DirectoryLocks {
    fn take<'a>(targets: impl Iterator<Item = &'a Path>) -> DirectoryLocks {
        let mut dirs: Vec<PathBuf> = targets
            .map(|t| match t.parent() {
                Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
                _ => PathBuf::from("."),
            })
            .collect();
        dirs.sort();
        dirs.dedup();
        let locks = dirs
            .iter()
            .filter_map(|dir| File::open(dir).ok())
            .filter(|f| rustix::fs::flock(f, rustix::fs::FlockOperation::LockExclusive).is_ok())
            .collect();
        DirectoryLocks { _held: locks }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(path: &Path, overwrite: Overwrite, bytes: &[u8]) -> Output {
        let mut out = Output::create(path, overwrite).unwrap();
        out.put(bytes).unwrap();
        out
    }

    #[test]
    fn a_set_replaces_the_old_one_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (bam, bai) = (dir.path().join("x.bam"), dir.path().join("x.bam.bai"));
        std::fs::write(&bam, b"old bam").unwrap();
        std::fs::write(&bai, b"old bai").unwrap();
        let set = vec![
            written(&bam, Overwrite::Allow, b"new bam"),
            written(&bai, Overwrite::Allow, b"new bai"),
        ];
        Output::commit_together(set).unwrap();
        assert_eq!(std::fs::read(&bam).unwrap(), b"new bam");
        assert_eq!(std::fs::read(&bai).unwrap(), b"new bai");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_companion_whose_place_is_a_directory_fails_before_anything_moves() {
        let dir = tempfile::tempdir().unwrap();
        let (bam, bai) = (dir.path().join("x.bam"), dir.path().join("x.bam.bai"));
        std::fs::write(&bam, b"old bam").unwrap();
        let set = vec![
            written(&bam, Overwrite::Allow, b"new bam"),
            written(&dir.path().join("x.bai.tmp"), Overwrite::Allow, b"new bai"),
        ];
        // The index's place becomes a directory during the run.
        let mut set = set;
        set[1].temp.as_mut().unwrap().1 = bai.clone();
        std::fs::create_dir(&bai).unwrap();
        // Refused by the check made before any move, not by a failed removal or rename
        // (whose operating-system message says "os error").
        let e = Output::commit_together(set).unwrap_err().to_string();
        assert!(e.ends_with("is a directory"), "{e}");
        assert_eq!(std::fs::read(&bam).unwrap(), b"old bam");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_file_that_appeared_during_the_run_is_not_replaced_under_refuse() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.csv");
        let mine = written(&out, Overwrite::Refuse, b"mine");
        std::fs::write(&out, b"theirs").unwrap();
        let e = mine.commit().unwrap_err();
        assert!(matches!(e, Error::Exists { .. }), "{e}");
        assert_eq!(std::fs::read(&out).unwrap(), b"theirs");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
