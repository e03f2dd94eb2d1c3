//! Replays every input kept in `fuzz/seeds/<target>/` (valid files each target starts
//! from) and `fuzz/regressions/<target>/` (every input that ever crashed, hung or
//! allocated without bound) through its target.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use seqfarm_fuzzing::TARGETS;

/// No input may take longer than this (the fuzzer's own limit is 10 s).
const SLOW: Duration = Duration::from_secs(10);

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

fn replay(kind: &str) -> usize {
    let mut replayed = 0;
    for target in TARGETS {
        for file in files(&fuzz_dir().join(kind).join(target.name)) {
            let data = std::fs::read(&file).unwrap();
            let start = Instant::now();
            (target.run)(&data);
            let took = start.elapsed();
            assert!(took < SLOW, "{} took {took:?}", file.display());
            replayed += 1;
        }
    }
    replayed
}

#[test]
fn every_target_has_seeds_and_runs_them() {
    for target in TARGETS {
        let seeds = files(&fuzz_dir().join("seeds").join(target.name));
        assert!(!seeds.is_empty(), "no seeds for target {}", target.name);
    }
    assert!(replay("seeds") >= TARGETS.len());
}

#[test]
fn every_input_that_ever_failed_runs_cleanly() {
    replay("regressions");
}

#[test]
fn every_fuzz_binary_names_a_target() {
    let binaries = files(&fuzz_dir().join("fuzz_targets"));
    let names: Vec<String> = binaries
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    let mut expected: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    expected.sort();
    assert_eq!(names, expected);
}
