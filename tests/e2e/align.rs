//! `seqfarm align`: accuracy on simulated reads, record consistency against the
//! reference, SAM/BAM validity, determinism across thread counts, bad input.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{data, file_bytes, peer, seqfarm, truncated_gzip};

/// The test genome, indexed once per test in `dir`; returns the index prefix.
fn index(dir: &Path) -> PathBuf {
    crate::support::index_test_genome(dir)
}

fn align(args: &[&str]) -> Output {
    seqfarm()
        .arg("align")
        .args(args)
        .output()
        .expect("seqfarm runs")
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Contig name → upper-case sequence.
fn reference() -> HashMap<String, Vec<u8>> {
    let text = file_bytes(&data("index_ref.fa.gz"));
    let mut contigs = HashMap::new();
    let mut name = String::new();
    for line in text.split(|&b| b == b'\n') {
        if let Some(header) = line.strip_prefix(b">") {
            name = String::from_utf8_lossy(header)
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string();
            contigs.insert(name.clone(), Vec::new());
        } else if let Some(seq) = contigs.get_mut(&name) {
            seq.extend(line.iter().map(u8::to_ascii_uppercase));
        }
    }
    contigs
}

/// Read name → (contig, 1-based position, reverse).
fn truth() -> HashMap<String, (String, u64, bool)> {
    let text = String::from_utf8(file_bytes(&data("align_truth.tsv.gz"))).unwrap();
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].to_string(),
                (f[1].to_string(), f[2].parse().unwrap(), f[3] == "-"),
            )
        })
        .collect()
}

/// One SAM line's fields we check.
struct Record<'a> {
    name: &'a str,
    flag: u32,
    contig: &'a str,
    pos: u64,
    mapq: u32,
    cigar: &'a str,
    seq: &'a str,
    tags: HashMap<&'a str, &'a str>,
}

fn records(sam: &str) -> Vec<Record<'_>> {
    sam.lines()
        .filter(|l| !l.starts_with('@'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f.len() >= 11, "short SAM line {l}");
            Record {
                name: f[0],
                flag: f[1].parse().unwrap(),
                contig: f[2],
                pos: f[3].parse().unwrap(),
                mapq: f[4].parse().unwrap(),
                cigar: f[5],
                seq: f[9],
                tags: f[11..].iter().map(|t| (&t[..2], &t[5..])).collect(),
            }
        })
        .collect()
}

/// Recomputes MD and NM from the CIGAR, SEQ and the reference, and checks them and
/// the alignment's extent against the record.
fn check_against_reference(rec: &Record<'_>, genome: &HashMap<String, Vec<u8>>) {
    let reference = &genome[rec.contig];
    let seq = rec.seq.as_bytes();
    let (mut r, mut g) = (0usize, rec.pos as usize - 1);
    let (mut md, mut nm, mut run) = (String::new(), 0u32, 0u32);
    let mut number = 0usize;
    for c in rec.cigar.bytes() {
        if c.is_ascii_digit() {
            number = number * 10 + usize::from(c - b'0');
            continue;
        }
        let n = std::mem::take(&mut number);
        match c {
            b'M' => {
                for _ in 0..n {
                    let (a, b) = (seq[r], reference[g]);
                    if a == b && b"ACGT".contains(&a) {
                        run += 1;
                    } else {
                        md.push_str(&format!("{run}{}", b as char));
                        run = 0;
                        nm += 1;
                    }
                    r += 1;
                    g += 1;
                }
            }
            b'I' => {
                r += n;
                nm += n as u32;
            }
            b'D' => {
                md.push_str(&format!(
                    "{run}^{}",
                    String::from_utf8_lossy(&reference[g..g + n])
                ));
                run = 0;
                g += n;
                nm += n as u32;
            }
            b'S' => r += n,
            other => panic!("{}: unexpected CIGAR op {}", rec.name, other as char),
        }
    }
    md.push_str(&run.to_string());
    assert_eq!(
        r,
        seq.len(),
        "{}: CIGAR {} covers {r} of {} bases",
        rec.name,
        rec.cigar,
        seq.len()
    );
    assert!(
        g <= reference.len(),
        "{}: runs past the contig end",
        rec.name
    );
    assert_eq!(rec.tags["MD"], md, "{}: MD", rec.name);
    assert_eq!(rec.tags["NM"], nm.to_string(), "{}: NM", rec.name);
    assert_eq!(rec.tags["YT"], "UU");
}

