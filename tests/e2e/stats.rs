//! `--stats FILE`: every command that runs a farm writes where its time went, and the
//! statistics change nothing in the main output.

use std::path::Path;

use serde_json::Value;

use crate::support::{data, seqfarm};

/// Runs `seqfarm ARGS` in `dir` (with `-t 2`/`-p 2` in `args`), the main output named
/// `out`, without and then with `--stats`; checks the outputs are identical and returns
/// the statistics.
fn run_with_stats(dir: &Path, args: &[&str], out: &str) -> Value {
    let status = seqfarm()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("seqfarm runs");
    assert!(status.status.success(), "{status:?}");
    let plain = std::fs::read(dir.join(out)).expect("main output");
    std::fs::remove_file(dir.join(out)).unwrap();
    let stats_path = dir.join("stats.json");
    let _ = std::fs::remove_file(&stats_path);
    let status = seqfarm()
        .current_dir(dir)
        .args(args)
        .args(["--stats", "stats.json"])
        .output()
        .expect("seqfarm runs");
    assert!(status.status.success(), "{status:?}");
    let with_stats = std::fs::read(dir.join(out)).expect("main output");
    assert!(
        plain == with_stats,
        "{args:?}: the output changes with --stats"
    );
    std::fs::remove_file(dir.join(out)).unwrap();
    let text = std::fs::read_to_string(&stats_path).expect("statistics written");
    serde_json::from_str(&text).expect("statistics are JSON")
}

fn number(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number in {v}"))
}

/// The keys every statistics file has, and sums that cannot exceed the wall time.
fn check_farm(v: &Value, command: &str, threads: usize) {
    assert_eq!(v["command"], command);
    assert_eq!(v["threads"].as_u64(), Some(threads as u64));
    let wall = number(v, "wall_s");
    assert!(wall > 0.0, "{v}");
    assert!(number(v, "elapsed_s") >= wall * 0.99, "{v}");
    let tasks = v["tasks"].as_u64().expect("tasks");
    assert!(tasks > 0, "{v}");
    let master = &v["master"];
    let master_time = number(master, "emit_s")
        + number(master, "collect_s")
        + number(master, "stalled_s")
        + number(master, "idle_s");
    assert!(master_time <= wall * 1.5, "{v}");
    let workers = v["workers"].as_array().expect("workers");
    assert_eq!(workers.len(), threads, "{v}");
    let mut worker_tasks = 0;
    for w in workers {
        worker_tasks += w["tasks"].as_u64().expect("worker tasks");
        let time = number(w, "busy_s")
            + number(w, "stalled_s")
            + number(w, "idle_s")
            + number(w, "setup_s");
        assert!(time <= wall * 1.5, "{v}");
    }
    assert_eq!(worker_tasks, tasks, "{v}");
    assert!(number(v, "worker_s_per_task") > 0.0, "{v}");
    assert!(number(v, "master_s_per_task") >= 0.0, "{v}");
    assert!(number(v, "ceiling") > 0.0, "{v}");
    let efficiency = number(v, "efficiency");
    assert!(efficiency > 0.0 && efficiency <= 1.5, "{v}");
    assert!(v["per_task"].is_object(), "{v}");
}

#[test]
fn stats_flagstat() {
    let dir = tempfile::tempdir().unwrap();
    let bam = data("bam/chm1.bam");
    let v = run_with_stats(
        dir.path(),
        &[
            "flagstat",
            "-t",
            "2",
            "-o",
            "out.txt",
            bam.to_str().unwrap(),
        ],
        "out.txt",
    );
    check_farm(&v, "flagstat", 2);
    assert!(number(&v["per_task"], "reads") > 0.0, "{v}");
}

#[test]
fn stats_count() {
    let dir = tempfile::tempdir().unwrap();
    let bam = data("bam/chm1.bam");
    let v = run_with_stats(
        dir.path(),
        &[
            "count",
            "-t",
            "2",
            "--window",
            "100000",
            "-o",
            "out.tsv",
            bam.to_str().unwrap(),
        ],
        "out.tsv",
    );
    check_farm(&v, "count", 2);
    assert!(number(&v["per_task"], "regions") > 0.0, "{v}");
}

