//! `seqfarm search`: parasail's golden scores, BLAST-checked tabular lines, every kernel
//! and thread count giving the same bytes, and clear errors on bad input.

use std::collections::BTreeMap;
use std::path::Path;

use seqfarm_sw::{scalar, ScoreMatrix, Scoring};

use crate::support::{data, file_bytes, peer, run, seqfarm, shared_data, truncated_gzip};

/// Reads a (possibly gzipped) text file.
pub(crate) fn read_text(path: &Path) -> String {
    String::from_utf8(crate::support::file_bytes(path)).expect("utf-8")
}

/// `query subject score` lines as a map (the order is checked elsewhere).
pub(crate) fn score_map(text: &str) -> BTreeMap<(String, String), i64> {
    text.lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 3, "{line}");
            (
                (f[0].to_string(), f[1].to_string()),
                f[2].parse().expect("score"),
            )
        })
        .collect()
}

/// Runs `seqfarm search ARGS`, which must succeed; returns its output and standard error.
pub(crate) fn search(args: &[&str]) -> (String, String) {
    let out = run(&[&["search"][..], args].concat());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "seqfarm search {args:?} failed: {stderr}"
    );
    (String::from_utf8(out.stdout).expect("utf-8"), stderr)
}

/// A path as the command-line argument it is given as.
pub(crate) fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn scores_equal_parasail_on_the_bundled_database() {
    let (query, db) = (data("sw_q10.fa"), data("sw_db1500.fa.gz"));
    let (out, stderr) = search(&["--scores-only", path(&query), path(&db)]);
    let expected = read_text(&data("sw_q10_vs_db1500.blosum62_11_1.tsv.gz"));
    assert_eq!(score_map(&out), score_map(&expected));
    assert_eq!(out.lines().count(), 15_000);
    assert!(
        stderr.contains("1500 sequences") && stderr.contains("GCUPS"),
        "{stderr}"
    );
}

/// The names (first words of the headers) of a FASTA text, in file order.
pub(crate) fn fasta_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix('>'))
        .map(|h| h.split_whitespace().next().unwrap_or("").to_string())
        .collect()
}

/// Runs Debian's `parasail_aligner` (every pair, no suffix-array filter) with the scoring
/// options `scoring` (such as `-m blosum62 -o 12 -e 1`) and returns its scores keyed by
/// query and subject name.
pub(crate) fn parasail_scores(
    dir: &Path,
    query: &Path,
    db: &Path,
    scoring: &str,
) -> BTreeMap<(String, String), i64> {
    let csv = dir.join(format!("parasail{}.csv", scoring.replace(' ', "")));
    // parasail_aligner refuses to run when standard input is open but not a terminal.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "parasail_aligner -x -a sw_striped_profile_16 {scoring} \
             -t 1 -q '{}' -f '{}' -g '{}' <&- >/dev/null",
            path(query),
            path(db),
            path(&csv)
        ))
        .status()
        .expect("sh runs");
    assert!(status.success(), "parasail_aligner failed");
    let queries = fasta_names(&read_text(query));
    let subjects = fasta_names(&read_text(db));
    read_text(&csv)
        .lines()
        .map(|line| {
            // query index, subject index, query length, subject length, score, ends
            let f: Vec<&str> = line.split(',').collect();
            let index = |i: usize| f[i].parse::<usize>().expect("index");
            (
                (queries[index(0)].clone(), subjects[index(1)].clone()),
                f[4].parse().expect("score"),
            )
        })
        .collect()
}

