//! `seqfarm depth`: the files of `mosdepth -n --by` (0.3, run here on the same BAMs),
//! by window and by BED, with thresholds, `-Q` and `-F`, at 1 and 2 threads and with
//! tiny tasks; `--per-base` against mosdepth without `-n`; errors on bad input.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{data, file_bytes, peer, seqfarm, succeeded, window_for};

const BAMS: [&str; 4] = [
    "snp-pileup/normal_slice.bam",
    "bam/na12878_chrM.bam",
    "bam/sarscov2.bam",
    "bam/long_cigar.bam",
];

/// The files both tools write (`.gz` ones compared decompressed).
const FILES: [&str; 5] = [
    "regions.bed.gz",
    "thresholds.bed.gz",
    "mosdepth.summary.txt",
    "mosdepth.global.dist.txt",
    "mosdepth.region.dist.txt",
];

fn mosdepth(dir: &Path, options: &[&str], bam: &Path) -> PathBuf {
    let prefix = dir.join("mosdepth");
    succeeded(Command::new("mosdepth").args(options).arg(&prefix).arg(bam));
    prefix
}

fn depth(dir: &Path, name: &str, options: &[&str], bam: &Path) -> PathBuf {
    let prefix = dir.join(name);
    succeeded(
        seqfarm()
            .arg("depth")
            .args(options)
            .arg("-o")
            .arg(&prefix)
            .arg(bam),
    );
    prefix
}

fn file(prefix: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}.{suffix}", prefix.display()))
}

/// A BED with UCSC header lines, names, an extra column, zero-length and overlapping regions, a contig the
/// BAM lacks, out of order, around the reads of the BAM's first mapped contig.
fn regions(dir: &Path, bam: &Path) -> PathBuf {
    let out = succeeded(Command::new("samtools").arg("idxstats").arg(bam));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut bed = String::from("browser position 1:1-100\ntrack name=x\n#comment\n");
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f[0] == "*" || f[2] == "0" {
            continue;
        }
        let (name, len): (&str, i64) = (f[0], f[1].parse().unwrap());
        for i in 0..12i64 {
            let start = (i * 7919 * 131) % len;
            let end = (start + 5000 + i * 977).min(len);
            match i % 3 {
                0 => bed.push_str(&format!("{name}\t{start}\t{end}\tr{i}\textra\n")),
                1 => bed.push_str(&format!("{name}\t{start}\t{end}\n")),
                _ => bed.push_str(&format!("{name}\t{start}\t{start}\tzero\n")),
            }
        }
    }
    bed.push_str("nochrom\t10\t20\tx\n");
    let path = dir.join("regions.bed");
    std::fs::write(&path, bed).unwrap();
    path
}

/// Asserts that each of `names` our run wrote equals mosdepth's (decompressed), and
/// that we wrote none that mosdepth did not.
fn assert_same_files<'a>(
    theirs: &Path,
    ours: &Path,
    names: impl IntoIterator<Item = &'a str>,
    context: &str,
) {
    for name in names {
        let expected = file(theirs, name);
        if !expected.exists() {
            assert!(!file(ours, name).exists(), "{name} written");
            continue;
        }
        assert!(
            file_bytes(&file(ours, name)) == file_bytes(&expected),
            "{name} differs for {context}"
        );
    }
}

/// Runs both tools and compares every file mosdepth wrote.
fn compare(bam: &Path, by: (&str, &str), peer_options: &[&str], options: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let theirs = mosdepth(
        dir.path(),
        &[&["-n", "--by", by.1], peer_options].concat(),
        bam,
    );
    for (i, extra) in [
        &["-t", "1"][..],
        &["-t", "2"],
        &["-t", "2", "--task-bytes", "1"],
    ]
    .iter()
    .enumerate()
    {
        let args = [&[by.0, by.1], options, extra].concat();
        let ours = depth(dir.path(), &format!("seqfarm{i}"), &args, bam);
        let context = format!("{} with {args:?}", bam.display());
        assert_same_files(&theirs, &ours, FILES, &context);
    }
}

#[test]
fn windows_match_mosdepth() {
    if !peer("mosdepth") {
        return;
    }
    for bam in BAMS {
        let bam = data(bam);
        let (narrow, wide) = (window_for(&bam, 500), window_for(&bam, 1000));
        compare(
            &bam,
            ("--window", &narrow),
            &["-T", "1,10,20"],
            &["-T", "1,10,20"],
        );
        compare(&bam, ("--window", &wide), &["-Q", "20"], &["-Q", "20"]);
    }
}

/// A threshold past the largest depth counted (2^31 - 1) is labelled as given, as
/// mosdepth labels it.
#[test]
fn a_threshold_beyond_any_depth_is_labelled_as_given() {
    assert!(peer("mosdepth"));
    let bam = data(BAMS[0]);
    let window = window_for(&bam, 500);
    let thresholds = ["-T", "1,3000000000"];
    compare(&bam, ("--window", &window), &thresholds, &thresholds);
}

#[test]
fn bed_regions_match_mosdepth() {
    if !peer("mosdepth") || !peer("samtools") {
        return;
    }
    for bam in BAMS {
        let bam = data(bam);
        let dir = tempfile::tempdir().unwrap();
        let bed = regions(dir.path(), &bam);
        let bed = bed.to_str().unwrap();
        compare(&bam, ("--bed", bed), &[], &[]);
        compare(
            &bam,
            ("--bed", bed),
            &["-T", "0,5,100", "-Q", "30", "-F", "0"],
            &["-T", "100,0,5", "-Q", "30", "-F", "0"],
        );
    }
}

