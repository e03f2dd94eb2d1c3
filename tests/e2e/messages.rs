//! Error messages say what is wrong with which file, once, without echoing huge input
//! back: line numbers that are line numbers, the file a failed write went to, what `-`
//! and directories cannot be, and the likely cause of a bad block (an index of another
//! BAM).

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use crate::support::{data, peer, run, seqfarm};

/// The error line of a failed run (exit 1, no panic).
fn error_of(out: Output) -> String {
    let e = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.starts_with("seqfarm: error: "), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    e
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_one_record_fasta_error_names_the_line_not_record_2() {
    let dir = tempfile::tempdir().unwrap();
    let fa = dir.path().join("one.fa");
    std::fs::write(&fa, ">only\nACGTXX!!\n").unwrap();
    let e = error_of(run(&["index", s(&fa)]));
    assert!(e.contains("one.fa: line 2: byte 0x21"), "{e}");
    assert!(!e.contains("record"), "{e}");
}

#[cfg(target_os = "linux")]
#[test]
fn snp_pileup_disk_full_names_the_output_once() {
    let e = error_of(run(&[
        "snp-pileup",
        s(&data("snp-pileup/sites_slice.vcf.gz")),
        "/dev/full",
        s(&data("snp-pileup/normal_slice.bam")),
        s(&data("snp-pileup/tumor_slice.bam")),
    ]));
    assert!(e.contains("/dev/full: No space left on device"), "{e}");
    assert_eq!(e.matches("/dev/full").count(), 1, "{e}");
}

#[test]
fn standard_input_as_a_bam_needs_an_index() {
    let bed = data("snp-pileup/sites_slice.vcf.gz");
    for args in [
        vec!["count", "--window", "1000", "-"],
        vec!["snp-pileup", s(&bed), "-", "-"],
    ] {
        let e = error_of(run(&args));
        assert!(
            e.contains("standard input is not supported here (a BAM index is needed)"),
            "{e}"
        );
    }
}

#[test]
fn a_directory_as_a_bam_or_an_index_is_called_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("dir.bam")).unwrap();
    let e = error_of(run(&["count", "--window", "1000", s(&d.join("dir.bam"))]));
    assert!(e.contains("dir.bam: is a directory, not a BAM file"), "{e}");
    std::fs::create_dir(d.join("idx.sfi")).unwrap();
    let e = error_of(run(&["locate", "-x", s(&d.join("idx")), "ACGT"]));
    assert!(
        e.contains("idx.sfi: is a directory, not an index file"),
        "{e}"
    );
    assert!(!e.contains("os error 19"), "{e}");
}

#[test]
fn index_errors_say_the_os_text_once() {
    let dir = tempfile::tempdir().unwrap();
    let e = error_of(run(&["locate", "-x", s(&dir.path().join("none")), "ACGT"]));
    assert_eq!(e.matches("No such file or directory").count(), 1, "{e}");
    let e = error_of(run(&["index", "--check", s(&dir.path().join("none"))]));
    assert_eq!(e.matches("No such file or directory").count(), 1, "{e}");
}

