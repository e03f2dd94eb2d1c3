//! `seqfarm align --sort`: the same records in the same order as `samtools sort` of the
//! unsorted output, `SO:coordinate`, an index with the content `samtools index` gives,
//! identical files at any thread count and sort memory, and no temporary file left
//! behind, after success or failure.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::support::{data, entry_names, index_test_genome, peer, seqfarm, succeeded};

/// The test genome indexed once for this module.
fn index() -> &'static Path {
    static PREFIX: OnceLock<PathBuf> = OnceLock::new();
    PREFIX.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("e2e-align-sort-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        index_test_genome(&dir)
    })
}

/// Single-end reads (the junk reads do not align) or pairs.
fn reads(paired: bool) -> Vec<String> {
    let arg = |name: &str| data(name).to_str().unwrap().to_string();
    if paired {
        vec![
            "-1".into(),
            format!("{},{}", arg("pe_sim_R1.fq.gz"), arg("pe_junk_R1.fq.gz")),
            "-2".into(),
            format!("{},{}", arg("pe_sim_R2.fq.gz"), arg("pe_junk_R2.fq.gz")),
        ]
    } else {
        vec![
            "-U".into(),
            format!(
                "{},{}",
                arg("align_reads_150.fq.gz"),
                arg("pe_junk_R1.fq.gz")
            ),
        ]
    }
}

/// Runs `seqfarm align -x INDEX READS EXTRA`.
fn align(reads: &[String], extra: &[&str]) -> Output {
    seqfarm()
        .arg("align")
        .arg("-x")
        .arg(index())
        .args(reads)
        .args(extra)
        .output()
        .expect("seqfarm runs")
}

fn stdout_of(command: &mut Command) -> String {
    String::from_utf8(succeeded(command).stdout).unwrap()
}

fn samtools(args: &[&str], file: &Path) -> String {
    stdout_of(Command::new("samtools").args(args).arg(file))
}

/// A BAI's content, bins in number order (`samtools index` writes them in hash order).
type BaiContent = Vec<(BTreeMap<u32, Vec<(u64, u64)>>, Vec<u64>)>;

fn bai_content(path: &Path) -> (BaiContent, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..4], b"BAI\x01", "{}", path.display());
    let mut at = 4;
    let mut next = |n: usize| {
        let field = &bytes[at..at + n];
        at += n;
        let mut value = [0u8; 8];
        value[..n].copy_from_slice(field);
        u64::from_le_bytes(value)
    };
    let references = next(4);
    let mut content = Vec::new();
    for _ in 0..references {
        let mut bins = BTreeMap::new();
        for _ in 0..next(4) {
            let bin = next(4) as u32;
            let chunks = (0..next(4)).map(|_| (next(8), next(8))).collect();
            bins.insert(bin, chunks);
        }
        let linear = (0..next(4)).map(|_| next(8)).collect();
        content.push((bins, linear));
    }
    let rest = bytes[at..].to_vec();
    (content, rest)
}