/// The same pairs scored by seqfarm and by the installed parasail, with two matrices and
/// gap costs (seqfarm's BLAST-style open/extend is parasail's open + extend/extend).
#[test]
fn scores_equal_the_installed_parasail() {
    if !peer("parasail_aligner") {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("db300.fa");
    let text = read_text(&data("sw_db1500.fa.gz"));
    let cut = text
        .match_indices('>')
        .nth(300)
        .map_or(text.len(), |(i, _)| i);
    std::fs::write(&db, &text[..cut]).expect("write");
    let query = data("sw_q10.fa");
    for (matrix, ours, theirs) in [("BLOSUM62", (11, 1), (12, 1)), ("PAM30", (9, 1), (10, 1))] {
        let (out, _) = search(&[
            "--scores-only",
            "--matrix",
            matrix,
            "--gap-open",
            &ours.0.to_string(),
            "--gap-extend",
            &ours.1.to_string(),
            path(&query),
            path(&db),
        ]);
        let scoring = format!(
            "-m {} -o {} -e {}",
            matrix.to_lowercase(),
            theirs.0,
            theirs.1
        );
        let expected = parasail_scores(dir.path(), &query, &db, &scoring);
        assert_eq!(expected.len(), 3000);
        assert_eq!(score_map(&out), expected, "{matrix}");
    }
}

#[test]
fn scores_equal_parasail_on_all_200000_pairs() {
    let (Some(query), Some(db), Some(golden)) = (
        shared_data("sw-search/q10.fa"),
        shared_data("proteins/mmseqs2_uniprot_sample/DB.fasta.gz"),
        shared_data("sw-search/expected/q10_vs_DB_blosum62_open11_extend1.tsv.gz"),
    ) else {
        eprintln!("note: shared data not found; the 200,000-pair golden test is skipped");
        return;
    };
    let (out, _) = search(&["--scores-only", path(&query), path(&db)]);
    let got = score_map(&out);
    assert_eq!(got.len(), 200_000);
    assert_eq!(got, score_map(&read_text(&golden)));
}

/// Lines of BLAST's `-outfmt 6` for hits in the bundled database, checked against
/// blastp 2.12 (`-comp_based_stats 0 -seg no`, classic statistics via `OLD_FSC=1`,
/// same database) column by column.
const BLAST_CHECKED: &[&str] = &[
    "tr|A0A0W7XYV8|A0A0W7XYV8_9BACI\ttr|A0A0F5X669|A0A0F5X669_STACC\t63.152\t920\t328\t6\t1\t916\t1\t913\t0.0\t1208",
    "tr|H6QJ35|H6QJ35_RICMA\ttr|Q03SP8|Q03SP8_LACBA\t37.299\t311\t183\t7\t39\t344\t30\t333\t7.37e-49\t187",
    "tr|H6QJ35|H6QJ35_RICMA\ttr|S6GAS6|S6GAS6_ANAPH\t59.040\t354\t143\t2\t1\t352\t1\t354\t1.27e-117\t415",
    "tr|Q8WWJ3|Q8WWJ3_HUMAN\ttr|M4D4X7|M4D4X7_BRARP\t38.333\t60\t28\t2\t567\t626\t28\t78\t0.001\t38.1",
    "tr|V4L6R8|V4L6R8_9DELT\tsp|A0RMD6|NUOI_CAMFF\t55.147\t136\t59\t2\t1\t135\t1\t135\t3.07e-40\t156",
];

#[test]
fn top_hits_match_blast_tabular_lines() {
    let (query, db) = (data("sw_q10.fa"), data("sw_db1500.fa.gz"));
    let (out, _) = search(&["--top", "5", path(&query), path(&db)]);
    for line in BLAST_CHECKED {
        assert!(out.lines().any(|l| l == *line), "missing {line}\n{out}");
    }
    // The default E-value cut-off, 10, as BLAST's.
    let evalues: Vec<f64> = out
        .lines()
        .map(|l| l.split('\t').nth(10).unwrap().parse().unwrap())
        .collect();
    assert!(evalues.iter().all(|&e| e <= 10.0), "{out}");
    let (all, _) = search(&["--top", "5", "--evalue", "1e9", path(&query), path(&db)]);
    assert!(all.lines().count() > out.lines().count());
    // Ten queries, five hits each, best first within a query.
    let (out, _) = search(&[
        "--top",
        "5",
        "--top-strict",
        "--evalue",
        "1e9",
        path(&query),
        path(&db),
    ]);
    assert_eq!(out.lines().count(), 50);
    let bits: Vec<f64> = out
        .lines()
        .take(5)
        .map(|l| l.rsplit('\t').next().unwrap().parse().unwrap())
        .collect();
    assert!(bits.windows(2).all(|w| w[0] >= w[1]), "{bits:?}");
}

#[test]
fn hand_checked_traceback() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = (dir.path().join("q.fa"), dir.path().join("d.fa"));
    std::fs::write(&q, ">q1\nKKWWWWWWKK\n>q2\nmkv\n").unwrap();
    std::fs::write(&d, ">s1 one gap\nPPWWWAWWWPP\n>s2\nMRV\n>s3\nPPPP\n").unwrap();
    let (out, _) = search(&["--top", "1", path(&q), path(&d)]);
    let fields: Vec<Vec<&str>> = out.lines().map(|l| l.split('\t').collect()).collect();
    // WWW-WWW over WWWAWWW: 6 identities in 7 columns, one gap, score 66 - 12 = 54.
    assert_eq!(
        fields[0][..10],
        ["q1", "s1", "85.714", "7", "0", "1", "3", "8", "3", "9"]
    );
    assert_eq!(fields[0][11], "25.4", "(0.267 * 54 - ln 0.041) / ln 2");
    // Lowercase query: M/M 5 + K/R 2 + V/V 4 = 11, one mismatch.
    assert_eq!(
        fields[1][..10],
        ["q2", "s2", "66.667", "3", "1", "0", "1", "3", "1", "3"]
    );
    assert_eq!(fields.len(), 2, "{out}");
    let (all, _) = search(&[path(&q), path(&d)]);
    assert!(
        !all.contains("s3"),
        "zero-score hits are not reported:\n{all}"
    );
}

