//! `seqfarm align` paired input: mates out of step are errors that name both files and
//! the record, leave no output behind and exit non-zero; paired output is the same
//! bytes at any thread count and any SIMD level; unaligned BAM input (`-b`) gives the
//! records its FASTQ gives, and with `--preserve-tags` carries its tags as bowtie2 does.

use std::io::Write;
use std::path::{Path, PathBuf};

use std::process::Command;

use seqfarm_core::simd::{SimdLevel, SIMD_ENV};

use crate::align_fixtures::{
    args, bowtie2_align, data_arg, expect_success, path_arg, require, seqfarm_align, test_dir,
    test_genome, Indexed,
};
use crate::support::seqfarm;

fn fastq(dir: &Path, file: &str, names: &[&str]) -> PathBuf {
    let path = dir.join(file);
    let mut f = std::fs::File::create(&path).unwrap();
    for (i, name) in names.iter().enumerate() {
        // Sequences from the test genome's alphabet; what they align to does not matter.
        let seq: String = (0..60)
            .map(|j| b"ACGT"[(i * 7 + j * 3) % 4] as char)
            .collect();
        writeln!(f, "@{name}\n{seq}\n+\n{}", "I".repeat(60)).unwrap();
    }
    path
}

/// Whether `text` has `n` as a number of its own (not part of a longer one).
fn has_number(text: &str, n: usize) -> bool {
    text.split(|c: char| !c.is_ascii_digit())
        .any(|w| w == n.to_string())
}

/// Runs `seqfarm align` that must fail: non-zero exit, no panic, no output left.
/// Returns stderr.
fn refused(dir: &Path, inputs: &[String]) -> String {
    let sam = dir.join("out.sam");
    let mut list = inputs.to_vec();
    list.extend(["-S".into(), path_arg(&sam)]);
    let out = seqfarm_align(test_genome(), &list);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "accepted: {inputs:?}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".fq"))
        .collect();
    assert!(left.is_empty(), "output left behind: {left:?}");
    stderr
}

#[test]
fn mates_with_different_counts_are_an_error() {
    let dir = test_dir();
    let r1 = fastq(dir.path(), "a_1.fq", &["p1/1", "p2/1", "p3/1", "p4/1"]);
    let r2 = fastq(dir.path(), "a_2.fq", &["p1/2", "p2/2", "p3/2"]);
    let stderr = refused(
        dir.path(),
        &["-1".into(), path_arg(&r1), "-2".into(), path_arg(&r2)],
    );
    assert!(
        stderr.contains("a_1.fq") && stderr.contains("a_2.fq"),
        "the error names both files: {stderr}"
    );
    assert!(has_number(&stderr, 4), "the error names record 4: {stderr}");
}

#[test]
fn mates_with_different_names_are_an_error() {
    let dir = test_dir();
    let r1 = fastq(dir.path(), "b_1.fq", &["p1/1", "p2/1", "p3/1", "p4/1"]);
    let r2 = fastq(dir.path(), "b_2.fq", &["p1/2", "p2/2", "q3/2", "p4/2"]);
    let stderr = refused(
        dir.path(),
        &["-1".into(), path_arg(&r1), "-2".into(), path_arg(&r2)],
    );
    assert!(
        stderr.contains("b_1.fq") && stderr.contains("b_2.fq"),
        "the error names both files: {stderr}"
    );
    assert!(has_number(&stderr, 3), "the error names record 3: {stderr}");
    assert!(
        stderr.contains("p3") && stderr.contains("q3"),
        "the error shows both names: {stderr}"
    );
}

#[test]
fn mate_names_may_differ_in_their_suffix_only() {
    let dir = test_dir();
    let r1 = fastq(dir.path(), "c_1.fq", &["p1/1", "p2 extra", "p3/1"]);
    let r2 = fastq(dir.path(), "c_2.fq", &["p1/2", "p2 other", "p3/2"]);
    let sam = dir.path().join("out.sam");
    let out = seqfarm_align(
        test_genome(),
        &[
            "-1".into(),
            path_arg(&r1),
            "-2".into(),
            path_arg(&r2),
            "-S".into(),
            path_arg(&sam),
        ],
    );
    expect_success("seqfarm align", &out);
    let text = std::fs::read_to_string(&sam).unwrap();
    let names: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('@'))
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(names, ["p1", "p1", "p2", "p2", "p3", "p3"]);
}