#[test]
fn per_base_matches_mosdepth_without_n() {
    if !peer("mosdepth") {
        return;
    }
    for bam in ["snp-pileup/normal_slice.bam", "bam/chm1.bam"] {
        let bam = data(bam);
        let size = window_for(&bam, 777);
        let dir = tempfile::tempdir().unwrap();
        let prefix = dir.path().join("mosdepth");
        succeeded(
            Command::new("mosdepth")
                .args(["--by", &size, "-F", "1024"])
                .arg(&prefix)
                .arg(&bam),
        );
        for threads in ["1", "2"] {
            let ours = depth(
                dir.path(),
                &format!("seqfarm{threads}"),
                &["--window", &size, "-F", "1024", "--per-base", "-t", threads],
                &bam,
            );
            let names = FILES.into_iter().chain(["per-base.bed.gz"]);
            let context = format!("{} at {threads} threads", bam.display());
            assert_same_files(&prefix, &ours, names, &context);
        }
    }
}

/// The lines `tabix FILE REGION` prints.
fn tabix(file: &Path, region: &str) -> String {
    let out = succeeded(Command::new("tabix").arg(file).arg(region));
    String::from_utf8(out.stdout).unwrap()
}

/// The data lines of a BED `text` that overlap 1-based `[first, last]` of `contig`, as
/// tabix selects them (an empty interval covers the base after it).
fn overlapping(text: &str, contig: &str, first: u64, last: u64) -> String {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let (start, end): (u64, u64) = (f[1].parse().unwrap(), f[2].parse().unwrap());
            f[0] == contig && start < last && end.max(start + 1) >= first
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Each `.bed.gz` gets a CSI index that tabix queries as it queries the index htslib
/// itself builds for the same file (`tabix -p bed --csi`), with BED's coordinates.
/// (mosdepth's own indexes declare 1-based starts, so they answer a query with one more
/// line at a boundary and cannot be the reference.)
#[test]
fn csi_indexes_answer_tabix_queries_as_htslibs() {
    if !peer("tabix") {
        return;
    }
    let bam = data("snp-pileup/normal_slice.bam");
    let dir = tempfile::tempdir().unwrap();
    let ours = depth(
        dir.path(),
        "seqfarm",
        &["--window", "777", "--per-base", "-T", "1,10", "-t", "2"],
        &bam,
    );
    let per_base = String::from_utf8(file_bytes(&file(&ours, "per-base.bed.gz"))).unwrap();
    let lines: Vec<&str> = per_base.lines().collect();
    let contig = lines[0].split('\t').next().unwrap().to_string();
    let mut queries = vec![(contig.clone(), 1, 1), (contig.clone(), 1, 1 << 24)];
    for line in lines.iter().step_by(lines.len() / 7 + 1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (start, end): (u64, u64) = (f[1].parse().unwrap(), f[2].parse().unwrap());
        for (first, last) in [(start, start), (start + 1, start + 1), (end, end + 1)] {
            queries.push((f[0].to_string(), first.max(1), last.max(1)));
        }
        queries.push((
            f[0].to_string(),
            start.saturating_sub(900) + 1,
            start + 3000,
        ));
    }
    for name in ["regions.bed.gz", "per-base.bed.gz", "thresholds.bed.gz"] {
        let path = file(&ours, name);
        let copy = dir.path().join(format!("htslib.{name}"));
        std::fs::copy(&path, &copy).unwrap();
        succeeded(
            Command::new("tabix")
                .args(["-p", "bed", "--csi"])
                .arg(&copy),
        );
        let text = String::from_utf8(file_bytes(&path)).unwrap();
        for (contig, first, last) in &queries {
            let region = format!("{contig}:{first}-{last}");
            let got = tabix(&path, &region);
            assert_eq!(got, tabix(&copy, &region), "{name} {region}");
            assert_eq!(
                got,
                overlapping(&text, contig, *first, *last),
                "{name} {region}"
            );
        }
        assert!(!tabix(&path, &contig).is_empty(), "{name}");
    }
}

#[test]
fn missing_index_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let bam = dir.path().join("x.bam");
    std::fs::copy(data("bam/sarscov2.bam"), &bam).unwrap();
    let out = seqfarm()
        .args(["depth", "--window", "100", "-o"])
        .arg(dir.path().join("out"))
        .arg(&bam)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("x.bam") && err.contains("index"), "{err}");
    assert!(!dir.path().join("out.regions.bed.gz").exists());
}

#[test]
fn bad_bed_line_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bed = dir.path().join("bad.bed");
    std::fs::write(&bed, "# header\nMN908947.3\t1\t100\nMN908947.3\tten\t100\n").unwrap();
    let out = seqfarm()
        .args(["depth", "--bed"])
        .arg(&bed)
        .arg("-o")
        .arg(dir.path().join("out"))
        .arg(data("bam/sarscov2.bam"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.bed") && err.contains('3') && err.contains("ten"),
        "{err}"
    );
    assert!(!dir.path().join("out.regions.bed.gz").exists());
}

#[test]
fn existing_outputs_are_replaced_as_mosdepth_replaces_them() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = dir.path().join("out");
    let summary = file(&prefix, "mosdepth.summary.txt");
    let run = |force: bool| {
        std::fs::write(&summary, "old").unwrap();
        let mut c = seqfarm();
        c.args(["depth", "--window", "1000", "-o"])
            .arg(&prefix)
            .arg(data("bam/sarscov2.bam"));
        if force {
            c.arg("--force");
        }
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(std::fs::read_to_string(&summary)
            .unwrap()
            .starts_with("chrom\tlength"));
    };
    run(false);
    run(true);
}