#[test]
fn every_kernel_gives_the_same_scores() {
    let dir = tempfile::tempdir().unwrap();
    let query = dir.path().join("q.fa");
    let text = std::fs::read_to_string(data("sw_q10.fa")).unwrap();
    let three: String = text.split_inclusive('>').take(4).collect();
    std::fs::write(&query, three.trim_end_matches('>')).unwrap();
    let db = data("sw_db1500.fa.gz");
    let mut outputs = Vec::new();
    for simd in ["scalar", "avx2", "avx512"] {
        let out = seqfarm()
            .env("SEQFARM_SIMD", simd)
            .args(["search", "--scores-only", "--chunk-size", "40000"])
            .args([&query, &db])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            assert!(stderr.contains("lacks"), "{simd}: {stderr}");
            eprintln!("note: {simd} is not supported here: {stderr}");
            continue;
        }
        assert!(stderr.contains(&format!("{simd} kernel")), "{stderr}");
        outputs.push((simd, out.stdout));
    }
    assert!(outputs.len() >= 2, "scalar and at least one SIMD path ran");
    for (simd, out) in &outputs[1..] {
        assert!(out == &outputs[0].1, "{simd} differs from scalar");
    }
}

#[test]
fn identical_output_at_one_and_two_threads() {
    let (query, db) = (data("sw_q10.fa"), data("sw_db1500.fa.gz"));
    for mode in [&["--scores-only"][..], &["--top", "7"][..]] {
        let mut outputs = Vec::new();
        for (threads, chunk) in [("1", "1000000"), ("2", "1000000"), ("2", "3000")] {
            let args = [
                mode,
                &[
                    "-t",
                    threads,
                    "--chunk-size",
                    chunk,
                    path(&query),
                    path(&db),
                ][..],
            ]
            .concat();
            outputs.push(search(&args).0);
        }
        assert!(outputs.iter().all(|o| o == &outputs[0]), "{mode:?}");
    }
}

/// A database of one chunk (under 1 MiB) is scored by both workers, each chunk's
/// queries shared among tasks, and the output is the one thread's.
#[test]
fn a_database_of_one_chunk_keeps_two_workers_busy() {
    let dir = tempfile::tempdir().unwrap();
    let stats = dir.path().join("stats.json");
    let (query, db) = (data("sw_q10.fa"), data("sw_db1500.fa.gz"));
    for mode in ["--scores-only", "--json"] {
        let files = [path(&query), path(&db)];
        let (one, _) = search(&[&[mode, "-t", "1"][..], &files].concat());
        let two_args = [mode, "-t", "2", "--force", "--stats", path(&stats)];
        let (two, _) = search(&[&two_args[..], &files].concat());
        assert!(one == two, "{mode}: one and two threads differ");
        // Without --scores-only the tracebacks are tasks too: the scan's are its alone.
        if mode == "--scores-only" {
            assert_every_worker_had_a_task(&stats);
            // The same from standard input, whose size is known once it is read.
            let piped = seqfarm()
                .args(["search", mode, "-t", "2", "--force", "--stats"])
                .args([&stats, &query])
                .arg("-")
                .stdin(std::fs::File::open(&db).unwrap())
                .output()
                .unwrap();
            assert!(piped.status.success());
            assert!(piped.stdout == one.as_bytes(), "from standard input");
            assert_every_worker_had_a_task(&stats);
        }
    }
}

/// Fails unless every worker of the farm whose statistics are in `stats` had a task.
fn assert_every_worker_had_a_task(stats: &Path) {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stats).unwrap()).unwrap();
    for worker in v["workers"].as_array().expect("workers") {
        assert!(worker["tasks"].as_u64() > Some(0), "{v}");
    }
}

