//! `seqfarm search` options end to end: long database records cut into pieces and
//! fragments reporting what whole records report, the cut-offs (--min-score, --evalue,
//! --top ties, --max-hsps) and the output formats (--outfmt 6 and 7, --json).

use std::path::Path;

use crate::search::{path, search};
use crate::search_blast::{assert_strand_scores_are_parasail_scores, dna_queries, SHORT_QUERIES};
use crate::support::{data, peer, random_dna, reverse_complement, run, seqfarm};

/// Every `step`-th base of `seq` changed (A to C, C to G, ...).
fn substituted(seq: &[u8], step: usize) -> Vec<u8> {
    let mut out = seq.to_vec();
    for b in out.iter_mut().skip(step / 2).step_by(step) {
        *b = match *b {
            b'A' => b'C',
            b'C' => b'G',
            b'G' => b'T',
            _ => b'A',
        };
    }
    out
}

/// A FASTA record with 80-column lines.
pub(crate) fn fasta(name: &str, seq: &[u8]) -> String {
    let mut text = format!(">{name}\n");
    for line in seq.chunks(80) {
        text.push_str(std::str::from_utf8(line).unwrap());
        text.push('\n');
    }
    text
}

/// Writes queries and a database with a 1.2 Mb record (longer than a piece of 64
/// fragments of 16 Ki residues) between two short ones into `dir`. Copies of the queries
/// are planted across the first piece's end (residue 1,016,605 with `--chunk-size
/// 4096`: 64 x 16,083 bytes of 80-residue lines), across fragment ends (fragments start
/// every 16,083 residues for a 150-residue query), on both strands, and in the short
/// records. Returns the query and database paths.
pub(crate) fn long_record_files(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let a = random_dna(150, 1);
    let b = random_dna(60, 2);
    let mut long = random_dna(1_200_000, 3);
    let mut plant = |at: usize, seq: &[u8]| long[at..at + seq.len()].copy_from_slice(seq);
    plant(1_016_530, &reverse_complement(&a));
    plant(16_100, &substituted(&a, 10));
    plant(16_083 * 7 - 70, &substituted(&a, 12));
    plant(600_000, &b);
    plant(1_100_000, &reverse_complement(&substituted(&b, 15)));
    let mut short2 = random_dna(3_000, 4);
    short2[1000..1060].copy_from_slice(&reverse_complement(&b));
    let query = dir.join("q.fa");
    std::fs::write(&query, fasta("a", &a) + &fasta("b", &b)).unwrap();
    let db = dir.join("db.fa");
    let text =
        fasta("short1", &random_dna(5_000, 5)) + &fasta("long", &long) + &fasta("short2", &short2);
    std::fs::write(&db, text).unwrap();
    (query, db)
}

