//! Inputs and pairs at the edges of what bowtie2 defines, each run through bowtie2 and
//! `seqfarm align` with the same options and compared: reads under 2 bases, reads
//! without qualities, bzip2 input, empty entries in a list of files, `--un` files with
//! an empty read, a pair whose mate 2 alone aligns, mates that start at one base, and read
//! names past SAM's limit.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::align_fixtures::{
    args, bowtie2_align, data_arg, expect_success, path_arg, require, seqfarm_align, test_dir,
    test_genome, Sam,
};
use crate::support::{file_bytes, random_dna, reverse_complement};

/// The first `n` records of a gzipped FASTQ file in tests/data, as (name, seq, qual).
fn fastq_records(file: &str, n: usize) -> Vec<(String, String, String)> {
    let text = String::from_utf8(file_bytes(Path::new(&data_arg(file)))).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    lines
        .chunks(4)
        .take(n)
        .map(|r| {
            let name = r[0][1..].to_string();
            (name, r[1].to_string(), r[3].to_string())
        })
        .collect()
}

fn write_fastq(path: &Path, records: &[(String, String, String)]) -> PathBuf {
    let mut text = String::new();
    for (name, seq, qual) in records {
        text.push_str(&format!("@{name}\n{seq}\n+\n{qual}\n"));
    }
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

/// Runs both tools with `list`; their SAM outputs and summaries (standard error).
fn both(list: &[String]) -> [(Sam, String); 2] {
    let genome = test_genome();
    [
        ("seqfarm", seqfarm_align(genome, list)),
        ("bowtie2", bowtie2_align(genome, list)),
    ]
    .map(|(tool, out)| {
        let stderr = expect_success(&format!("{tool} {list:?}"), &out);
        (Sam::parse(&String::from_utf8_lossy(&out.stdout)), stderr)
    })
}

/// The line of a summary that counts the reads.
fn read_count(summary: &str) -> &str {
    summary
        .lines()
        .find(|l| l.contains("reads; of these:"))
        .unwrap_or_else(|| panic!("no summary in {summary}"))
}

#[test]
fn short_reads_and_side_files_as_bowtie2() {
    let dir = test_dir();
    let mut reads = fastq_records("pe_sim_R1.fq.gz", 20);
    reads.insert(3, ("empty".into(), String::new(), String::new()));
    reads.insert(7, ("one".into(), "A".into(), "I".into()));
    let fq = write_fastq(&dir.path().join("r.fq"), &reads);
    let mut outputs = Vec::new();
    for tool in ["seqfarm", "bowtie2"] {
        let un = dir.path().join(format!("{tool}.un.fq"));
        let list = args(&["-U", &path_arg(&fq), "--un", &path_arg(&un)]);
        let out = if tool == "seqfarm" {
            seqfarm_align(test_genome(), &list)
        } else {
            bowtie2_align(test_genome(), &list)
        };
        expect_success(tool, &out);
        let sam = Sam::parse(&String::from_utf8_lossy(&out.stdout));
        let filtered: Vec<(String, u32, Option<String>)> = sam
            .records
            .iter()
            .filter(|r| r.name == "empty" || r.name == "one")
            .map(|r| (r.name.clone(), r.flag, r.tag("YF").map(str::to_owned)))
            .collect();
        outputs.push((filtered, std::fs::read(&un).unwrap()));
    }
    assert_eq!(outputs[0].0, outputs[1].0, "length-filtered reads");
    assert_eq!(outputs[0].0.len(), 2, "the records of both short reads");
    assert_eq!(
        String::from_utf8_lossy(&outputs[0].1),
        String::from_utf8_lossy(&outputs[1].1),
        "--un files"
    );
}

#[test]
fn reads_without_qualities_get_bowtie2s_qual() {
    let dir = test_dir();
    let fasta = dir.path().join("r.fa");
    let mut text = String::new();
    for (name, seq, _) in fastq_records("pe_sim_R1.fq.gz", 10) {
        text.push_str(&format!(">{name}\n{seq}\n"));
    }
    std::fs::write(&fasta, text).unwrap();
    let [(ours, _), (theirs, _)] = both(&args(&["-f", "-U", &path_arg(&fasta)]));
    let quals = |sam: &Sam| -> Vec<(String, String)> {
        let mut q: Vec<_> = sam
            .records
            .iter()
            .map(|r| (r.name.clone(), r.qual.clone()))
            .collect();
        q.sort();
        q
    };
    assert_eq!(quals(&ours), quals(&theirs));
    assert!(ours
        .records
        .iter()
        .all(|r| r.qual.bytes().all(|b| b == b'I')));
}

#[test]
fn bzip2_input_and_lists_with_empty_entries_read_as_bowtie2_reads_them() {
    let dir = test_dir();
    let fq = write_fastq(
        &dir.path().join("r.fq"),
        &fastq_records("pe_sim_R1.fq.gz", 30),
    );
    let bz2 = dir.path().join("r.fq.bz2");
    let mut encoder = bzip2::write::BzEncoder::new(
        std::fs::File::create(&bz2).unwrap(),
        bzip2::Compression::fast(),
    );
    encoder.write_all(&std::fs::read(&fq).unwrap()).unwrap();
    encoder.finish().unwrap();
    let (fq, bz2) = (path_arg(&fq), path_arg(&bz2));
    // (bowtie2's wrapper reads a list holding a .bz2 name as one file name: the bzip2
    // file is given alone.)
    for list in [
        bz2,
        format!("{fq},"),
        format!("{fq},,{fq}"),
        format!(",{fq}"),
    ] {
        let [(ours, our_summary), (theirs, their_summary)] = both(&args(&["-U", &list]));
        assert_eq!(
            read_count(&our_summary),
            read_count(&their_summary),
            "-U {list}"
        );
        assert_eq!(ours.records.len(), theirs.records.len(), "-U {list}");
    }
}

#[test]
fn mate_2_alone_and_mates_at_one_base_are_written_as_bowtie2_writes_them() {
    let dir = test_dir();
    let pairs = 12;
    let mates1 = fastq_records("pe_sim_R1.fq.gz", pairs);
    let mates2 = fastq_records("pe_sim_R2.fq.gz", pairs);
    let strip = |name: &str| {
        name.trim_end_matches("/1")
            .trim_end_matches("/2")
            .to_string()
    };
    let (mut r1, mut r2) = (Vec::new(), Vec::new());
    for (i, ((n1, _, q1), (_, s2, q2))) in mates1.iter().zip(&mates2).enumerate() {
        let name = strip(n1);
        // Pairs 0-9: mate 1 is sequence no genome holds. Pairs 10 and 11: mate 1 is
        // mate 2 on the other strand, so both mates start at the same base.
        let s1 = if i < 10 {
            random_dna(s2.len(), i as u64)
        } else {
            reverse_complement(s2.as_bytes())
        };
        let s1 = String::from_utf8(s1).unwrap();
        r1.push((name.clone(), s1, q1[..s2.len()].to_string()));
        r2.push((name, s2.clone(), q2.clone()));
    }
    let m1 = write_fastq(&dir.path().join("m1.fq"), &r1);
    let m2 = write_fastq(&dir.path().join("m2.fq"), &r2);
    let list = args(&["-1", &path_arg(&m1), "-2", &path_arg(&m2)]);
    let [(ours, _), (theirs, _)] = both(&list);
    // bowtie2 gives up on some good mates 2 beside junk mates 1 (seqfarm places them):
    // the pairs compared are those it placed a mate of.
    let placed: std::collections::BTreeSet<&str> = theirs
        .records
        .iter()
        .filter(|r| r.flag & 4 == 0)
        .map(|r| r.name.as_str())
        .collect();
    assert!(placed.len() >= 4, "bowtie2 placed {placed:?}");
    // Flags but 0x2 (Debian's bowtie2 2.5.0 misflags some concordant pairs), in order.
    let layout = |sam: &Sam| -> Vec<(String, u32, i64)> {
        sam.records
            .iter()
            .filter(|r| placed.contains(r.name.as_str()))
            .map(|r| (r.name.clone(), r.flag & 0xfd, r.tlen))
            .collect()
    };
    assert_eq!(layout(&ours), layout(&theirs));
}

/// A record's name, flag, position, score (AS) and filter tag (YF).
type Outcome = (String, u32, u64, Option<String>, Option<String>);

/// Each record's outcome, sorted.
fn outcomes(sam: &Sam) -> Vec<Outcome> {
    let mut v: Vec<_> = sam
        .records
        .iter()
        .map(|r| {
            let tag = |t: &str| r.tag(t).map(str::to_owned);
            (r.name.clone(), r.flag, r.pos, tag("AS"), tag("YF"))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn score_filter_and_minimum_score_limits_as_bowtie2() {
    let dir = test_dir();
    // 50-base reads, some with sequencing errors; in local mode a 2-base one too
    // (seqfarm does not place reads that short, bowtie2 does end to end).
    let mut reads: Vec<_> = fastq_records("pe_sim_R1.fq.gz", 16)
        .into_iter()
        .map(|(n, s, q)| (n, s[..50].to_string(), q[..50].to_string()))
        .collect();
    let fq = path_arg(&write_fastq(&dir.path().join("r.fq"), &reads));
    reads.push(("two".into(), "AC".into(), "II".into()));
    let with_two = path_arg(&write_fastq(&dir.path().join("r2.fq"), &reads));
    // A positive minimum end to end is 0 (only exact matches align); a read that
    // cannot reach the local minimum is filtered (YF:Z:SC): with --ma 0 every read.
    for (options, reads) in [
        (&["--score-min", "C,10"][..], &fq),
        (&["--local", "--ma", "0"], &with_two),
        (&["--local"], &with_two),
    ] {
        let mut list = args(options);
        list.extend(args(&["-U", reads]));
        let [(ours, our_stderr), (theirs, _)] = both(&list);
        assert_eq!(outcomes(&ours), outcomes(&theirs), "{options:?}");
        if options[0] == "--score-min" {
            assert!(our_stderr.contains("set to 0"), "{our_stderr}");
            assert!(ours.records.iter().any(|r| r.flag & 4 == 0));
        } else {
            assert!(ours.records.iter().any(|r| r.tag("YF") == Some("SC")));
        }
    }
    // Under --no-mixed, a mate over the N ceiling still says so.
    let mut with_ns = fastq_records("pe_sim_R1.fq.gz", 4);
    let mates2 = fastq_records("pe_sim_R2.fq.gz", 4);
    with_ns[1].1 = "N".repeat(30) + &with_ns[1].1[30..];
    let m1 = path_arg(&write_fastq(&dir.path().join("m1.fq"), &with_ns));
    let m2 = path_arg(&write_fastq(&dir.path().join("m2.fq"), &mates2));
    let list = args(&["--no-mixed", "-1", &m1, "-2", &m2]);
    let [(ours, _), (theirs, _)] = both(&list);
    let filters = |sam: &Sam| -> Vec<(String, u32, Option<String>)> {
        let mut v: Vec<_> = sam
            .records
            .iter()
            .filter(|r| r.flag & 4 != 0)
            .map(|r| (r.name.clone(), r.flag, r.tag("YF").map(str::to_owned)))
            .collect();
        v.sort();
        v
    };
    assert_eq!(filters(&ours), filters(&theirs));
    assert!(filters(&ours).iter().any(|f| f.2.as_deref() == Some("NS")));
}

#[test]
fn names_past_sams_limit_are_cut_as_bowtie2_cuts_them() {
    require("samtools");
    let dir = test_dir();
    let long = |i: usize, mate: u8| format!("r{i}{}/{mate} comment{i}", "n".repeat(290));
    let mates = |file: &str, mate: u8| {
        let mut reads = fastq_records(file, 4);
        for (i, r) in reads.iter_mut().enumerate() {
            r.0 = long(i, mate);
        }
        path_arg(&write_fastq(&dir.path().join(format!("{mate}.fq")), &reads))
    };
    let (m1, m2) = (mates("pe_sim_R1.fq.gz", 1), mates("pe_sim_R2.fq.gz", 2));
    let names = |sam: &Sam| -> Vec<String> { sam.records.iter().map(|r| r.name.clone()).collect() };
    // bowtie2 cuts at 255 characters, one more than SAM allows; seqfarm at 254, so
    // samtools reads its output. The whole header line is kept with --sam-no-qname-trunc.
    let [(ours, _), (theirs, _)] = both(&args(&["-1", &m1, "-2", &m2]));
    let cut: Vec<String> = names(&theirs)
        .iter()
        .map(|n| n[..254].to_string())
        .collect();
    assert_eq!(names(&theirs)[0].len(), 255);
    assert_eq!(names(&ours), cut);
    let [(ours, _), (theirs, _)] = both(&args(&["--sam-no-qname-trunc", "-1", &m1, "-2", &m2]));
    assert_eq!(names(&ours), names(&theirs));
    assert_eq!(names(&ours)[0], long(0, 1));
    // BAM holds 254 characters of a whole header line; samtools reads both outputs back.
    for (options, file) in [
        (&[][..], "cut.sam"),
        (&["--sam-no-qname-trunc"], "full.bam"),
    ] {
        let out = dir.path().join(file);
        let mut list = args(options);
        list.extend(args(&["-1", &m1, "-2", &m2, "-o", &path_arg(&out)]));
        expect_success("seqfarm", &seqfarm_align(test_genome(), &list));
        let view = std::process::Command::new("samtools")
            .arg("view")
            .arg(&out)
            .output()
            .expect("samtools runs");
        let text = expect_success("samtools view", &view);
        assert!(text.is_empty(), "{text}");
        let sam = Sam::parse(&String::from_utf8_lossy(&view.stdout));
        assert_eq!(names(&sam), cut, "{file}");
    }
}