/// With more than 16 queries `--scores-only` cuts smaller chunks, each grown until it
/// holds its longest record 64 times (or reaches the chunk size): the same bytes at any
/// chunk size and thread count.
#[test]
fn scores_only_with_many_queries_is_the_same_at_any_chunk_size() {
    let dir = tempfile::tempdir().unwrap();
    let queries = dir.path().join("q30.fa");
    let text = std::fs::read_to_string(data("sw_q10.fa")).unwrap();
    std::fs::write(&queries, text.repeat(3)).unwrap();
    let db = data("sw_db1500.fa.gz");
    let outputs: Vec<String> = [("1", "10000000"), ("2", "3000"), ("2", "200000")]
        .into_iter()
        .map(|(threads, chunk)| {
            let args = ["--scores-only", "-t", threads, "--chunk-size", chunk];
            search(&[&args[..], &[path(&queries), path(&db)]].concat()).0
        })
        .collect();
    assert_eq!(outputs[0].lines().count(), 30 * 1500);
    assert!(outputs.iter().all(|o| o == &outputs[0]));
}

#[test]
fn output_file_is_atomic_and_replaced_when_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hits.tsv");
    let (query, db) = (data("sw_q10.fa"), data("sw_db1500.fa.gz"));
    let args = [
        "search",
        "--top",
        "1",
        "--top-strict",
        "-o",
        path(&out),
        path(&query),
        path(&db),
    ];
    assert!(run(&args).status.success());
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 10);
    std::fs::write(&out, "old").unwrap();
    let again = run(&args);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 10);
    let forced = [&args[..], &["--force"]].concat();
    assert!(run(&forced).status.success());
}

#[test]
fn dna_and_other_matrices() {
    let dir = tempfile::tempdir().unwrap();
    let (q, d) = (dir.path().join("q.fa"), dir.path().join("d.fa"));
    std::fs::write(&q, ">q\nACGTTAGCTAGGATCAACGT\n").unwrap();
    std::fs::write(
        &d,
        ">d1\nACGTACGTTAGCTAGCTAGGATCNNACGT\n>d2\nTTTTACGTAGCTAGGATCAAACGTGGG\n",
    )
    .unwrap();
    let (out, _) = search(&["--dna", "--scores-only", path(&q), path(&d)]);
    let scoring = Scoring::new(ScoreMatrix::dna(2, -3).unwrap(), 5, 2).unwrap();
    let m = scoring.matrix();
    let expected: Vec<String> = [
        &b"ACGTACGTTAGCTAGCTAGGATCNNACGT"[..],
        b"TTTTACGTAGCTAGGATCAAACGTGGG",
    ]
    .iter()
    .zip(["d1", "d2"])
    .map(|(d, name)| {
        let score = scalar::score(&scoring, &m.encode(b"ACGTTAGCTAGGATCAACGT"), &m.encode(d));
        format!("q\t{name}\t{score}")
    })
    .collect();
    assert_eq!(out.lines().collect::<Vec<_>>(), expected);
    let (table, stderr) = search(&[
        "--top-strict",
        "--evalue",
        "1e9",
        "--matrix",
        "PAM30",
        path(&data("sw_q10.fa")),
        path(&data("sw_db1500.fa.gz")),
    ]);
    assert_eq!(table.lines().count(), 100);
    assert!(
        !stderr.contains("warning"),
        "PAM30 9/1 has BLAST statistics: {stderr}"
    );
    let (_, stderr) = search(&[
        "--gap-open",
        "3",
        "--gap-extend",
        "3",
        path(&data("sw_q10.fa")),
        path(&data("sw_db1500.fa.gz")),
    ]);
    assert!(stderr.contains("no Karlin-Altschul parameters"), "{stderr}");
}

