//! Short reads and alignments at other offsets, against the real bowtie2.
//!
//! Reads of 4 to 24 bases drawn from the CHM1 slice's reference (as they are, with one
//! substitution, on either strand), single and as mates of pairs, with bowtie2's seed
//! options and trimming: bowtie2 looks such reads up whole, exactly and with one
//! mismatch, and seqfarm must align the same reads, with the same AS (and pair type),
//! and for 97 % of them the same second best (XS) and MAPQ: bowtie2 finds a
//! two-mismatch runner-up of a read of 20 only by seeds shorter than the read, among
//! whose many hits it samples. Reads of a few bases occur many times: where both tools
//! picked different copies among equally good ones the position may differ.
//!
//! In local mode with `-a`, bowtie2 reports a second alignment of a read at another
//! offset of the same stretch of reference (a tandem repeat), as a secondary record
//! and as the primary's XS: seqfarm must report the same records.

use crate::align_fixtures::{
    args, bowtie2_align, chm1_genome, expect_success, path_arg, require, seqfarm_align, test_dir,
    Sam, SamRecord,
};
use crate::support::{data, reverse_complement, seqfarm};

/// Share of the reads whose XS and MAPQ must agree.
const SAME_RATING: f64 = 0.97;

/// The CHM1 slice's reference bases (all contigs joined), read with `zcat`.
fn reference_bases() -> Vec<u8> {
    require("zcat");
    let out = std::process::Command::new("zcat")
        .arg(data("pe_chm1_ref.fa.gz"))
        .output()
        .expect("zcat runs");
    assert!(out.status.success());
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|line| !line.starts_with(b">"))
        .flatten()
        .copied()
        .collect()
}

/// A xorshift generator: the same reads on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// `count` pieces of `len` bases (of `lens`) of the reference without an N, every
/// third with one base substituted, every other reverse-complemented.
fn pieces(
    rng: &mut Rng,
    reference: &[u8],
    lens: std::ops::Range<usize>,
    count: usize,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for len in lens {
        for k in 0..count {
            let piece = loop {
                let at = rng.below(reference.len() - len);
                let piece = &reference[at..at + len];
                if piece.iter().all(|b| b"ACGT".contains(b)) {
                    break piece.to_vec();
                }
            };
            let mut piece = piece;
            if k % 3 == 2 {
                let i = rng.below(len);
                piece[i] = if piece[i] == b'A' { b'C' } else { b'A' };
            }
            out.push(if k % 2 == 1 {
                reverse_complement(&piece)
            } else {
                piece
            });
        }
    }
    out
}

fn fastq(name: &str, reads: &[Vec<u8>], suffix: &str) -> String {
    let mut text = String::new();
    for (i, r) in reads.iter().enumerate() {
        let bases = String::from_utf8_lossy(r);
        text.push_str(&format!(
            "@{name}{i}{suffix}\n{bases}\n+\n{}\n",
            "I".repeat(r.len())
        ));
    }
    text
}

/// Runs both tools with `options` and requires every read's outcome to agree: aligned
/// or not (and why, `YF`), AS and, for pairs, the pair type (YT); XS and MAPQ too for
/// [`SAME_RATING`] of them.
fn agree(what: &str, options: &[&str], inputs: &[String]) {
    let dir = test_dir();
    let (bt_sam, sf_sam) = (dir.path().join("bt.sam"), dir.path().join("sf.sam"));
    let mut common = args(options);
    common.extend(inputs.iter().cloned());
    let mut bt_args = common.clone();
    bt_args.extend(["-S".into(), path_arg(&bt_sam)]);
    expect_success("bowtie2", &bowtie2_align(chm1_genome(), &bt_args));
    let mut sf_args = common;
    sf_args.extend(["-S".into(), path_arg(&sf_sam)]);
    expect_success("seqfarm align", &seqfarm_align(chm1_genome(), &sf_args));
    let (bt, sf) = (Sam::read(&bt_sam), Sam::read(&sf_sam));
    let (bt, sf) = (bt.primary(), sf.primary());
    assert_eq!(bt.len(), sf.len(), "{what}: records");
    let (mut aligned, mut rated_alike) = (0, 0);
    let mut differ = Vec::new();
    for (key, b) in &bt {
        let s = sf[key];
        aligned += usize::from(!b.unmapped());
        let outcome = |r: &SamRecord| {
            (
                r.unmapped(),
                r.int_tag("AS"),
                r.tag("YF").map(str::to_string),
                r.tag("YT").map(str::to_string),
            )
        };
        let rating = |r: &SamRecord| (r.mapq, r.int_tag("XS"));
        let show = || {
            format!(
                "{}\n  bowtie2 {}\n  seqfarm {}",
                key.0,
                b.brief(),
                s.brief()
            )
        };
        assert_eq!(outcome(b), outcome(s), "{what}: {}", show());
        if rating(b) == rating(s) {
            rated_alike += 1;
        } else {
            differ.push(show());
        }
    }
    println!(
        "{what}: {} records, {aligned} aligned by bowtie2, {rated_alike} with the same XS \
         and MAPQ",
        bt.len()
    );
    for line in &differ {
        println!("{line}");
    }
    assert!(
        aligned > bt.len() / 2,
        "{what}: too few aligned to compare: {aligned}"
    );
    assert!(
        rated_alike as f64 >= SAME_RATING * bt.len() as f64,
        "{what}: XS and MAPQ agree for only {rated_alike} of {}",
        bt.len()
    );
}

