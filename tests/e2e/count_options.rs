//! `seqfarm count` with bedtools multicov's overlap options (`-s`, `-S`, `-f`, `-r`,
//! `-split`) and its command-line spelling (`-bams ... -bed ...`): the same counts as the
//! real `bedtools multicov` on spliced reads of both strands, and the same bytes as
//! seqfarm's own spelling.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::count::ok;
use crate::support::{copy_bam, peer, seqfarm, stage_data};

/// The spliced test contig and its length.
const CONTIG: &str = "chrS";
const CONTIG_LENGTH: i64 = 200_000;

/// A small deterministic generator (64-bit LCG), for reads and regions.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// A coordinate-sorted, indexed BAM of RNA-like reads on [`CONTIG`] (made by samtools
/// from SAM text): spliced CIGARs (`N`), deletions, insertions, clips, both strands,
/// every MAPQ and the FLAGs multicov filters.
fn spliced_bam(dir: &Path) -> PathBuf {
    let cigars = [
        "50M",
        "30M500N20M",
        "10S40M",
        "25M2D25M",
        "20M1000N10M200N20M",
        "5M3000N45M",
        "20M5I25M",
        "40M10N10M2S",
        "2H48M",
        "10M1N10M1N10M",
    ];
    let flags = [0, 16, 0, 16, 0, 16, 1024, 1040, 512, 256, 2064, 3, 19, 0];
    let mut sam = format!("@HD\tVN:1.6\tSO:unsorted\n@SQ\tSN:{CONTIG}\tLN:{CONTIG_LENGTH}\n");
    let mut rng = Lcg(17);
    for i in 0..4000 {
        let pos = 1 + rng.below(CONTIG_LENGTH as u64 - 6000);
        let cigar = cigars[rng.below(cigars.len() as u64) as usize];
        let flag = flags[rng.below(flags.len() as u64) as usize];
        let mapq = rng.below(61);
        sam.push_str(&format!(
            "r{i}\t{flag}\t{CONTIG}\t{pos}\t{mapq}\t{cigar}\t*\t0\t0\t*\t*\n"
        ));
    }
    // Unmapped reads placed at a position, without CIGAR.
    for i in 0..50 {
        let pos = 1 + rng.below(CONTIG_LENGTH as u64 - 6000);
        sam.push_str(&format!("u{i}\t4\t{CONTIG}\t{pos}\t0\t*\t*\t0\t0\t*\t*\n"));
    }
    let text = dir.join("spliced.sam");
    std::fs::write(&text, sam).unwrap();
    let bam = dir.join("spliced.bam");
    ok(Command::new("samtools")
        .args(["sort", "-o"])
        .arg(&bam)
        .arg(&text)
        .output()
        .expect("samtools runs"));
    ok(Command::new("samtools")
        .arg("index")
        .arg(&bam)
        .output()
        .expect("samtools runs"));
    bam
}

/// A temporary directory holding [`spliced_bam`], or `None` (the test is skipped) when
/// samtools, which makes it, is not installed.
fn spliced_bam_dir() -> Option<(tempfile::TempDir, PathBuf)> {
    if !peer("samtools") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let bam = spliced_bam(dir.path());
    Some((dir, bam))
}

/// BED6 regions on the spliced contig (strands `+`, `-` and `.`, every length, some of
/// zero length), on chrM and on chromosome 20 of the other test BAMs.
fn bed6(dir: &Path) -> PathBuf {
    let mut rng = Lcg(5);
    let mut bed = String::from("track name=strands\n");
    for i in 0..300 {
        let start = rng.below(CONTIG_LENGTH as u64 - 6000);
        let length = [0, 1, 30, 120, 800, 5000][rng.below(6) as usize];
        let strand = ["+", "-", "."][i % 3];
        bed.push_str(&format!(
            "{CONTIG}\t{start}\t{}\tr{i}\t0\t{strand}\n",
            start + length
        ));
    }
    for (chrom, start, end, strand) in [
        ("chrM", 0, 16_571, "+"),
        ("chrM", 3_000, 3_300, "-"),
        ("chrM", 8_000, 8_000, "+"),
        ("20", 1_000_000, 1_010_000, "-"),
        ("20", 1_004_000, 1_004_150, "+"),
        ("20", 1_170_000, 1_250_000, "."),
    ] {
        bed.push_str(&format!("{chrom}\t{start}\t{end}\tx\t0\t{strand}\n"));
    }
    let path = dir.join("strands.bed");
    std::fs::write(&path, bed).unwrap();
    path
}

/// BED12 regions of one to three blocks on the spliced contig (and a zero-length one).
fn bed12(dir: &Path) -> PathBuf {
    let mut rng = Lcg(9);
    let mut bed = String::new();
    for i in 0..200 {
        let start = rng.below(CONTIG_LENGTH as u64 - 6000) as i64;
        let blocks = 1 + rng.below(3) as i64;
        let (mut sizes, mut starts, mut at) = (Vec::new(), Vec::new(), 0);
        for _ in 0..blocks {
            let size = 20 + rng.below(300) as i64;
            starts.push(at.to_string());
            sizes.push(size.to_string());
            at += size + 50 + rng.below(2000) as i64;
        }
        let end = start + at - 50;
        let strand = ["+", "-"][i % 2];
        bed.push_str(&format!(
            "{CONTIG}\t{start}\t{end}\tg{i}\t0\t{strand}\t{start}\t{end}\t0\t{blocks}\t{},\t{},\n",
            sizes.join(","),
            starts.join(",")
        ));
    }
    bed.push_str(&format!(
        "{CONTIG}\t7000\t7000\tz\t0\t+\t7000\t7000\t0\t1\t2\t0\n"
    ));
    let path = dir.join("genes.bed");
    std::fs::write(&path, bed).unwrap();
    path
}