#[test]
fn the_wrong_alphabet_for_the_scoring_is_refused_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let dna_q = dir.path().join("dna_q.fa");
    let dna_d = dir.path().join("dna_d.fa");
    std::fs::write(&dna_q, ">q\nACGTTAGCTAGGATCAACGTACGTAGCTA\n").unwrap();
    std::fs::write(&dna_d, ">d\nTTTTACGTAGCTAGGATCAAACGTGGGACGT\n").unwrap();
    let protein = data("sw_q10.fa");
    let db = data("sw_db1500.fa.gz");
    let cases: [(&[&str], &str, &str); 4] = [
        // DNA scored with BLOSUM62: the queries, then the database.
        (&[path(&dna_q), path(&dna_d)], "dna_q.fa", "add --dna"),
        (&[path(&protein), path(&dna_d)], "dna_d.fa", "add --dna"),
        // Protein scored as DNA.
        (
            &["--dna", path(&protein), path(&db)],
            "sw_q10.fa",
            "leave out --dna",
        ),
        (
            &["--dna", path(&dna_q), path(&db)],
            "sw_db1500.fa.gz",
            "leave out --dna",
        ),
    ];
    for (args, file, hint) in cases {
        let out = run(&[&["search"][..], args].concat());
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?} accepted: {e}");
        assert!(e.contains(file) && e.contains(hint), "{args:?}: {e}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn a_letter_missing_from_a_custom_matrix_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let matrix = dir.path().join("tiny.txt");
    std::fs::write(&matrix, "   A  B\nA  2 -1\nB -1  3\n").unwrap();
    let (good, bad) = (dir.path().join("good.fa"), dir.path().join("bad.fa"));
    std::fs::write(&good, ">g\nAABBA\n").unwrap();
    std::fs::write(&bad, ">g\nAABBA\n>b\nAABZA\n").unwrap();
    for args in [[path(&good), path(&bad)], [path(&bad), path(&good)]] {
        let out = run(&[&["search", "--matrix", path(&matrix)][..], &args[..]].concat());
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{e}");
        assert!(
            e.contains("bad.fa") && e.contains("sequence b") && e.contains("letter 'Z'"),
            "{e}"
        );
    }
}

#[test]
fn top_0_is_a_usage_error() {
    let q = data("sw_q10.fa");
    let out = run(&["search", "--top", "0", path(&q), path(&q)]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{e}");
    assert!(e.contains("--top"), "{e}");
}

#[test]
fn negative_numbers_get_the_option_s_own_error() {
    let q = data("sw_q10.fa");
    for (option, value, said) in [
        ("--evalue", "-1", "must be above 0"),
        ("--gap-open", "-1", "gap costs must be at least 0"),
        ("--gap-extend", "-2", "gap costs must be at least 0"),
    ] {
        let out = run(&["search", option, value, path(&q), path(&q)]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && e.contains(said),
            "{option} {value}: {e}"
        );
    }
}

#[test]
fn custom_matrix_file() {
    let dir = tempfile::tempdir().unwrap();
    let matrix = dir.path().join("tiny.txt");
    std::fs::write(&matrix, "# two letters\n   A  B\nA  2 -1\nB -1  3\n").unwrap();
    let (q, d) = (dir.path().join("q.fa"), dir.path().join("d.fa"));
    std::fs::write(&q, ">q\nAABBA\n").unwrap();
    std::fs::write(&d, ">d\nAABBA\n").unwrap();
    let (out, _) = search(&[
        "--matrix",
        path(&matrix),
        "--scores-only",
        path(&q),
        path(&d),
    ]);
    assert_eq!(out, "q\td\t12\n");
    let bad = run(&["search", "--matrix", "NOPE62", path(&q), path(&d)]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("NOPE62"));
}

#[test]
fn bad_fasta_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.fa");
    std::fs::write(&good, ">q\nMKV\n").unwrap();
    let cases: [(&str, &[u8], &str); 4] = [
        ("noheader.fa", b"MKVLAA\n>x\nMKV\n", "before the first '>'"),
        ("empty.fa", b"", "empty FASTA"),
        (
            "junk.fa",
            b">x\nMK\x00\x01\xff\xfeV\n",
            "cannot be part of a sequence",
        ),
        ("noname.fa", b">\nMKV\n", "no name"),
    ];
    for (name, content, expected) in cases {
        let bad = dir.path().join(name);
        std::fs::write(&bad, content).unwrap();
        for args in [[path(&good), path(&bad)], [path(&bad), path(&good)]] {
            let out = run(&[&["search"][..], &args[..]].concat());
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!out.status.success(), "{name} accepted");
            assert!(
                stderr.contains(name) && stderr.contains(expected),
                "{name}: {stderr}"
            );
            assert!(!stderr.contains("panicked"), "{stderr}");
        }
    }
    // A database cut short: the error names the offset its text stops at.
    let (cut, inflated) = truncated_gzip(&file_bytes(&data("sw_db1500.fa.gz")));
    let cut_path = dir.path().join("cut.fa.gz");
    std::fs::write(&cut_path, cut).unwrap();
    let out = run(&["search", path(&good), path(&cut_path)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    let offset = format!("(at byte offset {})", inflated.len());
    assert!(
        stderr.contains("cut.fa.gz: cannot read: ") && stderr.contains(&offset),
        "{stderr}"
    );
    let missing = run(&["search", path(&good), "/no/such/db.fa"]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/no/such/db.fa"));
    let both = run(&["search", "-", "-"]);
    assert!(!both.status.success());
}