/// A 1.2 Mb database record cut into pieces (and those into fragments) reports the same
/// bytes whatever the chunk size, thread count and kernel, in every output mode, the
/// scores parasail finds in the whole record, and the alignments a short record holding
/// the same region reports.
#[test]
fn long_records_cut_into_pieces_report_what_whole_records_report() {
    let dir = tempfile::tempdir().unwrap();
    let (query, db) = long_record_files(dir.path());
    let modes: [&[&str]; 3] = [
        &[],
        &["--outfmt", "6 std qseq sseq score"],
        &["--scores-only"],
    ];
    for mode in modes {
        let mut outputs = Vec::new();
        for (chunk, threads) in [
            ("1048576", "1"),
            ("4096", "1"),
            ("4096", "2"),
            ("3000000", "2"),
        ] {
            let args = [
                &["--dna", "--chunk-size", chunk, "-t", threads][..],
                mode,
                &[path(&query), path(&db)],
            ]
            .concat();
            outputs.push(search(&args).0);
        }
        assert!(outputs.iter().all(|o| o == &outputs[0]), "{mode:?}");
        if mode.len() == 2 {
            let scalar = seqfarm()
                .env("SEQFARM_SIMD", "scalar")
                .args(["search", "--dna", "--chunk-size", "4096", "-t", "2"])
                .args(mode)
                .args([&query, &db])
                .output()
                .unwrap();
            assert!(scalar.status.success());
            assert_eq!(String::from_utf8(scalar.stdout).unwrap(), outputs[0]);
            let lines: Vec<&str> = outputs[0].lines().collect();
            // a: the exact copy across the piece end (minus), then the better
            // substituted one (plus); b: the exact copy in the long record (plus), the
            // one in short2 (minus).
            let starts: Vec<[&str; 4]> = lines
                .iter()
                .map(|l| {
                    let f: Vec<&str> = l.split('\t').collect();
                    [f[0], f[1], f[8], f[9]]
                })
                .collect();
            assert!(
                starts.contains(&["a", "long", "1016680", "1016531"]),
                "{lines:?}"
            );
            assert!(
                starts.contains(&["b", "long", "600001", "600060"]),
                "{lines:?}"
            );
            assert!(
                starts.contains(&["b", "short2", "1060", "1001"]),
                "{lines:?}"
            );
        }
    }
    // The scores of the whole records, by parasail.
    if peer("parasail_aligner") {
        assert_strand_scores_are_parasail_scores(dir.path(), &query, &db);
    }
    // The pieces were scanned as tasks of their own: more tasks than sequences.
    let stats = dir.path().join("stats.json");
    search(&[
        "--dna",
        "--scores-only",
        "--chunk-size",
        "4096",
        "--stats",
        path(&stats),
        path(&query),
        path(&db),
    ]);
    let stats: serde_json::Value = serde_json::from_slice(&std::fs::read(&stats).unwrap()).unwrap();
    let per_task = stats["per_task"]["sequences"].as_f64().unwrap();
    assert!(per_task < 1.0, "{stats}");
    // The region around each alignment of the long record, as a record of its own,
    // gives the same alignments (E-values aside: the database is smaller).
    let outfmt =
        "6 qseqid sseqid sstrand qstart qend sstart send length nident gaps score qseq sseq";
    let (long_hits, _) = search(&["--dna", "--outfmt", outfmt, path(&query), path(&db)]);
    let long_seq: String = std::fs::read_to_string(&db)
        .unwrap()
        .split('>')
        .find(|r| r.starts_with("long\n"))
        .unwrap()
        .lines()
        .skip(1)
        .collect();
    let mut compared = 0;
    for line in long_hits.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f[1] != "long" || f[10].parse::<i32>().unwrap() < 100 {
            continue;
        }
        let (s, e): (usize, usize) = (f[5].parse().unwrap(), f[6].parse().unwrap());
        let from = s.min(e) - 1 - 500;
        let region = dir.path().join("region.fa");
        std::fs::write(
            &region,
            fasta("long", &long_seq.as_bytes()[from..s.max(e) + 500]),
        )
        .unwrap();
        let (region_hits, _) = search(&["--dna", "--outfmt", outfmt, path(&query), path(&region)]);
        let shifted: Vec<String> = region_hits
            .lines()
            .map(|l| {
                let mut g: Vec<String> = l.split('\t').map(str::to_string).collect();
                for i in [5, 6] {
                    g[i] = (g[i].parse::<usize>().unwrap() + from).to_string();
                }
                g.join("\t")
            })
            .collect();
        assert!(shifted.iter().any(|l| l == line), "{line}\n{shifted:?}");
        compared += 1;
    }
    assert!(compared >= 4, "{long_hits}");
}

/// With enough queries for two workers to share each piece of a long record (groups of
/// queries), the pieces are joined query by query as on one thread: the same bytes, and
/// the scan's pieces scored by more tasks than there are pieces.
#[test]
fn pieces_of_a_long_record_shared_by_groups_of_queries_join_as_on_one_thread() {
    let dir = tempfile::tempdir().unwrap();
    let (query, db) = long_record_files(dir.path());
    let mut queries = std::fs::read_to_string(&query).unwrap();
    for seed in 0..4 {
        queries += &fasta(&format!("random{seed}"), &random_dna(200, 10 + seed));
    }
    std::fs::write(&query, queries).unwrap();
    let stats = dir.path().join("stats.json");
    for mode in [
        &["--outfmt", "6 std qseq sseq score"][..],
        &["--scores-only"],
    ] {
        let scan_tasks = |threads| {
            let options = ["--dna", "--force", "--stats", path(&stats), "-t", threads];
            let (out, _) = search(&[&options[..], mode, &[path(&query), path(&db)]].concat());
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
            (out, v["tasks"].as_u64().expect("tasks"))
        };
        let ((one, one_tasks), (two, two_tasks)) = (scan_tasks("1"), scan_tasks("2"));
        assert!(one == two, "{mode:?}: one and two threads differ");
        if mode == ["--scores-only"] {
            assert!(
                two_tasks > one_tasks,
                "{one_tasks} tasks on one thread, {two_tasks} on two"
            );
        }
    }
}

