//! Defect: `align` panicked on any command-line argument that is not UTF-8 (`-U`, `-x`,
//! `-S`, `-o` paths) while the other commands took such paths. They are paths like any
//! other now, in bowtie2's comma-separated lists too.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{data, file_bytes, index_test_genome, seqfarm, succeeded};

/// `dir/NAME`, NAME given as bytes (0xFF is never UTF-8).
fn named(dir: &Path, name: &[u8]) -> PathBuf {
    dir.join(OsStr::from_bytes(name))
}

/// The alignment records (not header lines) of the SAM file `sam`.
fn records_in(sam: &Path) -> usize {
    file_bytes(sam)
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty() && !line.starts_with(b"@"))
        .count()
}

/// `seqfarm align -p 2 -x PREFIX -U READS`, its output still to give.
fn align(prefix: &Path, reads: &Path) -> Command {
    let mut command = seqfarm();
    command
        .args(["align", "-p", "2", "-x"])
        .arg(prefix)
        .arg("-U")
        .arg(reads);
    command
}

#[test]
fn non_utf8_paths_align() {
    let dir = tempfile::tempdir().unwrap();
    let index_dir = named(dir.path(), b"index\xff");
    std::fs::create_dir(&index_dir).unwrap();
    let prefix = index_test_genome(&index_dir);
    let reads = named(dir.path(), b"reads\xff.fq.gz");
    std::fs::copy(data("align_reads_100.fq.gz"), &reads).unwrap();
    let read_count = file_bytes(&reads).split(|&b| b == b'\n').count() / 4;

    let sam = named(dir.path(), b"out\xff.sam");
    succeeded(align(&prefix, &reads).arg("-S").arg(&sam));
    assert_eq!(records_in(&sam), read_count);

    let bam = named(dir.path(), b"out\xff.bam");
    succeeded(align(&prefix, &reads).args(["--sort", "-o"]).arg(&bam));
    assert!(bam.exists());
    let mut bai = bam.clone().into_os_string();
    bai.push(".bai");
    assert!(Path::new(&bai).exists());

    // bowtie2's lists, as an option and as the positional READS, split on the byte ','.
    let mut list = reads.clone().into_os_string().into_vec();
    list.push(b',');
    list.extend_from_slice(reads.as_os_str().as_bytes());
    let list = OsString::from_vec(list);
    for positional in [false, true] {
        let name: &[u8] = if positional {
            b"positional\xff.sam"
        } else {
            b"option\xff.sam"
        };
        let sam = named(dir.path(), name);
        if positional {
            succeeded(
                seqfarm()
                    .args(["align", "-p", "2"])
                    .arg(&prefix)
                    .arg(&list)
                    .arg(&sam),
            );
        } else {
            succeeded(align(&prefix, Path::new(&list)).arg("-S").arg(&sam));
        }
        assert_eq!(records_in(&sam), 2 * read_count, "positional: {positional}");
    }
}
