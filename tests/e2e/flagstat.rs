//! `seqfarm flagstat`: byte-identical to `samtools flagstat` (run here, on the same
//! files) in all three formats, at several thread counts, for real BAMs and generated
//! edge cases; SAM, gzip SAM and standard input; clear errors on bad input.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::support::{copy_bam, data, peer, seqfarm, shared_data};

const FORMATS: [&str; 3] = ["default", "json", "tsv"];

fn ok(out: Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn samtools(args: &[&str]) -> Vec<u8> {
    ok(Command::new("samtools")
        .args(args)
        .output()
        .expect("samtools runs"))
}

fn ours(args: &[&str]) -> Output {
    seqfarm()
        .arg("flagstat")
        .args(args)
        .output()
        .expect("seqfarm runs")
}

fn ours_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = seqfarm()
        .arg("flagstat")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("seqfarm runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("seqfarm ends");
    let _ = writer.join();
    out
}

/// Checks every format at 1, 2 and 3 threads against samtools.
fn assert_same_as_samtools(file: &Path) {
    let f = file.to_str().expect("utf-8 path");
    for format in FORMATS {
        let expected = samtools(&["flagstat", "-O", format, f]);
        for threads in ["1", "2", "3"] {
            let got = ok(ours(&["-t", threads, "-O", format, f]));
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&expected),
                "{f} -O {format} -t {threads}"
            );
        }
    }
}

/// Copies a BAM, then its index, so the index is the newer file.
fn copy_with_index(dir: &Path, name: &str) -> PathBuf {
    let bam = dir.join(name);
    copy_bam(&data(&format!("bam/{name}")), &bam);
    bam
}

#[test]
fn real_bams_match_samtools() {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "sarscov2.bam",
        "chm1.bam",
        "na12878_chrM.bam",
        "long_cigar.bam",
    ] {
        let bam = copy_with_index(dir.path(), name);
        assert_same_as_samtools(&bam);
        // Without the index: parallel inflate, records stitched in order.
        let bare = dir.path().join(format!("bare_{name}"));
        std::fs::copy(&bam, &bare).unwrap();
        assert_same_as_samtools(&bare);
    }
}

#[test]
fn shared_panel_bam_matches_samtools() {
    let Some(panel) = shared_data("alignments/human_BRCApanel_noSEQ_covtobed/panel_01.bam") else {
        eprintln!("shared data not found: skipping the panel BAM");
        return;
    };
    if !peer("samtools") {
        return;
    }
    let p = panel.to_str().unwrap();
    assert_eq!(ok(ours(&["-t", "2", p])), samtools(&["flagstat", p]), "{p}");
}

