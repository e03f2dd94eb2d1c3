//! `seqfarm count`: identical to `bedtools multicov` (run here on the same files) with
//! its filters, BED columns and quirks, by region and by window; at several thread counts
//! and task sizes; errors on bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::count_options;
use crate::support::{peer, seqfarm, stage_data};

/// The standard output of a run that succeeded.
pub(super) fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `bedtools multicov OPTIONS -bams BAMS -bed BED`'s output.
fn multicov(options: &[&str], bams: &[PathBuf], bed: &Path) -> String {
    ok(count_options::multicov(
        count_options::bedtools(),
        options,
        bams,
        bed,
    ))
}

fn count(args: &[&str], bams: &[PathBuf]) -> Output {
    seqfarm()
        .arg("count")
        .args(args)
        .args(bams)
        .output()
        .expect("seqfarm runs")
}

const FILTERS: [&[&str]; 6] = [
    &[],
    &["-q", "30"],
    &["-D"],
    &["-F"],
    &["-p"],
    &["-D", "-F", "-p", "-q", "5"],
];

/// Regions with every kind of line bedtools accepts: columns of BED6, a zero-length
/// feature, a contig the BAMs lack, overlapping and repeated regions.
fn regions(dir: &Path) -> PathBuf {
    let mut bed = String::from("track name=regions\n#comment\n");
    for (i, (chrom, start, end)) in [
        ("20", 1_000_000, 1_010_000),
        ("20", 1_005_000, 1_005_000),
        ("20", 1_004_000, 1_012_000),
        ("20", 1_004_000, 1_012_000),
        ("21", 5, 10),
        ("20", 1_170_000, 1_250_000),
        ("20", 999_000, 999_001),
        ("1", 10_000, 20_000),
        ("1", 20_500, 21_000),
        ("chrM", 0, 16_571),
        ("chrM", 3_000, 3_000),
    ]
    .iter()
    .enumerate()
    {
        bed.push_str(&format!(
            "{chrom}\t{start}\t{end}\tr{i}\t{}\t{}\r\n",
            i * 7,
            ["+", "-"][i % 2]
        ));
    }
    let path = dir.join("regions.bed");
    std::fs::write(&path, bed).unwrap();
    path
}