#[test]
fn odd_interleaved_file_is_an_error() {
    let dir = test_dir();
    let file = fastq(dir.path(), "il.fq", &["p1/1", "p1/2", "p2/1"]);
    let stderr = refused(dir.path(), &["--interleaved".into(), path_arg(&file)]);
    assert!(
        stderr.contains("il.fq"),
        "the error names the file: {stderr}"
    );
}

#[test]
fn paired_output_is_identical_at_any_thread_count() {
    let dir = test_dir();
    let mut outputs = Vec::new();
    // The same command (same output path, which @PG records) but for the thread count.
    for (threads, ext) in [
        ("1", "sam"),
        ("2", "sam"),
        ("3", "sam"),
        ("1", "bam"),
        ("2", "bam"),
    ] {
        let out = dir.path().join(format!("out.{ext}"));
        let mut list = args(&["-p", threads, "-1"]);
        list.push(data_arg("pe_sim_R1.fq.gz"));
        list.push("-2".into());
        list.push(data_arg("pe_sim_R2.fq.gz"));
        list.push(if ext == "sam" { "-S" } else { "-o" }.into());
        list.push(path_arg(&out));
        expect_success("seqfarm align", &seqfarm_align(test_genome(), &list));
        outputs.push((threads, ext, std::fs::read(&out).unwrap()));
        std::fs::remove_file(&out).unwrap();
    }
    for (threads, ext, bytes) in &outputs {
        let first = &outputs.iter().find(|o| o.1 == *ext).unwrap().2;
        assert!(
            bytes == first,
            "{ext} output with -p {threads} differs from -p 1"
        );
    }
    let sam = String::from_utf8(outputs[0].2.clone()).unwrap();
    let pairs = sam
        .lines()
        .filter(|l| !l.starts_with('@'))
        .filter(|l| {
            let flag: u32 = l.split('\t').nth(1).unwrap().parse().unwrap();
            flag & 0x1 != 0 && flag & 0x900 == 0
        })
        .count();
    assert_eq!(pairs, 8000, "every mate has a paired primary record");
}

/// Every kernel level gives the same SAM, in both modes: the extension kernels, and the
/// index's bit counts (the baseline's under `SEQFARM_SIMD=scalar`, the CPU's POPCNT
/// otherwise), are only faster ways to the same answer.
#[test]
fn paired_output_is_identical_at_every_simd_level() {
    let dir = test_dir();
    let out = dir.path().join("out.sam");
    for mode in ["--end-to-end", "--local"] {
        let mut outputs = Vec::new();
        let levels = [SimdLevel::Scalar, SimdLevel::Avx2, SimdLevel::Avx512];
        for level in levels.into_iter().filter(|l| l.is_supported()) {
            let mut list = args(&[mode, "-p", "2", "-1"]);
            list.push(data_arg("pe_sim_R1.fq.gz"));
            list.push("-2".into());
            list.push(data_arg("pe_sim_R2.fq.gz"));
            list.extend(["-S".into(), path_arg(&out), "--force".into()]);
            let run = seqfarm()
                .arg("align")
                .arg("-x")
                .arg(&test_genome().seqfarm)
                .args(&list)
                .env(SIMD_ENV, level.name())
                .output()
                .expect("seqfarm runs");
            expect_success("seqfarm align", &run);
            outputs.push((level.name(), std::fs::read(&out).unwrap()));
        }
        for (level, bytes) in &outputs {
            assert!(
                bytes == &outputs[0].1,
                "{mode}: the SAM with SEQFARM_SIMD={level} differs from the scalar one"
            );
        }
    }
}