/// Aligns the simulated reads in `mode` ("" or "--local") and returns the fraction
/// placed correctly; checks every record against the reference on the way.
fn accuracy(dir: &Path, prefix: &Path, reads: &str, mode: &[&str]) -> f64 {
    let out_path = dir.join(format!("{reads}{}.sam", mode.join("")));
    let reads_path = data(reads);
    let mut args = vec![
        "-x",
        path_str(prefix),
        "-U",
        path_str(&reads_path),
        "-p",
        "2",
        "-S",
        path_str(&out_path),
    ];
    args.extend_from_slice(mode);
    let out = align(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sam = std::fs::read_to_string(&out_path).unwrap();
    let genome = reference();
    let truth = truth();
    let (mut total, mut correct) = (0, 0);
    let mut names = Vec::new();
    for rec in records(&sam) {
        assert_eq!(rec.flag & 0x100, 0, "no secondary without -k");
        names.push(rec.name.to_string());
        let t = &truth[rec.name];
        total += 1;
        if rec.flag & 4 != 0 {
            assert_eq!((rec.contig, rec.pos, rec.mapq, rec.cigar), ("*", 0, 0, "*"));
            continue;
        }
        check_against_reference(&rec, &genome);
        let as_score: i32 = rec.tags["AS"].parse().unwrap();
        if mode.is_empty() {
            assert!(
                as_score <= 0 && !rec.cigar.contains('S'),
                "{}: end-to-end",
                rec.name
            );
        } else {
            assert!(as_score > 0, "{}: local AS", rec.name);
        }
        let reverse = rec.flag & 16 != 0;
        if rec.contig == t.0 && reverse == t.2 && rec.pos.abs_diff(t.1) <= 50 {
            correct += 1;
        }
    }
    // Every read once, in input order.
    let input = String::from_utf8(file_bytes(&reads_path)).unwrap();
    let expected: Vec<String> = input
        .lines()
        .step_by(4)
        .map(|l| l[1..].split_whitespace().next().unwrap().to_string())
        .collect();
    assert_eq!(names, expected);
    correct as f64 / total as f64
}

#[test]
fn simulated_reads_align_correctly_in_both_modes() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index(dir.path());
    for reads in ["align_reads_150.fq.gz", "align_reads_100.fq.gz"] {
        for mode in [&[][..], &["--local"][..]] {
            let fraction = accuracy(dir.path(), &prefix, reads, mode);
            assert!(
                fraction >= 0.99,
                "{reads} {mode:?}: {:.4} correct",
                fraction
            );
        }
    }
}

