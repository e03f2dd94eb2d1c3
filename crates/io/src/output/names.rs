//! The names of the hidden files written beside an output: its temporary file and, for a
//! sort, its spilled runs.

use std::ffi::OsStr;
use std::hash::{Hash, Hasher};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The longest file name Linux's filesystems take (`NAME_MAX`), in bytes.
const NAME_MAX: usize = 255;

/// `dir/.NAME.seqfarm-PID.SUFFIX`: hidden, in the output's directory (so that renaming it
/// into place is atomic), and unique per process and `suffix`. When that would pass
/// `NAME_MAX` (an output name of 230 bytes or so), the start of the output's name is
/// kept and the rest replaced by a hash of the whole name, so that every name the
/// filesystem takes for an output can be written.
pub(crate) fn hidden_beside(path: &Path, suffix: &str) -> PathBuf {
    let name = path.file_name().map_or(&b"output"[..], |n| n.as_bytes());
    let tail = format!(".seqfarm-{}.{suffix}", std::process::id());
    let mut file = Vec::with_capacity(NAME_MAX);
    file.push(b'.');
    if 1 + name.len() + tail.len() <= NAME_MAX {
        file.extend_from_slice(name);
    } else {
        let mut hasher = std::hash::DefaultHasher::new();
        name.hash(&mut hasher);
        let hash = format!("~{:016x}", hasher.finish());
        let keep = NAME_MAX.saturating_sub(1 + tail.len() + hash.len());
        file.extend_from_slice(&name[..keep.min(name.len())]);
        file.extend_from_slice(hash.as_bytes());
    }
    file.extend_from_slice(tail.as_bytes());
    path.with_file_name(OsStr::from_bytes(&file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_name_is_kept_whole() {
        let p = hidden_beside(Path::new("/d/out.bam"), "tmp");
        let expected = format!(".out.bam.seqfarm-{}.tmp", std::process::id());
        assert_eq!(p, Path::new("/d").join(expected));
    }

    #[test]
    fn a_long_name_is_shortened_within_name_max_and_stays_distinct() {
        for len in [200usize, 229, 240, 250, 255] {
            let a = "a".repeat(len);
            let mut b = a.clone();
            b.replace_range(len - 1.., "b");
            for suffix in ["tmp", "sort.0001.tmp"] {
                let (pa, pb) = (
                    hidden_beside(Path::new(&a), suffix),
                    hidden_beside(Path::new(&b), suffix),
                );
                let na = pa.file_name().unwrap().len();
                assert!(na <= NAME_MAX, "{len} {suffix}: {na}");
                assert_ne!(pa, pb, "{len} {suffix}");
            }
        }
    }
}
