//! `seqfarm index` and `seqfarm locate` as a user runs them.

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use crate::support::{data, file_bytes, reverse_complement, run, seqfarm, truncated_gzip};

/// Two contigs with lower case, an N run and an IUPAC letter.
const FASTA: &[u8] = b">one first contig\nACGTTGCAACGGTACCATGACGTAGGATCCATTAGCAATG\nacgtNNNNNNACGTACGTTTGCAR\n>two\nGGATCCATTAGCAATGCCCTTTAAACGT\n";

fn write_fasta(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("ref.fa");
    std::fs::write(&path, FASTA).unwrap();
    path
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Naive `contig:pos:strand` hits of `pattern` in FASTA above, genome order.
fn naive(pattern: &str) -> Vec<String> {
    let contigs: Vec<(&str, Vec<u8>)> = vec![
        (
            "one",
            b"ACGTTGCAACGGTACCATGACGTAGGATCCATTAGCAATGACGTNNNNNNACGTACGTTTGCAR".to_vec(),
        ),
        ("two", b"GGATCCATTAGCAATGCCCTTTAAACGT".to_vec()),
    ];
    let p = pattern.to_ascii_uppercase().into_bytes();
    let rc = reverse_complement(&p);
    let mut hits = Vec::new();
    for (name, seq) in &contigs {
        for (i, w) in seq.windows(p.len()).enumerate() {
            if w == p.as_slice() {
                hits.push(format!("{name}:{}:+", i + 1));
            }
            if w == rc.as_slice() && rc != p {
                hits.push(format!("{name}:{}:-", i + 1));
            }
        }
    }
    hits
}

#[test]
fn index_then_locate_equals_naive_search() {
    let dir = tempfile::tempdir().unwrap();
    let fasta = write_fasta(dir.path());
    let prefix = dir.path().join("ref");
    let out = run(&["index", "-t", "2", fasta.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(dir.path().join("ref.sfi").exists());
    let patterns = [
        "GGATCCATTAGCAATG",
        "ACGT",
        "acgtacg",
        "CATTG",
        "ggatcc",
        "TTTT",
        "AATGACG",
        "GCAR",
        "NNNN",
        "ACGTN",
    ];
    let mut args = vec!["locate", "-x", prefix.to_str().unwrap()];
    args.extend(patterns);
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), patterns.len());
    for (line, pattern) in lines.iter().zip(patterns) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 3, "{line}");
        assert_eq!(fields[0], pattern);
        let expected = if pattern.contains(['N', 'R']) {
            Vec::new()
        } else {
            naive(pattern)
        };
        assert_eq!(fields[1], expected.len().to_string(), "{line}");
        let listed: Vec<String> = fields[2]
            .split(',')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        assert_eq!(listed, expected, "{line}");
    }
    // GGATCC is its own reverse complement: once per position, as +.
    assert!(
        lines[4].starts_with("ggatcc\t2\tone:25:+,two:1:+"),
        "{}",
        lines[4]
    );
    // AATGACG spans nothing; ACGTN would need the N: never matched.
    assert!(lines[9].ends_with("\t0\t"));

    // Count-only mode and patterns from standard input give the same counts.
    let mut child = seqfarm()
        .args([
            "locate",
            "-x",
            prefix.to_str().unwrap(),
            "--max-hits",
            "0",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(patterns.join("\n").as_bytes())
        .unwrap();
    let counted = child.wait_with_output().unwrap();
    assert!(counted.status.success());
    assert_eq!(stdout(&counted).lines().count(), lines.len());
    for (a, b) in stdout(&counted).lines().zip(&lines) {
        assert_eq!(a.split('\t').nth(1), b.split('\t').nth(1));
    }
}

#[test]
fn index_replaces_an_existing_index_and_checks() {
    let dir = tempfile::tempdir().unwrap();
    let fasta = write_fasta(dir.path());
    let prefix = dir.path().join("idx");
    let p = prefix.to_str().unwrap();
    let f = fasta.to_str().unwrap();
    assert!(run(&["index", "-o", p, f]).status.success());
    // As bwa index and bowtie2-build, a second run replaces the index; --force is
    // accepted.
    let again = run(&["index", "-o", p, f]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(run(&["index", "--force", "-o", p, f]).status.success());
    let check = run(&["index", "--check", p]);
    assert!(check.status.success(), "{}", stderr(&check));
    assert!(
        stdout(&check).contains("OK: 2 contigs, 92 bases"),
        "{}",
        stdout(&check)
    );

    let path = dir.path().join("idx.sfi");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    let damaged = dir.path().join("damaged.sfi");
    bytes[8192 + 20] ^= 1; // inside the BWT blocks (the second section)
    std::fs::write(&damaged, &bytes).unwrap();
    let out = run(&["index", "--check", damaged.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("damaged.sfi: corrupt index"),
        "{}",
        stderr(&out)
    );
    std::fs::write(&damaged, &bytes[..last / 2]).unwrap();
    let out = run(&["locate", "-x", damaged.to_str().unwrap(), "ACGT"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("truncated index"), "{}", stderr(&out));
    let out = run(&["locate", "-x", fasta.to_str().unwrap(), "ACGT"]);
    assert!(stderr(&out).contains("ref.fa.sfi"), "{}", stderr(&out));
}

#[test]
fn bad_input_is_reported_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.fa");
    std::fs::write(&bad, b">a\nACGT\n>b\nAC-GT\n").unwrap();
    let out = run(&["index", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let message = stderr(&out);
    assert!(
        message.contains("bad.fa") && message.contains("\"b\"") && message.contains("position 3"),
        "{message}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no output left behind"
    );

    std::fs::write(&bad, b">a\nACGT\n>a\nACGT\n").unwrap();
    let out = run(&["index", bad.to_str().unwrap()]);
    assert!(stderr(&out).contains("appears twice"), "{}", stderr(&out));
    std::fs::write(&bad, b">a\nNNNN\n").unwrap();
    let out = run(&["index", bad.to_str().unwrap()]);
    assert!(stderr(&out).contains("no A/C/G/T"), "{}", stderr(&out));

    // A gzip file cut short: the error names the line it is cut in.
    let (cut, inflated) = truncated_gzip(&file_bytes(&data("index_ref.fa.gz")));
    let cut_path = dir.path().join("cut.fa.gz");
    std::fs::write(&cut_path, cut).unwrap();
    let out = run(&["index", cut_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let lines = inflated.iter().filter(|&&b| b == b'\n').count();
    let expected = format!("cut.fa.gz: line {}: cannot read", lines + 1);
    assert!(stderr(&out).contains(&expected), "{}", stderr(&out));
    std::fs::remove_file(&cut_path).unwrap();
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no output left behind"
    );

    let fasta = write_fasta(dir.path());
    assert!(run(&["index", fasta.to_str().unwrap()]).status.success());
    let prefix = dir.path().join("ref");
    let out = run(&["locate", "-x", prefix.to_str().unwrap(), "ACGT", "AC1T"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("\"AC1T\": '1' at position 3"),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn gzip_from_standard_input() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("piece");
    let gz = std::fs::read(data("index_ref.fa.gz")).unwrap();
    let mut child = seqfarm()
        .args(["index", "-o", prefix.to_str().unwrap(), "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&gz).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("2 contigs, 460000 bases"),
        "{}",
        stderr(&out)
    );
    // The first 30 bases of the E. coli piece: found once, on +.
    let out = run(&[
        "locate",
        "-x",
        prefix.to_str().unwrap(),
        "--max-hits",
        "5",
        "AGCTTTTCATTCTGACTGCAACGGGCAATA",
    ]);
    let line = stdout(&out);
    assert_eq!(
        line,
        "AGCTTTTCATTCTGACTGCAACGGGCAATA\t1\tecoli_K12_1_200000:1:+\n"
    );
}

#[test]
fn a_memory_budget_splits_the_build_and_gives_the_same_index() {
    let dir = tempfile::tempdir().unwrap();
    let reference = data("index_ref.fa.gz");
    let r = reference.to_str().unwrap();
    let one = dir.path().join("one");
    let out = run(&["index", "-t", "1", "-o", one.to_str().unwrap(), r]);
    assert!(out.status.success(), "{}", stderr(&out));
    let summary = stderr(&out);
    assert!(
        summary.contains("1 sort bucket,") && summary.contains("peak memory"),
        "{summary}"
    );
    // The least budget this reference accepts, from the error that names it.
    let tiny = run(&[
        "index",
        "-m",
        "1K",
        "-o",
        dir.path().join("x").to_str().unwrap(),
        r,
    ]);
    assert_eq!(tiny.status.code(), Some(1));
    let message = stderr(&tiny);
    assert!(
        message.contains("too small") && message.contains("raise --memory"),
        "{message}"
    );
    assert!(!dir.path().join("x.sfi").exists());
    let least: u64 = message
        .split("at least ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no byte count in {message}"));
    let many = dir.path().join("many");
    let out = run(&[
        "index",
        "-t",
        "2",
        "--memory",
        &least.to_string(),
        "-o",
        many.to_str().unwrap(),
        r,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains(" 1 sort bucket"), "{}", stderr(&out));
    let a = std::fs::read(dir.path().join("one.sfi")).unwrap();
    let b = std::fs::read(dir.path().join("many.sfi")).unwrap();
    assert!(a == b, "the index depends on the budget");
    // Nothing but the index is left next to it (the sections went to anonymous files).
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["many.sfi", "one.sfi"]);
    let bad = run(&["index", "-m", "lots", "-o", "y", r]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("not a size"), "{}", stderr(&bad));
}