/// A SAM covering every flagstat category: proper pairs, singletons, mates on other
/// references with MAPQ above and below 5, secondary, supplementary, duplicates,
/// QC-failed copies of them, unpaired reads, and an unmapped tail long enough to span
/// several BGZF blocks.
fn edge_case_sam(unmapped_tail: usize) -> String {
    let mut s =
        String::from("@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:chrA\tLN:100000\n@SQ\tSN:chrB\tLN:50000\n");
    let seq = "ACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTACGTAC";
    let qual = "IIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIII";
    let mut line =
        |name: String, flag: u32, rname: &str, pos: u32, mapq: u32, rnext: &str, pnext: u32| {
            let cigar = if flag & 0x4 != 0 && rname == "*" {
                "*"
            } else {
                "50M"
            };
            s.push_str(&format!(
            "{name}\t{flag}\t{rname}\t{pos}\t{mapq}\t{cigar}\t{rnext}\t{pnext}\t0\t{seq}\t{qual}\n"
        ));
        };
    for i in 0..400u32 {
        let pos = 100 + i * 97;
        let qc = if i % 13 == 0 { 0x200 } else { 0 };
        let dup = if i % 7 == 0 { 0x400 } else { 0 };
        match i % 8 {
            0 => {
                line(
                    format!("p{i}"),
                    99 | qc | dup,
                    "chrA",
                    pos,
                    60,
                    "=",
                    pos + 150,
                );
                line(
                    format!("p{i}"),
                    147 | qc | dup,
                    "chrA",
                    pos + 150,
                    60,
                    "=",
                    pos,
                );
            }
            1 => {
                line(format!("s{i}"), 73 | qc, "chrA", pos, 40, "=", pos);
                line(format!("s{i}"), 133 | qc, "chrA", pos, 0, "=", pos);
            }
            2 => {
                line(
                    format!("x{i}"),
                    65 | qc,
                    "chrA",
                    pos,
                    3 + i % 5,
                    "chrB",
                    500 + i,
                );
                line(format!("x{i}"), 129 | qc, "chrB", 500 + i, 60, "chrA", pos);
            }
            3 => line(format!("sec{i}"), 256 | 16 | qc, "chrA", pos, 0, "*", 0),
            4 => line(
                format!("sup{i}"),
                2048 | 97 | qc | dup,
                "chrB",
                1000 + i,
                60,
                "chrA",
                pos,
            ),
            5 => line(format!("u{i}"), qc | dup, "chrB", 2000 + i, 25, "*", 0),
            6 => line(
                format!("np{i}"),
                1 | 64 | 2 | 4 | 8 | qc,
                "chrA",
                pos,
                0,
                "=",
                pos,
            ),
            _ => line(
                format!("pr{i}"),
                1 | 128 | 2 | qc,
                "chrA",
                pos,
                10,
                "=",
                pos,
            ),
        }
    }
    for i in 0..unmapped_tail {
        let flag = if i % 2 == 0 { 77 } else { 141 };
        let qc = if i % 11 == 0 { 0x200 } else { 0 };
        line(format!("t{}", i / 2), flag | qc, "*", 0, 0, "*", 0);
    }
    s
}

/// Writes `sam` and converts it with samtools: sorted BAM, and an index if asked.
fn make_bam(dir: &Path, name: &str, sam: &str, index: Option<&str>) -> PathBuf {
    let sam_path = dir.join(format!("{name}.sam"));
    std::fs::write(&sam_path, sam).unwrap();
    let bam = dir.join(format!("{name}.bam"));
    samtools(&[
        "sort",
        "-o",
        bam.to_str().unwrap(),
        sam_path.to_str().unwrap(),
    ]);
    if let Some(flag) = index {
        let mut args = vec!["index"];
        if !flag.is_empty() {
            args.push(flag);
        }
        args.push(bam.to_str().unwrap());
        samtools(&args);
    }
    bam
}