/// `--sort`'s records equal `samtools sort`'s of the unsorted BAM, with its `@HD` line;
/// the BAM passes `samtools quickcheck`; our index has `samtools index`'s content, and
/// idxstats and a region query agree with samtools' own sorted and indexed file.
fn sorted_like_samtools(paired: bool) {
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (unsorted, sorted, theirs) = (
        dir.path().join("u.bam"),
        dir.path().join("s.bam"),
        dir.path().join("t.bam"),
    );
    let reads = reads(paired);
    succeeded(
        Command::new(env!("CARGO_BIN_EXE_seqfarm"))
            .args(["align", "-p", "2", "-x"])
            .arg(index())
            .args(&reads)
            .arg("-o")
            .arg(&unsorted),
    );
    let out = align(
        &reads,
        &["-p", "2", "--sort", "-o", sorted.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    succeeded(
        Command::new("samtools")
            .args(["sort", "-o"])
            .arg(&theirs)
            .arg(&unsorted),
    );
    succeeded(Command::new("samtools").arg("index").arg(&theirs));
    let records = samtools(&["view"], &sorted);
    assert!(records.lines().count() > 1000);
    assert!(
        records.lines().any(|l| l.split('\t').nth(2) == Some("*")),
        "unaligned reads"
    );
    assert_eq!(records, samtools(&["view"], &theirs));
    let header = samtools(&["view", "-H"], &sorted);
    assert_eq!(header.lines().next(), Some("@HD\tVN:1.6\tSO:coordinate"));
    assert_eq!(
        header.lines().next(),
        samtools(&["view", "-H"], &theirs).lines().next()
    );
    succeeded(Command::new("samtools").arg("quickcheck").arg(&sorted));

    let ours = dir.path().join("s.bam.bai");
    assert!(ours.exists(), "{:?}", entry_names(dir.path()));
    let copy = dir.path().join("c.bam");
    std::fs::copy(&sorted, &copy).unwrap();
    succeeded(Command::new("samtools").arg("index").arg(&copy));
    assert_eq!(
        bai_content(&ours),
        bai_content(&dir.path().join("c.bam.bai"))
    );
    assert_eq!(
        samtools(&["idxstats"], &sorted),
        samtools(&["idxstats"], &theirs)
    );
    for region in ["chr20_1_260000:100000-180000", "ecoli_K12_1_200000:1-30000"] {
        let query =
            |bam: &Path| stdout_of(Command::new("samtools").arg("view").arg(bam).arg(region));
        let got = query(&sorted);
        assert!(!got.is_empty(), "{region}");
        assert_eq!(got, query(&theirs), "{region}");
    }
    assert_eq!(
        entry_names(dir.path()),
        [
            "c.bam",
            "c.bam.bai",
            "s.bam",
            "s.bam.bai",
            "t.bam",
            "t.bam.bai",
            "u.bam"
        ]
    );
}

#[test]
fn single_end_sorted_as_samtools_sorts() {
    sorted_like_samtools(false);
}

#[test]
fn pairs_sorted_as_samtools_sorts() {
    sorted_like_samtools(true);
}

/// Spilled runs (the least `--sort-memory`) and 1 or 2 threads give the same bytes
/// (the output's path is in `@PG CL:`, so every run writes the same one).
#[test]
fn sort_memory_and_threads_do_not_change_the_files() {
    let reads = reads(true);
    let mut files = Vec::new();
    let dir = tempfile::tempdir().unwrap();
    for (threads, memory) in [("2", "768M"), ("1", "1M"), ("2", "1.5M")] {
        let bam = dir.path().join("s.bam");
        let out = align(
            &reads,
            &[
                "-p",
                threads,
                "--sort",
                "--sort-memory",
                memory,
                "-o",
                bam.to_str().unwrap(),
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            entry_names(dir.path()),
            ["s.bam", "s.bam.bai"],
            "no temporary left"
        );
        let bai = std::fs::read(dir.path().join("s.bam.bai")).unwrap();
        files.push((std::fs::read(&bam).unwrap(), bai));
        std::fs::remove_file(&bam).unwrap();
        std::fs::remove_file(dir.path().join("s.bam.bai")).unwrap();
    }
    assert!(files.windows(2).all(|w| w[0] == w[1]));
}

/// A bad read halfway through (after runs were spilled) fails the run and leaves
/// neither the output, nor its index, nor any run file.
#[test]
fn a_failed_sort_leaves_no_files() {
    let dir = tempfile::tempdir().unwrap();
    let text =
        String::from_utf8(crate::support::file_bytes(&data("align_reads_150.fq.gz"))).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[4 * 1500 + 2] = "not a plus line";
    let fastq = dir.path().join("bad.fq");
    let mut file = std::fs::File::create(&fastq).unwrap();
    writeln!(file, "{}", lines.join("\n")).unwrap();
    drop(file);
    let bam = dir.path().join("s.bam");
    let out = align(
        &["-U".into(), fastq.to_str().unwrap().into()],
        &[
            "-p",
            "2",
            "--sort",
            "--sort-memory",
            "1M",
            "-o",
            bam.to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.fq"), "{stderr}");
    assert_eq!(entry_names(dir.path()), ["bad.fq"]);
}

/// Defect: `--sort-memory 1` (or `0.1`, `1K`) was accepted and wrote a temporary file
/// per record, merged over and over. Below 1M (samtools sort's minimum for `-m`) it is
/// a usage error, as every bad option value: status 2, nothing written.
#[test]
fn a_sort_memory_below_1m_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let reads = reads(false);
    let bam = dir.path().join("s.bam");
    for memory in ["1", "0.1", "1K", "1023K"] {
        let out = align(
            &reads,
            &[
                "--sort",
                "--sort-memory",
                memory,
                "-o",
                bam.to_str().unwrap(),
            ],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{memory}: {stderr}");
        assert!(
            stderr.contains("--sort-memory") && stderr.contains("minimum, 1M"),
            "{memory}: {stderr}"
        );
        assert!(
            entry_names(dir.path()).is_empty(),
            "{memory}: nothing written"
        );
    }
}

/// `--sort` needs a BAM file: not SAM, not standard output; `--sort-memory` needs
/// `--sort`; an existing index is kept without `--force`.
#[test]
fn sort_needs_a_bam_file() {
    let dir = tempfile::tempdir().unwrap();
    let reads = reads(false);
    let sam = dir.path().join("x.sam");
    for extra in [
        vec!["--sort", "-S", sam.to_str().unwrap()],
        vec!["--sort"],
        vec!["--sort", "-o", "-"],
        vec!["--sort-memory", "1M", "-o", "x.bam"],
    ] {
        let out = align(&reads, &extra);
        assert!(!out.status.success(), "{extra:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("sort"), "{extra:?}: {stderr}");
        // The SAM output of -S is named, not called standard output.
        if extra.contains(&"-S") {
            assert!(
                stderr.contains("-S") && !stderr.contains("standard output"),
                "{stderr}"
            );
        }
    }
    // An index left by an earlier run is replaced, as `samtools index` replaces it.
    let bam = dir.path().join("s.bam");
    std::fs::write(dir.path().join("s.bam.bai"), b"old").unwrap();
    let out = align(&reads, &["--sort", "-o", bam.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_ne!(std::fs::read(dir.path().join("s.bam.bai")).unwrap(), b"old");
}