/// Lines of a search of the short bundled DNA queries with `extra` options.
fn dna_lines(outfmt: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let q = dna_queries(dir.path(), &SHORT_QUERIES);
    let db = data("search_dna_db.fa.gz");
    let args = [
        &["--dna", "--top", "100", "--outfmt", outfmt][..],
        extra,
        &[path(&q), path(&db)],
    ]
    .concat();
    search(&args).0
}

#[test]
fn min_score_and_evalue_drop_the_weaker_alignments() {
    let outfmt = "6 qseqid sseqid sstrand score evalue";
    let all = dna_lines(outfmt, &[]);
    let kept = |keep: &dyn Fn(&[&str]) -> bool| -> String {
        all.lines()
            .filter(|l| keep(&l.split('\t').collect::<Vec<_>>()))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let strong = kept(&|f| f[3].parse::<i32>().unwrap() >= 60);
    assert!(strong.lines().count() > 10 && strong.len() < all.len());
    assert_eq!(dna_lines(outfmt, &["--min-score", "60"]), strong);
    let likely = kept(&|f| f[4].parse::<f64>().unwrap() <= 1e-5);
    assert!(likely.lines().count() > 10 && likely.len() < all.len());
    assert_eq!(dna_lines(outfmt, &["--evalue", "1e-5"]), likely);
    // --max-hsps 1: each subject's best line (its first).
    let mut seen = std::collections::BTreeSet::new();
    let best: String = all
        .lines()
        .filter(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            seen.insert((f[0].to_string(), f[1].to_string()))
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(best.len() < all.len());
    assert_eq!(dna_lines(outfmt, &["--max-hsps", "1"]), best);
}

#[test]
fn top_keeps_ties_and_top_strict_the_first_in_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let x = random_dna(2_000, 11);
    let db = dir.path().join("db.fa");
    let text = fasta("x1", &x)
        + &fasta("other", &random_dna(2_000, 12))
        + &fasta("x2", &x)
        + &fasta("x3", &x);
    std::fs::write(&db, text).unwrap();
    let query = dir.path().join("q.fa");
    std::fs::write(&query, fasta("q", &substituted(&x[500..700], 20))).unwrap();
    let subjects = |extra: &[&str]| -> Vec<String> {
        let args = [
            &["--dna", "--max-hsps", "1", "--outfmt", "6 sseqid"][..],
            extra,
            &[path(&query), path(&db)],
        ]
        .concat();
        search(&args).0.lines().map(str::to_string).collect()
    };
    assert_eq!(subjects(&["--top", "1"]), ["x1", "x2", "x3"]);
    assert_eq!(subjects(&["--top", "1", "--top-strict"]), ["x1"]);
    assert_eq!(subjects(&["--top", "2", "--top-strict"]), ["x1", "x2"]);
    assert_eq!(subjects(&["--top", "3"]), ["x1", "x2", "x3"]);
}

/// The bundled DNA queries q01 and q02 and a query too short to find anything.
fn format_queries(dir: &Path) -> std::path::PathBuf {
    let query = dna_queries(dir, &["q01", "q02"]);
    let mut text = std::fs::read_to_string(&query).unwrap();
    text += ">none nothing\nACGTA\n";
    std::fs::write(&query, text).unwrap();
    query
}

#[test]
fn outfmt_7_has_blast_comment_lines_around_the_tabular_lines() {
    let dir = tempfile::tempdir().unwrap();
    let query = format_queries(dir.path());
    let db = data("search_dna_db.fa.gz");
    let (six, _) = search(&[
        "--dna",
        "--outfmt",
        "6 std sstrand",
        path(&query),
        path(&db),
    ]);
    let (seven, _) = search(&[
        "--dna",
        "--outfmt",
        "7 std sstrand",
        path(&query),
        path(&db),
    ]);
    let program = seven.lines().next().unwrap();
    assert!(program.starts_with("# seqfarm search "), "{seven}");
    let mut expected = String::new();
    let headers = std::fs::read_to_string(&query).unwrap();
    for header in headers.lines().filter_map(|l| l.strip_prefix('>')) {
        let id = header.split_whitespace().next().unwrap();
        let hits: Vec<&str> = six
            .lines()
            .filter(|l| l.split('\t').next() == Some(id))
            .collect();
        expected += &format!("{program}\n# Query: {header}\n# Database: {}\n", path(&db));
        if !hits.is_empty() {
            expected += "# Fields: query acc.ver, subject acc.ver, % identity, alignment length, \
                         mismatches, gap opens, q. start, q. end, s. start, s. end, evalue, \
                         bit score, subject strand\n";
        }
        expected += &format!("# {} hits found\n", hits.len());
        for hit in hits {
            expected += hit;
            expected.push('\n');
        }
    }
    expected += "# seqfarm processed 3 queries\n";
    assert_eq!(seven, expected);
    assert!(seven.contains("# Query: none nothing\n"));
    assert!(seven.contains("# 0 hits found\n"));
}

/// Half the unit of the last digit of a number as printed (`96.800`, `3.2`, `1.47e-118`,
/// `1443`), with some slack for the binary fraction.
fn rounding(text: &str) -> f64 {
    let (mantissa, exponent) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap()),
        None => (text, 0),
    };
    let decimals = mantissa.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
    0.5 * 10f64.powi(exponent - decimals) * (1.0 + 1e-9)
}