#[test]
fn locate_does_not_echo_a_huge_pattern() {
    let mut child = seqfarm()
        .args(["locate", "-x", "unused", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pattern = "A".repeat(133_000);
    pattern.push_str("!\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(pattern.as_bytes())
        .unwrap();
    let e = error_of(child.wait_with_output().unwrap());
    assert!(e.len() < 300, "{} bytes of message", e.len());
    assert!(
        e.contains("(133001 characters)") && e.contains("position 133001"),
        "{e}"
    );
}

#[test]
fn an_option_error_is_a_usage_error_not_the_files() {
    let reference = data("index_ref.fa.gz");
    for option in [
        ["--sa-rate", "0"],
        ["--sa-rate", "24"],
        ["--kmer", "0"],
        ["--kmer", "14"],
    ] {
        let out = run(&[
            "index",
            option[0],
            option[1],
            s(&reference),
            "-o",
            "/nonexistent/x",
        ]);
        let e = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{e}");
        assert!(e.contains(option[0]) && !e.contains("index_ref"), "{e}");
    }
}

#[test]
fn an_index_of_another_bam_is_named_as_the_likely_cause() {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tumour = data("snp-pileup/tumor_slice.bam");
    // The same records at two compression levels: same references, other block offsets.
    let small = d.join("small.bam");
    let big = d.join("big.bam");
    for (path, level) in [(&small, "level=9"), (&big, "level=1")] {
        let made = std::process::Command::new("samtools")
            .args([
                "view",
                "-b",
                "--output-fmt-option",
                level,
                "-o",
                s(path),
                s(&tumour),
            ])
            .status()
            .unwrap();
        assert!(made.success());
    }
    let made = std::process::Command::new("samtools")
        .args(["index", s(&small)])
        .status()
        .unwrap();
    assert!(made.success());
    std::fs::copy(d.join("small.bam.bai"), d.join("big.bam.bai")).unwrap();
    let vcf = data("snp-pileup/sites_slice.vcf.gz");
    for args in [
        vec!["count", "--window", "100000", s(&big)],
        vec!["snp-pileup", s(&vcf), "-", s(&big)],
    ] {
        let e = error_of(run(&args));
        assert!(
            e.contains("big.bam.bai: ") && e.contains("the index may belong to another BAM"),
            "{e}"
        );
    }
}

#[test]
fn a_huge_thread_count_is_capped_with_one_warning() {
    let bam = data("bam/sarscov2.bam");
    let out = run(&["flagstat", "-t", "100000", s(&bam)]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.contains("100000 threads asked for") && e.contains("per core"),
        "{e}"
    );
    let plain = run(&["flagstat", s(&bam)]);
    assert_eq!(out.stdout, plain.stdout);
}

/// Commands that size a decoder by their workers besides the farm, or run two farms
/// (markdup's passes), warn once too.
#[test]
fn region_commands_warn_once_about_a_huge_thread_count() {
    let bam = data("bam/sarscov2.bam");
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("d");
    let marked = dir.path().join("m.bam");
    for args in [
        vec!["markdup", "-t", "100000", s(&bam), "-o", s(&marked)],
        vec!["count", "-t", "100000", "--window", "5000", s(&bam)],
        vec![
            "depth",
            "-t",
            "100000",
            "--window",
            "5000",
            "-o",
            s(&prefix),
            s(&bam),
        ],
    ] {
        let out = run(&args);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {e}");
        assert_eq!(
            e.matches("100000 threads asked for").count(),
            1,
            "{args:?}: {e}"
        );
    }
}

/// A bowtie2 command line run unchanged points `-x` at bowtie2's index: the error says
/// so and how to build seqfarm's, before any output is created.
#[test]
fn a_bowtie2_index_prefix_gets_the_command_that_builds_seqfarms() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("genome");
    std::fs::write(dir.path().join("genome.1.bt2"), b"").unwrap();
    let reads = dir.path().join("r.fq");
    std::fs::write(&reads, "@r\nACGT\n+\nIIII\n").unwrap();
    let sam = dir.path().join("out.sam");
    let e = error_of(run(&[
        "align",
        "-x",
        s(&prefix),
        "-U",
        s(&reads),
        "-S",
        s(&sam),
    ]));
    assert!(e.contains("genome.1.bt2 is a bowtie2 index"), "{e}");
    assert!(
        e.contains(&format!("seqfarm index -o {}", s(&prefix))),
        "{e}"
    );
    assert!(!sam.exists());
    std::fs::remove_file(dir.path().join("genome.1.bt2")).unwrap();
    let e = error_of(run(&["align", "-x", s(&prefix), "-U", s(&reads)]));
    assert!(
        e.contains("no seqfarm index") && !e.contains("bowtie2"),
        "{e}"
    );
}

/// An E-value below the smallest a double holds was read as 0 and refused as "0".
#[test]
fn an_evalue_too_small_to_hold_is_named_as_given() {
    let q = data("search_dna_q.fa");
    let out = run(&["search", "--dna", "--evalue", "1e-400", s(&q), s(&q)]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("1e-400") && e.contains("smallest"), "{e}");
    assert!(!e.contains("--evalue 0"), "{e}");
    assert!(!e.contains("panicked"), "{e}");
}
