//! The on-disk format: round trip, and damaged, truncated, foreign or forged files
//! rejected with a clear error (never a panic).

mod naive;

use std::path::Path;
use std::sync::atomic::AtomicBool;

use naive::{index_of, Genome};
use seqfarm_fmindex::{
    build, index_path, BuildOptions, FmIndex, LoadError, LoadMode, LoadOptions, ReferenceBuilder,
};
use xxhash_rust::xxh3::xxh3_64;

const SECTIONS: usize = 7;
const TABLE: usize = 112;

fn small_genome() -> Genome {
    let mut state = 99u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..3)
        .map(|k| {
            let seq = (0..5000)
                .map(|i| {
                    if (1000..1050).contains(&i) {
                        b'N'
                    } else {
                        b"ACGT"[(next() % 4) as usize]
                    }
                })
                .collect();
            (format!("chr{k}"), seq)
        })
        .collect()
}

fn index_bytes() -> Vec<u8> {
    let mut reference = ReferenceBuilder::new();
    for (name, seq) in small_genome() {
        reference.add_contig(&name, &seq).unwrap();
    }
    let image = build(reference, &BuildOptions::default(), &mut |_| {}).unwrap();
    let mut bytes = Vec::new();
    image.write_to(&mut bytes).unwrap();
    assert_eq!(bytes.len() as u64, image.file_len());
    bytes
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn sections(bytes: &[u8]) -> Vec<(usize, usize)> {
    let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    (0..SECTIONS)
        .map(|k| (u64_at(TABLE + 32 * k + 8), u64_at(TABLE + 32 * k + 16)))
        .collect()
}

/// Rewrites the checksums so a deliberately inconsistent file passes them.
fn reseal(bytes: &mut [u8]) {
    for (k, (offset, len)) in sections(bytes).into_iter().enumerate() {
        let sum = xxh3_64(&bytes[offset..offset + len]);
        bytes[TABLE + 32 * k + 24..TABLE + 32 * k + 32].copy_from_slice(&sum.to_le_bytes());
    }
    let end = TABLE + 32 * SECTIONS;
    let sum = xxh3_64(&bytes[..end]);
    bytes[end..end + 8].copy_from_slice(&sum.to_le_bytes());
}

#[test]
fn round_trip_in_both_load_modes() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "g.sfi", &index_bytes());
    assert_eq!(index_path(dir.path().join("g")), path);
    let expected = index_of(&small_genome(), 16, None, 1);
    for mode in [LoadMode::Mmap, LoadMode::Copy] {
        let index = FmIndex::open(
            &path,
            LoadOptions {
                mode,
                verify_checksums: true,
                ..LoadOptions::default()
            },
        )
        .unwrap();
        assert_eq!(index.is_copied(), mode == LoadMode::Copy);
        assert_eq!(index.contigs(), expected.contigs());
        assert_eq!(index.contigs()[2].name, "chr2");
        assert_eq!(index.genome_len(), 15_000);
        let report = index.check().unwrap();
        assert_eq!(report.contigs, 3);
        let pattern = [0u8, 1, 2, 3, 3, 2, 1];
        assert_eq!(index.count(&pattern), expected.count(&pattern));
    }
}

/// The memory handed to `prepare` is the index's own, untouched yet (all zero), and
/// the copy loaded into it is the whole file.
#[test]
fn a_copy_is_prepared_before_it_is_filled() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = index_bytes();
    let path = write(dir.path(), "g.sfi", &bytes);
    let mut seen = None;
    let index = FmIndex::open_copy_with(&path, true, 1, |memory| {
        seen = Some((
            memory.as_ptr() as usize,
            memory.len(),
            memory.iter().all(|&b| b == 0),
        ));
    })
    .unwrap();
    assert!(index.is_copied());
    assert_eq!(index.load_mode(), LoadMode::Copy);
    assert_eq!(
        seen,
        Some((index.bytes().as_ptr() as usize, bytes.len(), true))
    );
    assert_eq!(index.bytes(), &bytes[..]);
}

/// A copy asks for transparent huge pages (`hg` among the mapping's `VmFlags` in
/// `/proc/self/smaps`) wherever the kernel offers them at all.
#[cfg(target_os = "linux")]
#[test]
fn a_copy_asks_for_huge_pages() {
    let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled");
    let offered = thp.is_ok_and(|mode| !mode.contains("[never]"));
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "g.sfi", &index_bytes());
    let index = FmIndex::open_copy_with(&path, true, 1, |_| {}).unwrap();
    let at = index.bytes().as_ptr() as usize;
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
    // A mapping's header line starts with its address range, `start-end`.
    let range = |line: &str| -> Option<(usize, usize)> {
        let (start, end) = line.split_once(' ')?.0.split_once('-')?;
        Some((
            usize::from_str_radix(start, 16).ok()?,
            usize::from_str_radix(end, 16).ok()?,
        ))
    };
    let mut inside = false;
    let mut flags = None;
    for line in smaps.lines() {
        if let Some((start, end)) = range(line) {
            inside = (start..end).contains(&at);
        } else if let (true, Some(list)) = (inside, line.strip_prefix("VmFlags:")) {
            flags = Some(list.split_whitespace().any(|f| f == "hg"));
        }
    }
    assert_eq!(flags, Some(offered), "the copy's mapping and its VmFlags");
}