#[test]
fn short_reads_align_as_bowtie2_aligns_them() {
    let reference = reference_bases();
    let mut rng = Rng(0x5eed_0057);
    let reads = pieces(&mut rng, &reference, 4..25, 6);
    let dir = test_dir();
    let fq = dir.path().join("short.fq");
    std::fs::write(&fq, fastq("r", &reads, "")).unwrap();
    let input = vec!["-U".to_string(), path_arg(&fq)];
    for options in [
        &[][..],
        &["-L", "6"],
        &["-L", "10", "-i", "C,1,0"],
        &["-N", "1"],
        &["--norc"],
        &["-3", "7"],
        &["--trim-to", "12"],
    ] {
        agree(&format!("short reads {options:?}"), options, &input);
    }
}

#[test]
fn short_mates_pair_as_bowtie2_pairs_them() {
    let reference = reference_bases();
    let mut rng = Rng(0x5eed_1057);
    let (mut m1, mut m2) = (Vec::new(), Vec::new());
    while m1.len() < 60 {
        let span = 150 + rng.below(200);
        let at = rng.below(reference.len() - span);
        let fragment = &reference[at..at + span];
        if !fragment.iter().all(|b| b"ACGT".contains(b)) {
            continue;
        }
        let (l1, l2) = (8 + rng.below(13), 8 + rng.below(32));
        let mut first = fragment[..l1].to_vec();
        if m1.len() % 3 == 0 {
            let i = rng.below(l1);
            first[i] = if first[i] == b'A' { b'C' } else { b'A' };
        }
        m1.push(first);
        m2.push(reverse_complement(&fragment[span - l2..]));
    }
    let dir = test_dir();
    let (f1, f2) = (dir.path().join("m1.fq"), dir.path().join("m2.fq"));
    std::fs::write(&f1, fastq("p", &m1, "/1")).unwrap();
    std::fs::write(&f2, fastq("p", &m2, "/2")).unwrap();
    let input = vec![
        "-1".to_string(),
        path_arg(&f1),
        "-2".to_string(),
        path_arg(&f2),
    ];
    agree("short mates", &[], &input);
}

#[test]
fn k_mers_of_long_reads_align_as_bowtie2_aligns_them() {
    let reference = reference_bases();
    let mut rng = Rng(0x5eed_2057);
    let dir = test_dir();
    let fa = dir.path().join("long.fa");
    let mut text = String::new();
    for k in 0..5 {
        let at = rng.below(reference.len() - 200);
        let piece = String::from_utf8_lossy(&reference[at..at + 120]);
        text.push_str(&format!(">long{k}\n{piece}\n"));
    }
    std::fs::write(&fa, text).unwrap();
    for kmers in ["10,9", "12,5"] {
        let input = vec![
            "-F".to_string(),
            kmers.to_string(),
            "-U".into(),
            path_arg(&fa),
        ];
        agree(&format!("-F {kmers}"), &[], &input);
    }
}

#[test]
fn local_all_reports_the_alignment_at_another_offset() {
    require("bowtie2-build");
    let dir = test_dir();
    let (fa, fq) = (dir.path().join("ref.fa"), dir.path().join("read.fq"));
    std::fs::write(&fa, ">r\nTTGTTCGTTTGTTCGT\n").unwrap();
    std::fs::write(&fq, "@q\nTTGTTCGTTTGTT\n+\nIIIIIIIIIIIII\n").unwrap();
    let bt2 = dir.path().join("bt2");
    let sfi = dir.path().join("sf");
    let built = std::process::Command::new("bowtie2-build")
        .arg("-q")
        .arg(&fa)
        .arg(&bt2)
        .output()
        .expect("bowtie2-build runs");
    assert!(built.status.success());
    let built = seqfarm()
        .args(["index", "-o"])
        .arg(&sfi)
        .arg(&fa)
        .output()
        .unwrap();
    assert!(built.status.success());
    let index = crate::align_fixtures::Indexed {
        seqfarm: sfi,
        bowtie2: bt2,
    };
    let fields = |out: &std::process::Output| -> Vec<Vec<String>> {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.starts_with('@'))
            .map(|l| {
                let f: Vec<&str> = l.split('\t').collect();
                // FLAG, POS, MAPQ, CIGAR, AS, XS
                let tag = |t: &str| {
                    f[11..]
                        .iter()
                        .find(|x| x.starts_with(t))
                        .map(|x| x.to_string())
                };
                vec![
                    f[1].to_string(),
                    f[3].to_string(),
                    f[4].to_string(),
                    f[5].to_string(),
                    tag("AS:i:").unwrap_or_default(),
                    tag("XS:i:").unwrap_or_default(),
                ]
            })
            .collect()
    };
    let base = ["--local", "-L", "8", "-i", "C,1,0", "--score-min", "C,12"];
    for report in [&["-a"][..], &["-k", "2"], &[]] {
        let mut options = args(&base);
        options.extend(args(report));
        options.extend(["-U".into(), path_arg(&fq)]);
        let bt = bowtie2_align(&index, &options);
        let sf = seqfarm_align(&index, &options);
        expect_success("bowtie2", &bt);
        expect_success("seqfarm align", &sf);
        assert_eq!(fields(&sf), fields(&bt), "{report:?}");
    }
    // bowtie2: 13M at 1 (AS 26, XS 16, MAPQ 38) and with -a the 8M5S at 9 (AS 16).
    let mut options = args(&base);
    options.extend(["-a".into(), "-U".into(), path_arg(&fq)]);
    let records = fields(&seqfarm_align(&index, &options));
    assert_eq!(records.len(), 2);
    assert_eq!(records[1][..4], ["256", "9", "255", "8M5S"]);
}
