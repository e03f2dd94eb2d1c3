//! The marking as a library call: what `memory` changes.

use super::*;

#[test]
fn read_ends_beyond_the_memory_go_to_runs_and_mark_the_same() {
    let input = PathBuf::from(format!(
        "{}/../../tests/data/bam/chm1.bam",
        env!("CARGO_MANIFEST_DIR")
    ));
    let dir = tempfile::tempdir().unwrap();
    let mark = |memory: usize, name: &str| {
        let output = dir.path().join(name);
        let options = MarkdupOptions {
            input: input.clone(),
            output: output.clone(),
            memory,
            ..MarkdupOptions::default()
        };
        let summary = run(&options).unwrap();
        (summary, std::fs::read(output).unwrap())
    };
    let (in_memory, bam) = mark(MarkdupOptions::default().memory, "all.bam");
    let (spilled, spilled_bam) = mark(1 << 20, "runs.bam");
    assert_eq!(in_memory.spilled_runs, 0);
    assert!(spilled.spilled_runs > 1, "{}", spilled.spilled_runs);
    let spilled = MarkdupSummary {
        spilled_runs: 0,
        ..spilled
    };
    assert_eq!(spilled, in_memory);
    assert!(in_memory.duplicates > 0);
    assert_eq!(spilled_bam, bam);
}