#[test]
fn index_is_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<FmIndex>();
    let index = index_of(&small_genome(), 16, None, 1);
    let counts: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2u8)
            .map(|c| {
                let index = &index;
                scope.spawn(move || index.count(&[c, c, 3 - c]))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        counts,
        vec![index.count(&[0, 0, 3]), index.count(&[1, 1, 2])]
    );
}

#[test]
fn truncated_files_are_rejected() {
    let bytes = index_bytes();
    let dir = tempfile::tempdir().unwrap();
    for cut in [
        0,
        7,
        8,
        100,
        4095,
        4096,
        5000,
        bytes.len() / 2,
        bytes.len() - 1,
    ] {
        let path = write(dir.path(), "t.sfi", &bytes[..cut]);
        let error = FmIndex::open(&path, LoadOptions::default()).unwrap_err();
        let message = error.to_string();
        match cut {
            0..8 => assert!(
                matches!(error, LoadError::Foreign { .. }),
                "{cut}: {message}"
            ),
            _ => assert!(
                matches!(error, LoadError::Truncated { .. }),
                "{cut}: {message}"
            ),
        }
        assert!(message.contains("t.sfi"), "{message}");
    }
}

#[test]
fn foreign_and_other_version_files_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let fasta = write(dir.path(), "ref.fa", &b">chr1\nACGT\n".repeat(2000));
    let e = FmIndex::open(&fasta, LoadOptions::default()).unwrap_err();
    assert!(matches!(e, LoadError::Foreign { .. }), "{e}");
    assert!(e.to_string().contains("not a seqfarm index"));
    // Version 1 (before the superblock shift entered the header) and a future one.
    for version in [1u8, 3] {
        let mut bytes = index_bytes();
        bytes[8] = version;
        let path = write(dir.path(), "v.sfi", &bytes);
        let e = FmIndex::open(&path, LoadOptions::default()).unwrap_err();
        assert!(
            matches!(e, LoadError::Version { found, .. } if found == u32::from(version)),
            "{e}"
        );
    }
    let missing = FmIndex::open(dir.path().join("none.sfi"), LoadOptions::default()).unwrap_err();
    assert!(matches!(missing, LoadError::Io { .. }));
}

#[test]
fn every_damaged_byte_is_detected() {
    let bytes = index_bytes();
    let dir = tempfile::tempdir().unwrap();
    let mut positions: Vec<usize> = (12..TABLE + 32 * SECTIONS + 8).step_by(5).collect();
    for (offset, len) in sections(&bytes) {
        positions.extend([offset, offset + len / 3, offset + len / 2, offset + len - 1]);
    }
    for at in positions {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x10;
        let path = write(dir.path(), "d.sfi", &damaged);
        let result = FmIndex::open(&path, LoadOptions::default());
        assert!(result.is_err(), "flipped byte {at} was not detected");
        // Without checksum verification, the load may succeed, but the check fails.
        let quick = FmIndex::open(
            &path,
            LoadOptions {
                mode: LoadMode::Mmap,
                verify_checksums: false,
                ..LoadOptions::default()
            },
        );
        if let Ok(index) = quick {
            assert!(index.check().is_err(), "flipped byte {at} passed the check");
            // The checksum pass run beside the work finds it too, unless told to stop.
            let in_section = sections(&bytes)
                .iter()
                .any(|&(offset, len)| (offset..offset + len).contains(&at));
            if in_section {
                let err = index.verify_checksums(&AtomicBool::new(false));
                assert!(
                    matches!(err, Err(LoadError::Checksum { .. })),
                    "flipped byte {at}: {err:?}"
                );
            }
            assert!(matches!(
                index.verify_checksums(&AtomicBool::new(true)),
                Ok(false)
            ));
        }
    }
    let intact = FmIndex::open(
        write(dir.path(), "i.sfi", &bytes),
        LoadOptions {
            mode: LoadMode::Mmap,
            verify_checksums: false,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert!(matches!(
        intact.verify_checksums(&AtomicBool::new(false)),
        Ok(true)
    ));
}

#[test]
fn forged_files_with_valid_checksums_fail_the_check() {
    let bytes = index_bytes();
    let dir = tempfile::tempdir().unwrap();
    let layout = sections(&bytes);
    // A block count, a BWT bit, a sample, a k-mer entry and a packed base.
    let targets = [
        layout[1].0 + 64 * 3 + 4,
        layout[1].0 + 64 * 5 + 20,
        layout[4].0 + 8,
        layout[5].0 + 8 * 30 + 6,
        layout[6].0 + 100,
    ];
    for at in targets {
        let mut forged = bytes.clone();
        forged[at] ^= 0x40;
        reseal(&mut forged);
        let path = write(dir.path(), "f.sfi", &forged);
        match FmIndex::open(&path, LoadOptions::default()) {
            Ok(index) => assert!(index.check().is_err(), "forged byte {at} passed the check"),
            Err(e) => assert!(matches!(e, LoadError::Corrupt { .. }), "{e}"),
        }
    }
}
