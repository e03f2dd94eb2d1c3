//! `seqfarm search --gpu`: on an NVIDIA GPU the scores equal the CPU path's (and so
//! parasail's) for every built-in matrix, non-default gaps, DNA on both strands, scores
//! past 16 bits, and edge-case queries (empty, 1 residue, 40,000 residues), at several
//! thread counts. Where no GPU can be used, the tests that need one say they were
//! skipped, and the fallbacks are checked instead.

use std::path::Path;

use crate::search::{path, read_text, search};
use crate::search_options::fasta;
use crate::support::{data, run};

/// Why no GPU can be used here, or `None` when one can. Any other failure of `--gpu` is
/// a bug and fails the test.
fn no_gpu_reason() -> Option<String> {
    let out = run(&[
        "search",
        "--gpu",
        "--scores-only",
        path(&data("sw_q10.fa")),
        path(&data("sw_db1500.fa.gz")),
    ]);
    if out.status.success() {
        return None;
    }
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let reasons = ["no NVIDIA CUDA driver", "no NVRTC", "sees no GPU"];
    assert!(
        reasons.iter().any(|r| stderr.contains(r)),
        "--gpu failed for another reason than a missing GPU: {stderr}"
    );
    Some(stderr.trim().to_string())
}

/// Whether the GPU tests can run; prints that they were skipped when not.
fn gpu_or_skip(test: &str) -> bool {
    match no_gpu_reason() {
        None => true,
        Some(reason) => {
            eprintln!("{test}: skipped, no GPU ({reason})");
            false
        }
    }
}

/// Checks that `--gpu` at 1 and 3 threads writes the bytes the CPU path writes.
fn gpu_equals_cpu(args: &[&str]) {
    let (cpu, _) = search(&[&["-t", "2"][..], args].concat());
    for threads in ["1", "3"] {
        let (gpu, stderr) = search(&[&["--gpu", "-t", threads][..], args].concat());
        assert!(stderr.contains("GPU "), "{stderr}");
        assert!(
            gpu == cpu,
            "--gpu -t {threads} {args:?}: scores differ from the CPU's"
        );
    }
}

#[test]
fn gpu_scores_equal_the_cpu_for_every_matrix() {
    if !gpu_or_skip("gpu_scores_equal_the_cpu_for_every_matrix") {
        return;
    }
    let (query, db) = (data("sw_q10.fa"), data("sw_db1500.fa.gz"));
    for matrix in [
        "BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "BLOSUM90", "PAM30", "PAM70", "PAM250",
    ] {
        gpu_equals_cpu(&["--scores-only", "--matrix", matrix, path(&query), path(&db)]);
    }
    for (open, extend) in [("0", "1"), ("5", "2"), ("20", "3")] {
        gpu_equals_cpu(&[
            "--scores-only",
            "--gap-open",
            open,
            "--gap-extend",
            extend,
            path(&query),
            path(&db),
        ]);
    }
    // The reported hits too (scores, then traceback on the CPU).
    gpu_equals_cpu(&["--top", "5", path(&query), path(&db)]);
    let (gpu, _) = search(&["--gpu", "--scores-only", path(&query), path(&db)]);
    let expected = read_text(&data("sw_q10_vs_db1500.blosum62_11_1.tsv.gz"));
    assert_eq!(
        crate::search::score_map(&gpu),
        crate::search::score_map(&expected),
        "parasail's scores"
    );
}

#[test]
fn gpu_scores_dna_on_both_strands() {
    if !gpu_or_skip("gpu_scores_dna_on_both_strands") {
        return;
    }
    let (query, db) = (data("search_dna_q.fa"), data("search_dna_db.fa.gz"));
    gpu_equals_cpu(&["--dna", "--scores-only", path(&query), path(&db)]);
    gpu_equals_cpu(&["--dna", "--top", "3", path(&query), path(&db)]);
}

/// Writes a FASTA file of `(name, sequence)` records.
fn write_fasta(file: &Path, records: &[(&str, String)]) {
    let text: String = records
        .iter()
        .map(|(name, seq)| fasta(name, seq.as_bytes()))
        .collect();
    std::fs::write(file, text).unwrap();
}

#[test]
fn gpu_scores_edge_case_queries_and_scores_past_16_bits() {
    if !gpu_or_skip("gpu_scores_edge_case_queries_and_scores_past_16_bits") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A 40,000-residue query made of the database's own sequences, so it scores high.
    let db_text = read_text(&data("sw_db1500.fa.gz"));
    let residues: String = db_text
        .lines()
        .filter(|l| !l.starts_with('>'))
        .collect::<String>()
        .chars()
        .take(40_000)
        .collect();
    assert_eq!(residues.len(), 40_000);
    let queries = dir.path().join("edge.fa");
    write_fasta(
        &queries,
        &[
            ("empty", String::new()),
            ("one", "W".into()),
            ("long", residues.clone()),
            ("walls", "W".repeat(3_200)),
        ],
    );
    // Subjects whose best scores pass 32767 (and so are rescored at 32 bits): the long
    // query's own first 20,000 residues, and 3,200 W (35,200).
    let db = dir.path().join("db.fa");
    write_fasta(
        &db,
        &[
            ("half", residues[..20_000].to_string()),
            ("walls", "W".repeat(3_200)),
            ("short", "MKW".into()),
            ("none", String::new()),
        ],
    );
    gpu_equals_cpu(&["--scores-only", path(&queries), path(&db)]);
    let (gpu, stderr) = search(&["--gpu", "--scores-only", path(&queries), path(&db)]);
    assert!(gpu.contains("walls\twalls\t35200\n"), "{gpu}");
    assert!(
        !stderr.contains(" 0 at 32 bits"),
        "rescored at 32 bits: {stderr}"
    );
    // Against the bundled database, where every query is scored against 1,500 proteins.
    gpu_equals_cpu(&[
        "--scores-only",
        path(&queries),
        path(&data("sw_db1500.fa.gz")),
    ]);
}

#[test]
fn without_a_gpu_gpu_is_an_error_and_auto_uses_the_cpu() {
    let Some(reason) = no_gpu_reason() else {
        eprintln!("without_a_gpu_gpu_is_an_error_and_auto_uses_the_cpu: skipped, a GPU is present");
        return;
    };
    assert!(reason.contains("--gpu"), "{reason}");
    let (query, db) = (data("sw_q10.fa"), data("sw_db1500.fa.gz"));
    let (cpu, _) = search(&["--scores-only", path(&query), path(&db)]);
    for spelling in [&["--gpu=auto"][..], &["--gpu", "auto"][..]] {
        let (auto, stderr) =
            search(&[spelling, &["--scores-only", path(&query), path(&db)][..]].concat());
        assert_eq!(auto, cpu);
        assert!(
            stderr.contains("no GPU used") && stderr.contains("on the CPU"),
            "{stderr}"
        );
    }
    let (off, _) = search(&["--gpu", "off", "--scores-only", path(&query), path(&db)]);
    assert_eq!(off, cpu);
}