#[test]
fn regions_match_bedtools_multicov() {
    if !peer("bedtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bed = regions(dir.path());
    for set in [
        &["snp-pileup/normal_slice.bam", "snp-pileup/tumor_slice.bam"][..],
        &["bam/chm1.bam"],
        &["bam/na12878_chrM.bam"],
    ] {
        let bams = stage_data(dir.path(), set);
        // The regions' contigs only partly exist in each BAM: the rest count 0.
        for filters in FILTERS {
            let want = multicov(filters, &bams, &bed);
            for threads in ["1", "2"] {
                let mut args = filters.to_vec();
                args.extend(["-t", threads, "--bed", bed.to_str().unwrap()]);
                assert_eq!(ok(count(&args, &bams)), want, "{set:?} {filters:?}");
            }
        }
    }
}

#[test]
fn windows_match_bedtools_makewindows_and_multicov() {
    if !peer("bedtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // (BAMs, window size, the first windows compared: the real BAMs' headers list the
    // whole genome, whose millions of small windows bedtools would take minutes over.)
    for (set, size, contigs) in [
        (&["bam/chm1.bam"][..], "3000", &[("1", 120_000u64)][..]),
        (
            &["bam/na12878_chrM.bam", "bam/na12878_chrM.bam"][..],
            "1000",
            &[("chrM", 16_571), ("chr1", 5_000)][..],
        ),
        (
            &["snp-pileup/normal_slice.bam", "snp-pileup/tumor_slice.bam"][..],
            "10000",
            &[("20", 63_025_520)][..],
        ),
    ] {
        let bams = stage_data(dir.path(), set);
        let genome = dir.path().join("genome.txt");
        let lines: String = contigs.iter().map(|(n, l)| format!("{n}\t{l}\n")).collect();
        std::fs::write(&genome, lines).unwrap();
        let windows = dir.path().join("windows.bed");
        let made = Command::new("bedtools")
            .args(["makewindows", "-w", size, "-g"])
            .arg(&genome)
            .output()
            .unwrap();
        let made = ok(made);
        let n = made.lines().count();
        std::fs::write(&windows, made).unwrap();
        for filters in [&[][..], &["-q", "20", "-D"]] {
            let want = multicov(filters, &bams, &windows);
            let mut args = filters.to_vec();
            args.extend(["-t", "3", "--task-bytes", "20000", "--window", size]);
            let got = ok(count(&args, &bams));
            let first: String = got.lines().take(n).map(|l| format!("{l}\n")).collect();
            assert_eq!(first, want, "{set:?} {filters:?}");
        }
    }
}

#[test]
fn task_sizes_and_threads_do_not_change_counts() {
    let dir = tempfile::tempdir().unwrap();
    let bams = stage_data(
        dir.path(),
        &["snp-pileup/normal_slice.bam", "snp-pileup/tumor_slice.bam"],
    );
    let reference = ok(count(&["-t", "1", "--window", "777"], &bams));
    assert_eq!(reference.lines().count(), 63_025_520usize.div_ceil(777));
    let total: u64 = reference
        .lines()
        .map(|l| l.rsplit('\t').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert!(total > 6_000, "reads counted: {total}");
    for (threads, bytes) in [("2", "1"), ("3", "5000"), ("2", "100000000")] {
        let got = ok(count(
            &["-t", threads, "--task-bytes", bytes, "--window", "777"],
            &bams,
        ));
        assert_eq!(got, reference, "{threads} threads, tasks of {bytes} bytes");
    }
}

#[test]
fn bad_inputs_get_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bams = stage_data(d, &["bam/chm1.bam", "bam/na12878_chrM.bam"]);
    let failure = |out: Output, want: &[&str]| {
        assert!(!out.status.success());
        let e = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!e.contains("panicked"), "{e}");
        for w in want {
            assert!(e.contains(w), "{e} lacks {w}");
        }
    };
    for (name, content, want) in [
        ("spaces.bed", "1 5 10\n", "fewer than 3 columns"),
        ("fields.bed", "1\t5\t10\n1\t5\t10\tx\n", "line 2"),
        ("order.bed", "1\t50\t40\n", "greater than end"),
        ("text.bed", "1\tfive\t10\n", "non-negative integer"),
    ] {
        let p = d.join(name);
        std::fs::write(&p, content).unwrap();
        failure(
            count(&["--bed", p.to_str().unwrap()], &bams[..1]),
            &[name, want],
        );
    }
    failure(count(&["--window", "100"], &bams), &["same reference"]);
    let bare = d.join("bare.bam");
    std::fs::copy(&bams[0], &bare).unwrap();
    failure(
        count(&["--window", "100"], &[bare]),
        &["bare.bam", "no index"],
    );
    failure(count(&["--window", "0"], &bams[..1]), &["window"]);
    let both = count(&["--window", "10", "--bed", "x.bed"], &bams[..1]);
    assert!(!both.status.success());
    let neither = count(&[], &bams[..1]);
    assert!(!neither.status.success());
}

#[test]
fn long_cigars_count_as_their_real_cigar() {
    // The same reads twice: once with a 66,002-operation CIGAR that samtools keeps in
    // the CG tag, once with the equivalent 5-operation CIGAR (tests/data/README.md).
    let dir = tempfile::tempdir().unwrap();
    let bams = stage_data(
        dir.path(),
        &["bam/long_cigar.bam", "bam/long_cigar_short.bam"],
    );
    let bed = dir.path().join("long.bed");
    std::fs::write(
        &bed,
        "c1\t0\t60\nc1\t100\t110\nc1\t40090\t40110\nc1\t40100\t40105\n\
         c1\t66100\t66110\nc1\t66104\t66200\nc1\t66105\t66200\nc1\t69000\t70000\n",
    )
    .unwrap();
    let args = ["--bed", bed.to_str().unwrap()];
    let long = ok(count(&args, &bams[..1]));
    assert_eq!(long, ok(count(&args, &bams[1..])));
    assert!(
        long.starts_with("c1\t0\t60\t1\nc1\t100\t110\t2\n"),
        "{long}"
    );
    assert!(
        long.contains("c1\t66104\t66200\t1\nc1\t66105\t66200\t0\n"),
        "{long}"
    );
    if peer("bedtools") {
        assert_eq!(long, multicov(&[], &bams[..1], &bed));
    }
}

/// A damaged index whose reference count is garbage is an error naming it, not an
/// attempt to reserve memory for that many references.
#[test]
fn a_garbage_index_is_an_error_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let bams = stage_data(dir.path(), &["bam/sarscov2.bam"]);
    let bai = format!("{}.bai", bams[0].display());
    std::fs::write(&bai, b"BAI\x01garbage").unwrap();
    let out = count(&["--window", "1000"], &bams);
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(
        message.contains("sarscov2.bam.bai") && message.contains("references"),
        "{message}"
    );
}