/// The first `records` FASTQ records of a test data file, written to `dir/file`;
/// `strip_mate` drops the names' `/1` or `/2`.
fn head_fastq(dir: &Path, data: &str, file: &str, records: usize, strip_mate: bool) -> PathBuf {
    let out = Command::new("gzip")
        .arg("-dc")
        .arg(data_arg(data))
        .output()
        .expect("gzip runs");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut kept = String::new();
    for (i, line) in text.lines().take(4 * records).enumerate() {
        let line = match line.rsplit_once('/') {
            Some((name, "1" | "2")) if strip_mate && i % 4 == 0 => name,
            _ => line,
        };
        kept.push_str(line);
        kept.push('\n');
    }
    let path = dir.join(file);
    std::fs::write(&path, kept).unwrap();
    path
}

/// `samtools import ARGS -o dir/file`.
fn samtools_import(dir: &Path, file: &str, args: &[String]) -> PathBuf {
    require("samtools");
    let bam = dir.join(file);
    let out = Command::new("samtools")
        .arg("import")
        .args(args)
        .arg("-o")
        .arg(&bam)
        .output()
        .expect("samtools runs");
    expect_success("samtools import", &out);
    bam
}

/// The SAM records of `seqfarm align ARGS`, its @PG line left out.
fn aligned(dir: &Path, inputs: &[String]) -> Vec<String> {
    let sam = dir.join("out.sam");
    let mut list = inputs.to_vec();
    list.extend(["-S".into(), path_arg(&sam), "--force".into()]);
    expect_success("seqfarm align", &seqfarm_align(test_genome(), &list));
    std::fs::read_to_string(&sam)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("@PG"))
        .map(str::to_string)
        .collect()
}

#[test]
fn unaligned_bam_pairs_align_as_their_fastq() {
    let dir = test_dir();
    let d = dir.path();
    let r1 = head_fastq(d, "pe_sim_R1.fq.gz", "r1.fq", 200, false);
    let r2 = head_fastq(d, "pe_sim_R2.fq.gz", "r2.fq", 200, false);
    let bam = samtools_import(
        d,
        "pairs.bam",
        &["-1".into(), path_arg(&r1), "-2".into(), path_arg(&r2)],
    );
    let from_fastq = aligned(d, &["-1".into(), path_arg(&r1), "-2".into(), path_arg(&r2)]);
    let from_bam = aligned(
        d,
        &["-b".into(), path_arg(&bam), "--align-paired-reads".into()],
    );
    assert_eq!(
        from_fastq.iter().filter(|l| !l.starts_with('@')).count(),
        400
    );
    assert!(
        from_bam == from_fastq,
        "-b pairs give other records than -1/-2"
    );
    // Without --align-paired-reads, paired records are not reads (as in bowtie2).
    let none = aligned(d, &["-b".into(), path_arg(&bam)]);
    assert_eq!(none.iter().filter(|l| !l.starts_with('@')).count(), 0);
}

#[test]
fn unaligned_bam_reads_align_as_their_fastq() {
    let dir = test_dir();
    let d = dir.path();
    let reads = head_fastq(d, "pe_sim_R1.fq.gz", "reads.fq", 200, true);
    let bam = samtools_import(d, "reads.bam", &["-0".into(), path_arg(&reads)]);
    let from_fastq = aligned(d, &["-U".into(), path_arg(&reads)]);
    let from_bam = aligned(d, &["-b".into(), path_arg(&bam)]);
    assert_eq!(
        from_fastq.iter().filter(|l| !l.starts_with('@')).count(),
        200
    );
    assert!(
        from_bam == from_fastq,
        "-b reads give other records than -U"
    );
}

/// The tags after seqfarm's and bowtie2's own of each primary record of `sam`, by read
/// name and mate: the fields from the first tag `first` on.
fn preserved_tags(sam: &Path, first: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(sam).unwrap();
    let mut tags: Vec<(String, String)> = text
        .lines()
        .filter(|l| !l.starts_with('@'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let flag: u32 = f[1].parse().unwrap();
            let at = f.iter().position(|t| t.starts_with(first))?;
            (flag & 0x900 == 0).then(|| (format!("{} {}", f[0], flag & 0xC0), f[at..].join("\t")))
        })
        .collect();
    tags.sort();
    tags
}