#[test]
fn json_has_the_values_of_the_tabular_lines() {
    let dir = tempfile::tempdir().unwrap();
    let query = format_queries(dir.path());
    let db = data("search_dna_db.fa.gz");
    let columns = "qseqid sseqid sstrand pident length mismatch gapopen qstart qend sstart send \
                   evalue bitscore score qlen slen qseq";
    let outfmt = format!("6 {columns}");
    let (tabular, _) = search(&["--dna", "--outfmt", &outfmt, path(&query), path(&db)]);
    let (json, _) = search(&[
        "--dna",
        "--json",
        "--outfmt",
        &outfmt,
        path(&query),
        path(&db),
    ]);
    let doc: serde_json::Value = serde_json::from_str(&json).expect("--json writes JSON");
    assert_eq!(doc["program"], "seqfarm search");
    assert_eq!(doc["parameters"]["dna"], true);
    let queries = doc["queries"].as_array().unwrap();
    let ids: Vec<&str> = queries.iter().map(|q| q["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["q01", "q02", "none"]);
    assert_eq!(queries[2]["hits"].as_array().unwrap().len(), 0);
    let hits: Vec<&serde_json::Value> = queries
        .iter()
        .flat_map(|q| q["hits"].as_array().unwrap())
        .collect();
    let lines: Vec<&str> = tabular.lines().collect();
    assert_eq!(hits.len(), lines.len());
    assert!(!lines.is_empty());
    for (hit, line) in hits.iter().zip(&lines) {
        for (name, text) in columns.split_whitespace().zip(line.split('\t')) {
            let value = &hit[name];
            match value {
                serde_json::Value::String(s) => assert_eq!(s, text, "{name}"),
                serde_json::Value::Number(n) if n.is_i64() => {
                    assert_eq!(n.to_string(), text, "{name}")
                }
                serde_json::Value::Number(n) => {
                    let (j, t) = (n.as_f64().unwrap(), text.parse::<f64>().unwrap());
                    assert!((j - t).abs() <= rounding(text), "{name}: {j} vs {text}");
                }
                other => panic!("{name}: {other}"),
            }
        }
    }
}

#[test]
fn an_unknown_column_is_a_clear_error() {
    let q = data("search_dna_q.fa");
    let db = data("search_dna_db.fa.gz");
    let out = run(&[
        "search",
        "--dna",
        "--outfmt",
        "6 qseqid bogus",
        path(&q),
        path(&db),
    ]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        e.contains("unknown column \"bogus\"") && e.contains("qseqid"),
        "{e}"
    );
    assert!(!e.contains("panicked"), "{e}");
    assert!(out.stdout.is_empty());
}