fn run_ok(args: &[&str]) {
    let out = align(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn output_is_identical_at_any_thread_count_and_valid() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index(dir.path());
    let p = path_str(&prefix);
    let reads = data("align_reads_150.fq.gz");
    let r = path_str(&reads);
    let file = |name: &str| dir.path().join(name);
    let rg = [
        "--rg-id",
        "grp1",
        "--rg",
        "SM:sample1",
        "--rg",
        "PL:ILLUMINA",
    ];
    // The same command (same output path) but for the thread count; each result is
    // moved aside.
    let (sam, bam) = (file("out.sam"), file("out.bam"));
    for threads in ["1", "2", "3"] {
        let mut args = vec!["-x", p, "-U", r, "-p", threads, "-S", path_str(&sam)];
        args.extend_from_slice(&rg);
        run_ok(&args);
        std::fs::rename(&sam, file(&format!("t{threads}.sam"))).unwrap();
        let mut args = vec!["-x", p, "-U", r, "-o", path_str(&bam), "--threads", threads];
        args.extend_from_slice(&rg);
        run_ok(&args);
        std::fs::rename(&bam, file(&format!("t{threads}.bam"))).unwrap();
    }
    for ext in ["sam", "bam"] {
        let one = std::fs::read(file(&format!("t1.{ext}"))).unwrap();
        for threads in ["2", "3"] {
            let other = std::fs::read(file(&format!("t{threads}.{ext}"))).unwrap();
            assert!(
                one == other,
                "{ext} differs between 1 and {threads} threads"
            );
        }
    }
    let sam = std::fs::read_to_string(file("t1.sam")).unwrap();
    assert!(sam.starts_with("@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:ecoli_K12_1_200000\tLN:200000\n"));
    assert!(sam.contains("\n@RG\tID:grp1\tSM:sample1\tPL:ILLUMINA\n"));
    assert!(sam.contains("\n@PG\tID:seqfarm\tPN:seqfarm\t"));
    assert!(records(&sam)
        .iter()
        .all(|r| r.tags.get("RG") == Some(&"grp1")));
    if peer("samtools") {
        let bam = file("t1.bam");
        let quick = std::process::Command::new("samtools")
            .args(["quickcheck", "-v"])
            .arg(&bam)
            .arg(file("t1.sam"))
            .output()
            .unwrap();
        assert!(
            quick.status.success(),
            "{}",
            String::from_utf8_lossy(&quick.stdout)
        );
        let view = std::process::Command::new("samtools")
            .args(["view", "-h", "--no-PG"])
            .arg(&bam)
            .output()
            .unwrap();
        assert!(view.status.success());
        // The same header and records; only @PG's command line names another output.
        let without_pg = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|l| !l.starts_with("@PG"))
                .map(str::to_string)
                .collect()
        };
        let from_bam = String::from_utf8(view.stdout).unwrap();
        assert!(
            without_pg(&from_bam) == without_pg(&sam),
            "BAM and SAM say different things"
        );
    }
    if peer("PicardCommandLine") {
        for name in ["t1.sam", "t1.bam"] {
            let out = std::process::Command::new("PicardCommandLine")
                .args(["ValidateSamFile", "-MODE", "SUMMARY", "-I"])
                .arg(file(name))
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && text.contains("No errors found"),
                "Picard on {name}: {text}{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

fn write(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

#[test]
fn unaligned_reads_filters_stdin_fasta_and_k() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index(dir.path());
    let p = path_str(&prefix);
    let genome = reference();
    let chr = &genome["chr20_1_260000"];
    let good = String::from_utf8(chr[100_000..100_120].to_vec()).unwrap();
    let fastq = format!(
        "@good\n{good}\n+\n{q}\n@random\n{rand}\n+\n{q}\n@empty\n\n+\n\n@ns\n{ns}\n+\n{q}\n",
        q = "I".repeat(120),
        rand = "ACGTTGCA".repeat(15),
        ns = "N".repeat(120),
    );
    let reads = write(dir.path(), "r.fq", fastq.as_bytes());
    let out = seqfarm()
        .args(["align", "-x", p, "-U", path_str(&reads)])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sam = String::from_utf8(out.stdout).unwrap();
    let recs = records(&sam);
    let names: Vec<&str> = recs.iter().map(|r| r.name).collect();
    assert_eq!(names, ["good", "random", "empty", "ns"]);
    assert_eq!(
        (recs[0].flag, recs[0].pos, recs[0].cigar),
        (0, 100_001, "120M")
    );
    assert!(recs[1..].iter().all(|r| r.flag == 4));
    assert_eq!(recs[2].seq, "*");
    assert_eq!(recs[2].tags.get("YF"), Some(&"LN"));
    assert_eq!(recs[3].tags.get("YF"), Some(&"NS"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("4 reads; of these:") && stderr.contains("25.00% overall alignment rate"),
        "{stderr}"
    );
    // --no-unal; FASTA from standard input; -k.
    let fasta = format!(
        ">good\n{}\n{}\n>random\n{}\n",
        &good[..60],
        &good[60..],
        "ACGTTGCA".repeat(15)
    );
    let mut child = seqfarm()
        .args(["align", "--no-unal", "-k", "3", "-x", p, "-U", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(fasta.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sam = String::from_utf8(out.stdout).unwrap();
    let recs = records(&sam);
    assert_eq!(recs.len(), 1, "{sam}");
    assert_eq!((recs[0].name, recs[0].pos), ("good", 100_001));
    // FASTA reads have no qualities: QUAL is `I` for every base, as bowtie2 writes it.
    assert!(
        sam.lines()
            .any(|l| l.starts_with("good\t0\t")
                && l.split('\t').nth(10) == Some(&"I".repeat(120)[..]))
    );
    // A read from a repeat copied twice: -k 2 reports both, the second as secondary.
    let repeat = &chr[120_000..120_150];
    let mut doubled = chr.clone();
    doubled[200_000..200_150].copy_from_slice(repeat);
    let twice = write(
        dir.path(),
        "twice.fa",
        &[b">twice\n".as_slice(), &doubled, b"\n"].concat(),
    );
    let tprefix = dir.path().join("twice");
    let built = seqfarm()
        .args(["index", "-o", path_str(&tprefix), path_str(&twice)])
        .output()
        .unwrap();
    assert!(built.status.success());
    let read = write(
        dir.path(),
        "rep.fq",
        format!(
            "@rep\n{}\n+\n{}\n",
            String::from_utf8_lossy(repeat),
            "I".repeat(150)
        )
        .as_bytes(),
    );
    let out = align(&["-k", "2", "-x", path_str(&tprefix), "-U", path_str(&read)]);
    let sam = String::from_utf8(out.stdout).unwrap();
    let recs = records(&sam);
    assert_eq!(recs.len(), 2, "{sam}");
    assert_eq!(recs[0].flag & 0x100, 0);
    assert_eq!(recs[1].flag & 0x100, 0x100);
    let mut positions: Vec<u64> = recs.iter().map(|r| r.pos).collect();
    positions.sort();
    assert_eq!(positions, [120_001, 200_001]);
    assert!(recs[0].mapq <= 1, "a tie has no mapping quality");
    // -k 1 stops at the first alignment in bowtie2: one record, MAPQ 255, no XS, and
    // "aligned exactly 1 time".
    let out = align(&["-k", "1", "-x", path_str(&tprefix), "-U", path_str(&read)]);
    let sam = String::from_utf8(out.stdout).unwrap();
    let recs = records(&sam);
    assert_eq!((recs.len(), recs[0].mapq), (1, 255), "{sam}");
    assert!(!sam.contains("XS:i:"), "{sam}");
    let summary = String::from_utf8(out.stderr).unwrap();
    assert!(
        summary.contains("1 (100.00%) aligned exactly 1 time"),
        "{summary}"
    );
}

#[test]
fn bad_input_is_reported_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index(dir.path());
    let p = path_str(&prefix);
    let ok = "@a\nACGTACGTAC\n+\nIIIIIIIIII\n".repeat(3000);
    // The error names the record the file is cut in, after the complete ones before it.
    let (truncated_gz, inflated) = truncated_gzip(ok.as_bytes());
    let complete = inflated.iter().filter(|&&b| b == b'\n').count() / 4;
    let cut_message = format!("record {}: cannot read", complete + 1);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "plus.fq",
            format!("{ok}@b\nACGT\nIIII\n").into_bytes(),
            "record 3001: expected a '+' line",
        ),
        (
            "len.fq",
            format!("{ok}@b\nACGT\n+\nIII\n").into_bytes(),
            "record 3001: sequence has 4 bases but quality has 3",
        ),
        (
            "letter.fq",
            format!("{ok}@b\nAC7T\n+\nIIII\n").into_bytes(),
            "record 3001: invalid base '7'",
        ),
        (
            "long.fq",
            format!("@b\n{}\n+\n{}\n", "A".repeat(10_001), "I".repeat(10_001)).into_bytes(),
            "record 1: read is 10001 bases long",
        ),
        ("cut.fq.gz", truncated_gz, &cut_message),
        ("binary.fq", vec![0x00, 0x01, 0x02], "not FASTQ or FASTA"),
    ];
    for (name, content, message) in cases {
        let reads = write(dir.path(), name, &content);
        let out_sam = dir.path().join(format!("{name}.sam"));
        let out = align(&[
            "-x",
            p,
            "-U",
            path_str(&reads),
            "-p",
            "2",
            "-S",
            path_str(&out_sam),
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: succeeded");
        assert!(
            stderr.contains(message) && stderr.contains(name),
            "{name}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        assert!(!out_sam.exists(), "{name}: left an output");
    }
    // An existing output is replaced, as bowtie2 replaces it; --force is accepted.
    let reads = write(dir.path(), "fine.fq", ok.as_bytes());
    let existing = write(dir.path(), "old.sam", b"old");
    for force in [None, Some("--force")] {
        std::fs::write(&existing, b"old").unwrap();
        let mut args = vec!["-x", p, "-U", path_str(&reads), "-S", path_str(&existing)];
        args.extend(force);
        let out = align(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(std::fs::read(&existing).unwrap().starts_with(b"@HD"));
    }
    // A missing index is named.
    let out = align(&[
        "-x",
        path_str(&dir.path().join("nope")),
        "-U",
        path_str(&reads),
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.sfi"));
}

/// The index is mapped without reading it up front, so a damaged section is found
/// while the reads align: the run fails, names the index, and leaves no output.
#[test]
fn a_damaged_index_fails_the_run_and_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index(dir.path());
    damage_index(dir.path());
    let sam = dir.path().join("out.sam");
    let out = align(&[
        "-x",
        path_str(&prefix),
        "-U",
        path_str(&data("align_reads_100.fq.gz")),
        "-S",
        path_str(&sam),
    ]);
    assert_failed_on_damage(&out, &sam);
}

/// Flips a byte of `dir`/ref.sfi in its last page: inside the packed reference, the
/// last section.
fn damage_index(dir: &Path) {
    let sfi = dir.join("ref.sfi");
    let mut bytes = std::fs::read(&sfi).unwrap();
    let at = bytes.len() - 4096 - 100;
    bytes[at] ^= 0x55;
    std::fs::write(&sfi, &bytes).unwrap();
}

/// The run failed on the damaged index: it names the file and the checksum, and `sam`
/// was not left behind.
fn assert_failed_on_damage(out: &Output, sam: &Path) {
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("ref.sfi") && message.contains("checksum"),
        "{message}"
    );
    assert!(!sam.exists());
}

/// A large index is loaded without reading it first and its checksums are verified
/// beside the alignment (`SEQFARM_CHECK_FIRST_BYTES=0` takes that path on a small one):
/// an intact index gives the same SAM as one verified first, a damaged one fails the run
/// with no output, and a bad read file fails it at once, naming the file.
#[test]
fn the_checksum_pass_beside_the_alignment() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index(dir.path());
    let reads = data("align_reads_100.fq.gz");
    let run = |sam: &Path, reads: &Path, beside: bool| {
        let mut command = seqfarm();
        if beside {
            command.env("SEQFARM_CHECK_FIRST_BYTES", "0");
        }
        command
            .args([
                "align",
                "-p",
                "2",
                "-x",
                path_str(&prefix),
                "-U",
                path_str(reads),
            ])
            .args(["--no-hd", "-S", path_str(sam)])
            .output()
            .expect("seqfarm runs")
    };
    let (first, beside) = (dir.path().join("first.sam"), dir.path().join("beside.sam"));
    assert!(run(&first, &reads, false).status.success());
    let out = run(&beside, &reads, true);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read(&first).unwrap(),
        std::fs::read(&beside).unwrap()
    );

    let bad_reads = dir.path().join("bad.fq");
    std::fs::write(&bad_reads, "@r1\nACGT\n+\nIIII\nnot a record\n").unwrap();
    let bad_out = dir.path().join("bad.sam");
    let out = run(&bad_out, &bad_reads, true);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.fq"));
    assert!(!bad_out.exists());

    damage_index(dir.path());
    let damaged = dir.path().join("damaged.sam");
    assert_failed_on_damage(&run(&damaged, &reads, true), &damaged);
}