#[test]
fn generated_edge_cases_match_samtools() {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let sam = edge_case_sam(6000);
    let cases = [
        make_bam(d, "bai", &sam, Some("")),
        make_bam(d, "csi", &sam, Some("-c")),
        make_bam(d, "noindex", &sam, None),
        make_bam(d, "empty", "@HD\tVN:1.6\n@SQ\tSN:chrA\tLN:100\n", Some("")),
        make_bam(d, "no_refs", "@HD\tVN:1.6\n", None),
    ];
    let tail_only: String = {
        let all = edge_case_sam(3000);
        let mut s: String = all
            .lines()
            .filter(|l| l.starts_with('@'))
            .map(|l| format!("{l}\n"))
            .collect();
        s.extend(
            all.lines()
                .filter(|l| l.starts_with('t'))
                .map(|l| format!("{l}\n")),
        );
        s
    };
    let tail = make_bam(d, "tail_only", &tail_only, Some(""));
    for bam in cases.iter().chain([&tail]) {
        assert_same_as_samtools(bam);
    }
    // SAM, gzip SAM, and standard input (BAM and SAM) give the same report.
    let sam_path = d.join("bai.sam");
    assert_same_as_samtools(&sam_path);
    let gz = d.join("edge.sam.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(sam.as_bytes()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let expected = samtools(&["flagstat", sam_path.to_str().unwrap()]);
    assert_eq!(ok(ours(&[gz.to_str().unwrap()])), expected);
    let bam_bytes = std::fs::read(&cases[0]).unwrap();
    for threads in ["1", "3"] {
        assert_eq!(ok(ours_stdin(&["-t", threads, "-"], &bam_bytes)), expected);
    }
    assert_eq!(ok(ours_stdin(&["-"], sam.as_bytes())), expected);
}

#[test]
fn long_reads_and_large_headers_match_samtools() {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A header of several BGZF blocks, and reads of 150 kb that straddle blocks.
    let mut sam = String::from("@HD\tVN:1.6\n@SQ\tSN:chrA\tLN:2000000\n@SQ\tSN:chrB\tLN:2000000\n");
    for i in 0..4000 {
        sam.push_str(&format!("@SQ\tSN:contig_with_a_long_name_{i}\tLN:1000\n"));
    }
    let long = "ACGT".repeat(37_500);
    let qual = "F".repeat(long.len());
    for i in 0..12u32 {
        let pos = 1000 + i * 90_000;
        let (flag, rnext, mapq) = match i % 3 {
            0 => (97, "chrB", 30),
            1 => (99, "=", 60),
            _ => (0, "*", 3),
        };
        sam.push_str(&format!(
            "long{i}\t{flag}\tchrA\t{pos}\t{mapq}\t150000M\t{rnext}\t{pos}\t0\t{long}\t{qual}\n"
        ));
        sam.push_str(&format!(
            "short{i}\t16\tchrA\t{pos}\t60\t4M\t*\t0\t0\tACGT\tFFFF\n"
        ));
    }
    sam.push_str(&format!(
        "unplaced\t4\t*\t0\t0\t*\t*\t0\t0\t{long}\t{qual}\n"
    ));
    let bam = make_bam(dir.path(), "long", &sam, Some(""));
    assert_same_as_samtools(&bam);
    let bare = dir.path().join("long_bare.bam");
    std::fs::copy(&bam, &bare).unwrap();
    assert_same_as_samtools(&bare);
}

#[test]
fn report_goes_to_a_file_only_when_complete() {
    let dir = tempfile::tempdir().unwrap();
    let bam = copy_with_index(dir.path(), "sarscov2.bam");
    let out = dir.path().join("report.txt");
    let (b, o) = (bam.to_str().unwrap(), out.to_str().unwrap());
    let stdout = ok(ours(&[b]));
    ok(ours(&["-o", o, b]));
    assert_eq!(std::fs::read(&out).unwrap(), stdout);
    // A second run replaces the report, as a shell redirect of samtools' does.
    std::fs::write(&out, b"stale").unwrap();
    ok(ours(&["-o", o, b]));
    assert_eq!(std::fs::read(&out).unwrap(), stdout);
    ok(ours(&["-o", o, "--force", b]));
    let missing = dir.path().join("none.txt");
    assert!(
        !ours(&["-o", missing.to_str().unwrap(), "/nonexistent.bam"])
            .status
            .success()
    );
    assert!(!missing.exists());
}

/// Runs on a bad file: exit 1, a message naming the file and a byte offset, no panic.
fn assert_clear_error(file: &Path, want: &str) {
    for threads in ["1", "2"] {
        let out = ours(&["-t", threads, file.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{}: {err}", file.display());
        assert!(err.starts_with("seqfarm: error: "), "{err}");
        assert!(!err.contains("panick"), "{err}");
        assert!(err.contains(&file.display().to_string()), "{err}");
        assert!(err.contains(want), "want {want:?} in: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn bad_inputs_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = std::fs::read(data("bam/chm1.bam")).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    assert_clear_error(
        &write("truncated.bam", &good[..good.len() / 2]),
        "EOF marker",
    );
    assert_clear_error(&write("no_eof.bam", &good[..good.len() - 28]), "EOF marker");
    let mut corrupt = good.clone();
    let mid = good.len() / 2;
    for b in &mut corrupt[mid..mid + 64] {
        *b ^= 0x5a;
    }
    let corrupt = write("corrupt.bam", &corrupt);
    assert_clear_error(&corrupt, "offset");
    std::fs::copy(data("bam/chm1.bam.bai"), d.join("corrupt.bam.bai")).unwrap();
    assert_clear_error(&corrupt, "offset");
    assert_clear_error(&write("random.bam", &[0x1f, 0x8b, 8, 4, 1, 2, 3]), "offset");
    assert_clear_error(&write("text.bam", b"this is not\ta BAM file\n"), "line 1: ");
    let binary: Vec<u8> = (0..4000u32).map(|i| (i * 7919 % 251) as u8).collect();
    assert_clear_error(&write("binary.bam", &binary), "not a BAM");

    // An index from another BAM, and an index older than its BAM.
    let foreign = d.join("foreign.bam");
    std::fs::write(&foreign, &good).unwrap();
    std::fs::copy(data("bam/sarscov2.bam.bai"), d.join("foreign.bam.bai")).unwrap();
    assert_clear_error(&foreign, "another BAM");

    let out = ours_stdin(&["-"], &good[..good.len() - 28]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("EOF marker"));
}

/// Makes the BAM newer than its index by an hour.
fn make_stale(bam: &Path) {
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(bam)
        .unwrap()
        .set_modified(later)
        .unwrap();
}

#[test]
fn a_stale_index_is_left_aside_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fresh = copy_with_index(d, "chm1.bam");
    let expected = ok(ours(&[fresh.to_str().unwrap()]));
    let stale_dir = d.join("stale");
    std::fs::create_dir(&stale_dir).unwrap();
    let stale = copy_with_index(&stale_dir, "chm1.bam");
    make_stale(&stale);
    let s = stale.to_str().unwrap();
    for threads in ["1", "2"] {
        let out = ours(&["-t", threads, s]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{err}");
        assert_eq!(out.stdout, expected);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("seqfarm: warning: ")
                && err.contains("chm1.bam.bai")
                && err.contains("older than"),
            "{err}"
        );
    }
    if peer("samtools") {
        assert_eq!(expected, samtools(&["flagstat", s]));
    }
    // Commands that need the index still refuse it, naming it.
    let bed = d.join("r.bed");
    std::fs::write(&bed, "1\t100\t200\n").unwrap();
    let out = crate::support::run(&["count", "--bed", bed.to_str().unwrap(), s]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("chm1.bam.bai") && err.contains("older than"),
        "{err}"
    );
    let vcf = data("snp-pileup/chm1_sites.vcf.gz");
    let csv = d.join("out.csv");
    let out = crate::support::run(&[
        "snp-pileup",
        vcf.to_str().unwrap(),
        csv.to_str().unwrap(),
        s,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("chm1.bam.bai") && err.contains("older than"),
        "{err}"
    );
}

#[test]
fn empty_inputs_are_errors_as_in_samtools() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut empties = Vec::new();
    for name in ["empty.bam", "empty.sam"] {
        let p = d.join(name);
        std::fs::write(&p, b"").unwrap();
        empties.push(p);
    }
    let gz = d.join("empty.sam.gz");
    let enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    empties.push(gz);
    for file in &empties {
        assert_clear_error(file, "empty input");
        if peer("samtools") {
            let status = Command::new("samtools")
                .arg("flagstat")
                .arg(file)
                .output()
                .unwrap()
                .status;
            assert!(!status.success(), "samtools reads {}", file.display());
        }
    }
    let out = ours_stdin(&["-"], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("standard") && err.contains("empty input"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn sam_records_samtools_refuses_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let head = "@HD\tVN:1.6\n@SQ\tSN:a\tLN:1000\n";
    let good = "ok\t0\ta\t1\t60\t4M\t*\t0\t0\tACGT\tIIII\n";
    for (name, record, want) in [
        (
            "op.sam",
            "r\t0\ta\t1\t60\t10Q\t*\t0\t0\t*\t*",
            "unrecognized operation 'Q'",
        ),
        (
            "seq.sam",
            "r\t0\ta\t1\t60\t4M\t*\t0\t0\tACG\t*",
            "different length",
        ),
        (
            "qual.sam",
            "r\t0\ta\t1\t60\t3M\t*\t0\t0\tACG\tII",
            "SEQ and QUAL",
        ),
        (
            "oplen.sam",
            "r\t0\ta\t1\t60\t268435456M\t*\t0\t0\t*\t*",
            "too long",
        ),
    ] {
        let p = dir.path().join(name);
        std::fs::write(&p, format!("{head}{good}{record}\n{good}")).unwrap();
        for threads in ["1", "2"] {
            let out = ours(&["-t", threads, p.to_str().unwrap()]);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{name}: {err}");
            assert!(err.contains(name) && err.contains(want), "{err}");
            assert!(err.contains(" 4"), "the line number: {err}");
            assert!(out.stdout.is_empty());
        }
        if peer("samtools") {
            let samtools = Command::new("samtools")
                .arg("flagstat")
                .arg(&p)
                .output()
                .unwrap();
            assert!(!samtools.status.success(), "samtools reads {name}");
        }
    }
}

#[test]
fn alternative_reference_names_resolve_as_in_samtools() {
    let dir = tempfile::tempdir().unwrap();
    let sam = dir.path().join("aliases.sam");
    std::fs::write(
        &sam,
        "@HD\tVN:1.6\n@SQ\tSN:r1\tLN:1000\n@SQ\tSN:r3\tLN:1000\tAN:ref3,chr3\n\
         a\t0\tref3\t1\t60\t3M\t*\t0\t0\tACG\t*\n\
         b\t1\tr1\t1\t60\t3M\tchr3\t5\t0\tACG\t*\n\
         c\t1\tchr3\t1\t60\t3M\tr3\t5\t0\tACG\t*\n\
         d\t0\tzz\t1\t60\t3M\t*\t0\t0\tACG\t*\n",
    )
    .unwrap();
    let report = String::from_utf8(ok(ours(&[sam.to_str().unwrap()]))).unwrap();
    assert!(report.contains("3 + 0 mapped (75.00% : N/A)"), "{report}");
    assert!(
        report.contains("1 + 0 with mate mapped to a different chr\n"),
        "{report}"
    );
    if peer("samtools") {
        assert_same_as_samtools(&sam);
    }
}

#[test]
fn samtools_options_are_taken_with_their_meaning() {
    if !peer("samtools") {
        return;
    }
    let bam = data("bam/na12878_chrM.bam");
    let f = bam.to_str().expect("utf-8 path");
    for format in ["json", "TSV", "Default"] {
        let want = samtools(&["flagstat", "-@", "2", "-O", format, f]);
        for threads in ["0", "1", "2"] {
            let args = [
                "-@",
                threads,
                "-O",
                format,
                "--verbosity",
                "3",
                "--input-fmt-option",
                "decode_md=0",
                f,
            ];
            assert_eq!(ok(ours(&args)), want, "-@ {threads} -O {format}");
        }
    }
    for (args, want) in [
        (&["-@", "2", "-t", "2", f][..], "cannot be used with"),
        (
            &["--input-fmt-option", "filter=flag.dup", f][..],
            "not taken",
        ),
        (&["-O", "sam", f][..], "unknown format"),
    ] {
        let out = ours(args);
        assert!(!out.status.success(), "{args:?}");
        let message = String::from_utf8_lossy(&out.stderr);
        assert!(message.contains(want), "{args:?}: {message}");
    }
}