#[test]
fn stats_snp_pileup() {
    let dir = tempfile::tempdir().unwrap();
    let vcf = data("snp-pileup/sites_slice.vcf.gz");
    let normal = data("snp-pileup/normal_slice.bam");
    let tumor = data("snp-pileup/tumor_slice.bam");
    let v = run_with_stats(
        dir.path(),
        &[
            "snp-pileup",
            "-t",
            "2",
            vcf.to_str().unwrap(),
            "out.csv",
            normal.to_str().unwrap(),
            tumor.to_str().unwrap(),
        ],
        "out.csv",
    );
    check_farm(&v, "snp-pileup", 2);
}

#[test]
fn stats_search() {
    let dir = tempfile::tempdir().unwrap();
    let query = data("sw_q10.fa");
    let db = data("sw_db1500.fa.gz");
    let v = run_with_stats(
        dir.path(),
        &[
            "search",
            "-t",
            "2",
            "-o",
            "out.tsv",
            query.to_str().unwrap(),
            db.to_str().unwrap(),
        ],
        "out.tsv",
    );
    check_farm(&v, "search", 2);
    assert!(number(&v["per_task"], "residues") > 0.0, "{v}");
}

#[test]
fn stats_align_index_and_locate() {
    let dir = tempfile::tempdir().unwrap();
    let reference = data("index_ref.fa.gz");
    let reads = data("align_reads_100.fq.gz");
    let status = seqfarm()
        .current_dir(dir.path())
        .args(["index", "-t", "2", "--stats", "index.json", "-o", "ref"])
        .arg(&reference)
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("index.json")).unwrap())
            .unwrap();
    assert_eq!(index["command"], "index");
    assert_eq!(index["threads"].as_u64(), Some(2));
    assert!(number(&index, "wall_s") > 0.0, "{index}");

    let v = run_with_stats(
        dir.path(),
        &[
            "align",
            "-p",
            "2",
            "-x",
            "ref",
            "-U",
            reads.to_str().unwrap(),
            "-S",
            "out.sam",
        ],
        "out.sam",
    );
    check_farm(&v, "align", 2);
    assert!(number(&v["per_task"], "reads") > 0.0, "{v}");

    // locate runs no farm: one thread, its wall time, and what --numa came to.
    let locate = |stats: &[&str]| {
        seqfarm()
            .current_dir(dir.path())
            .args(["locate", "-x", "ref", "ACGTACGTAC", "GATTACA"])
            .args(stats)
            .output()
            .unwrap()
    };
    let plain = locate(&[]);
    let with_stats = locate(&["--stats", "locate.json"]);
    assert!(with_stats.status.success(), "{with_stats:?}");
    assert_eq!(plain.stdout, with_stats.stdout);
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("locate.json")).unwrap())
            .unwrap();
    assert_eq!(v["command"], "locate");
    assert_eq!(v["threads"].as_u64(), Some(1));
    assert!(number(&v, "wall_s") > 0.0, "{v}");
    assert!(v["numa"].is_object(), "{v}");
}

#[test]
fn stats_file_is_an_output() {
    let dir = tempfile::tempdir().unwrap();
    let bam = data("bam/chm1.bam");
    // An existing file is replaced, as flagstat's report is (samtools' rule).
    std::fs::write(dir.path().join("stats.json"), "old").unwrap();
    let replaced = seqfarm()
        .current_dir(dir.path())
        .args(["flagstat", "--stats", "stats.json", "-o", "out.txt"])
        .arg(&bam)
        .output()
        .unwrap();
    assert!(replaced.status.success(), "{replaced:?}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("stats.json")).unwrap())
            .unwrap();
    assert_eq!(v["command"], "flagstat");
    let same = seqfarm()
        .current_dir(dir.path())
        .args(["flagstat", "--force", "--stats", "out.txt", "-o", "out.txt"])
        .arg(&bam)
        .output()
        .unwrap();
    assert!(!same.status.success(), "{same:?}");
    let e = String::from_utf8_lossy(&same.stderr);
    assert!(e.contains("out.txt: named by both -o and --stats"), "{e}");
}