/// `bedtools multicov OPTIONS -bams BAMS -bed BED`, or `seqfarm count` the same way.
pub(super) fn multicov(program: Command, options: &[&str], bams: &[PathBuf], bed: &Path) -> Output {
    let mut program = program;
    program
        .args(options)
        .arg("-bams")
        .args(bams)
        .arg("-bed")
        .arg(bed)
        .output()
        .expect("the program runs")
}

/// `bedtools multicov`.
pub(super) fn bedtools() -> Command {
    let mut command = Command::new("bedtools");
    command.arg("multicov");
    command
}

fn count() -> Command {
    let mut command = seqfarm();
    command.arg("count");
    command
}

/// Each option set in seqfarm's own spelling (`--split` for `-split`).
fn own_spelling(options: &[&str]) -> Vec<String> {
    options
        .iter()
        .map(|o| if *o == "-split" { "--split" } else { o }.to_string())
        .collect()
}

const OPTIONS: [&[&str]; 17] = [
    &["-s"],
    &["-S"],
    &["-s", "-S"],
    &["-f", "0.5"],
    &["-f", "0.5", "-r"],
    &["-f", "1.0"],
    &["-split"],
    &["-q", "20"],
    &["-split", "-s"],
    &["-split", "-S", "-q", "20"],
    &["-split", "-f", "0.5"],
    &["-split", "-f", "0.3", "-r"],
    &["-S", "-f", "0.9", "-D", "-F"],
    &["-r"],
    // A fraction of 0 or less counts the reads that only touch a region, as bedtools does.
    &["-f", "0"],
    &["-f", "0", "-r"],
    &["-f", "-1", "-s"],
];

#[test]
fn overlap_options_match_bedtools_multicov() {
    if !peer("bedtools") || !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // BAMs counted together share their contigs.
    let sets = [
        vec![spliced_bam(dir.path())],
        stage_data(dir.path(), &["bam/na12878_chrM.bam"]),
        stage_data(
            dir.path(),
            &["snp-pileup/normal_slice.bam", "snp-pileup/tumor_slice.bam"],
        ),
    ];
    for bams in &sets {
        for bed in [bed6(dir.path()), bed12(dir.path())] {
            for options in OPTIONS {
                let want = ok(multicov(bedtools(), options, bams, &bed));
                let got = ok(multicov(count(), options, bams, &bed));
                assert_eq!(got, want, "{options:?} {bams:?} {}", bed.display());
                for threads in ["1", "3"] {
                    let mut own = count();
                    own.args(own_spelling(options))
                        .args(["-t", threads, "--task-bytes", "20000", "--bed"])
                        .arg(&bed)
                        .args(bams);
                    let got = ok(own.output().unwrap());
                    assert_eq!(got, want, "{options:?} {bams:?} -t {threads}");
                }
            }
        }
    }
    // The spliced reads count under every option set, and the options change counts.
    let bed = bed12(dir.path());
    let mut seen = std::collections::HashSet::new();
    for options in OPTIONS {
        let want = ok(multicov(bedtools(), options, &sets[0], &bed));
        let both_strands = options.contains(&"-s") && options.contains(&"-S");
        assert_eq!(
            want.lines().all(|l| l.ends_with("\t0")),
            both_strands,
            "{options:?}"
        );
        seen.insert(want);
    }
    assert!(seen.len() > OPTIONS.len() - 2, "{} distinct", seen.len());
}

#[test]
fn bedtools_spelling_gives_the_same_bytes_as_seqfarms() {
    let Some((dir, spliced)) = spliced_bam_dir() else {
        return;
    };
    let copy = dir.path().join("copy.bam");
    copy_bam(&spliced, &copy);
    let bams = vec![spliced, copy];
    let bed = bed12(dir.path());
    let theirs = dir.path().join("theirs.tsv");
    let ours = dir.path().join("ours.tsv");
    let mut command = count();
    command
        .args(["-split", "-s", "-q", "5", "-o"])
        .arg(&theirs)
        .arg("-bams")
        .args(&bams)
        .arg("-bed")
        .arg(&bed);
    ok(command.output().unwrap());
    let mut command = count();
    command
        .args([
            "--split",
            "--same-strand",
            "--min-map-quality",
            "5",
            "--bed",
        ])
        .arg(&bed)
        .arg("--output")
        .arg(&ours)
        .args(&bams);
    ok(command.output().unwrap());
    let ours = std::fs::read(ours).unwrap();
    assert!(!ours.is_empty());
    assert_eq!(std::fs::read(theirs).unwrap(), ours);
}

#[test]
fn bad_bed12_blocks_with_split_name_the_line() {
    let Some((dir, bam)) = spliced_bam_dir() else {
        return;
    };
    let bed = dir.path().join("bad.bed");
    std::fs::write(
        &bed,
        format!(
            "{CONTIG}\t100\t400\tg\t0\t+\t100\t400\t0\t2\t50,100\t0,200\n\
             {CONTIG}\t100\t400\tg\t0\t+\t100\t400\t0\t2\t50\t0,200\n"
        ),
    )
    .unwrap();
    // Without -split the blocks are not read, as in bedtools.
    let mut command = count();
    command.arg("--bed").arg(&bed).arg(&bam);
    ok(command.output().unwrap());
    let out = multicov(count(), &["-split"], &[bam], &bed);
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        message.contains("bad.bed") && message.contains("line 2") && message.contains("starts"),
        "{message}"
    );
}

#[test]
fn a_fraction_that_is_not_a_number_is_refused() {
    let out = seqfarm()
        .args(["count", "-f", "half", "--bed", "x.bed", "x.bam"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a number"));
}