#[test]
fn unaligned_bam_tags_are_preserved_as_bowtie2_preserves_them() {
    let dir = test_dir();
    let d = dir.path();
    // Tags of each SAM type in the FASTQ comments, made BAM tags by samtools import.
    // A string with a UTF-8 character is copied as it is, as samtools and bowtie2 copy it.
    let fields =
        "BC:Z:ACGT\tXI:i:-300\tXZ:Z:two words\tXU:Z:M\u{fc}ller\tXF:f:1.5\tXP:f:3.14159265\
                  \tXE:f:1e-7\tXQ:A:q\tXB:B:c,1,-2\tXV:B:f,0.1,-2.5e9";
    let tagged = |data: &str, file: &str| {
        let plain = head_fastq(d, data, file, 50, true);
        let text = std::fs::read_to_string(&plain).unwrap();
        let mut out = String::new();
        for (i, line) in text.lines().enumerate() {
            out.push_str(line);
            if i % 4 == 0 {
                out.push('\t');
                out.push_str(fields);
            }
            out.push('\n');
        }
        std::fs::write(&plain, out).unwrap();
        path_arg(&plain)
    };
    let (r1, r2) = (
        tagged("pe_sim_R1.fq.gz", "t1.fq"),
        tagged("pe_sim_R2.fq.gz", "t2.fq"),
    );
    let bam = samtools_import(d, "tagged.bam", &args(&["-T", "*", "-1", &r1, "-2", &r2]));
    let input = args(&[
        "-b",
        &path_arg(&bam),
        "--align-paired-reads",
        "--preserve-tags",
    ]);
    let run = |aligner: fn(&Indexed, &[String]) -> std::process::Output, out: &Path| {
        let mut list = input.clone();
        list.extend(args(&["-S", &path_arg(out)]));
        expect_success("align", &aligner(test_genome(), &list));
    };
    let (ours, theirs) = (d.join("seqfarm.sam"), d.join("bowtie2.sam"));
    run(seqfarm_align, &ours);
    run(bowtie2_align, &theirs);
    let ours = preserved_tags(&ours, "BC:Z:");
    assert_eq!(ours.len(), 100, "every mate's primary record has the tags");
    // bowtie2 writes A values as their character code (XQ:A:113) and floats with six
    // decimals (1e-7 as 0.000000); seqfarm writes them as samtools does.
    let without_floats = |tags: &str| {
        tags.split('\t')
            .filter(|f| !(f[3..].starts_with("f:") || f[3..].starts_with("B:f")))
            .collect::<Vec<_>>()
            .join("\t")
            .replace("XQ:A:113", "XQ:A:q")
    };
    let theirs: Vec<(String, String)> = preserved_tags(&theirs, "BC:Z:");
    let strip = |list: &[(String, String)]| -> Vec<(String, String)> {
        list.iter()
            .map(|(read, tags)| (read.clone(), without_floats(tags)))
            .collect()
    };
    assert_eq!(strip(&ours), strip(&theirs));
    // The tags as samtools writes them, from the unaligned BAM itself.
    let samtools_tags = |bam: &Path| -> Vec<String> {
        let view = Command::new("samtools")
            .arg("view")
            .arg(bam)
            .output()
            .unwrap();
        expect_success("samtools view", &view);
        let text = String::from_utf8(view.stdout).unwrap();
        text.lines()
            .map(|l| l[l.find("BC:Z:").expect("the tags")..].to_string())
            .collect()
    };
    let spelled = samtools_tags(&bam)[0].clone();
    assert!(
        spelled.contains("XP:f:3.14159\tXE:f:1e-07") && spelled.contains("B:f,0.1,-2.5e+09"),
        "samtools rounds floats to six digits: {spelled}"
    );
    for (read, tags) in &ours {
        assert_eq!(*tags, spelled, "{read}");
    }
    // BAM output holds the same tags; without the option there are none.
    let bam_out = d.join("out.bam");
    let mut list = input.clone();
    list.extend(args(&["-o", &path_arg(&bam_out)]));
    expect_success("seqfarm align", &seqfarm_align(test_genome(), &list));
    let in_bam = samtools_tags(&bam_out);
    assert_eq!(in_bam.len(), 100);
    assert!(in_bam.iter().all(|tags| *tags == spelled));
    let plain = aligned(
        d,
        &["-b".into(), path_arg(&bam), "--align-paired-reads".into()],
    );
    assert!(plain.iter().all(|l| !l.contains("BC:Z:")));
}

#[test]
fn unaligned_bam_with_a_broken_pair_is_an_error() {
    let dir = test_dir();
    let d = dir.path();
    let r1 = fastq(d, "b_1.fq", &["p1/1", "p2/1", "p3/1"]);
    let r2 = fastq(d, "b_2.fq", &["p1/2", "p2/2", "p3/2"]);
    let bam = samtools_import(
        d,
        "pairs.bam",
        &["-1".into(), path_arg(&r1), "-2".into(), path_arg(&r2)],
    );
    // Drop the second record (p1's mate 2) so that p1's mate 1 is followed by p2's.
    let sam = Command::new("samtools")
        .args(["view", "-h"])
        .arg(&bam)
        .output()
        .unwrap();
    let text = String::from_utf8(sam.stdout).unwrap();
    let mut kept: Vec<&str> = text.lines().collect();
    let second = kept.iter().position(|l| !l.starts_with('@')).unwrap() + 1;
    kept.remove(second);
    let sam_path = d.join("broken.sam");
    std::fs::write(&sam_path, kept.join("\n") + "\n").unwrap();
    let broken = d.join("broken.bam");
    let out = Command::new("samtools")
        .args(["view", "-b", "-o"])
        .arg(&broken)
        .arg(&sam_path)
        .output()
        .unwrap();
    expect_success("samtools view", &out);
    let out_dir = test_dir();
    let stderr = refused(
        out_dir.path(),
        &[
            "-b".into(),
            path_arg(&broken),
            "--align-paired-reads".into(),
        ],
    );
    assert!(
        stderr.contains("broken.bam"),
        "the error names the file: {stderr}"
    );
    assert!(
        has_number(&stderr, 1),
        "the error names the record: {stderr}"
    );
}

#[test]
fn mates_from_named_pipes_align_as_from_files() {
    let dir = test_dir();
    let d = dir.path();
    let r1 = head_fastq(d, "pe_sim_R1.fq.gz", "r1.fq", 200, false);
    let r2 = head_fastq(d, "pe_sim_R2.fq.gz", "r2.fq", 200, false);
    let from_files = aligned(d, &["-1".into(), path_arg(&r1), "-2".into(), path_arg(&r2)]);
    // Named pipes, as `-1 <(zcat r1.fq.gz)` gives: nothing may read their first bytes
    // before the reads are parsed. Each command has a time limit, so that a reader that
    // never comes cannot hang the test.
    let script = "mkfifo p1 p2 || exit 1
        for m in 1 2; do timeout 20 sh -c \"cat r$m.fq > p$m\" >/dev/null 2>&1 & done
        exec timeout 20 \"$SEQFARM\" align -x \"$INDEX\" -1 p1 -2 p2 -S pipes.sam";
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("SEQFARM", env!("CARGO_BIN_EXE_seqfarm"))
        .env("INDEX", &test_genome().seqfarm)
        .current_dir(d)
        .output()
        .expect("sh runs");
    expect_success("seqfarm align from named pipes", &out);
    let from_pipes: Vec<String> = std::fs::read_to_string(d.join("pipes.sam"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("@PG"))
        .map(str::to_string)
        .collect();
    assert_eq!(from_pipes.len(), from_files.len());
    assert!(
        from_pipes == from_files,
        "reads from pipes align differently"
    );
}
