//! Every long option of bowtie2 2.5's parser (`long_options` in its `bt2_search.cpp`)
//! runs through `seqfarm align`, each with a value where bowtie2 takes one: those that
//! change no alignment here give the same records as a run without them, the three
//! bowtie2 lists but refuses are refused. The options that change the output are
//! compared with the real bowtie2 (`align_options_bowtie2.rs`).

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::support::{data, decompressed, file_bytes, index_test_genome, peer, seqfarm};

/// bowtie2 2.5.4's 188 long options (its table has `--no-unal` twice), and `--sra-acc`,
/// which bowtie2 has where it is built with SRA support (Debian's 2.5.0 is), each with
/// the value given here (`None`: a switch).
pub const BOWTIE2_LONG_OPTIONS: [(&str, Option<&str>); 189] = [
    ("12", Some("TAB5")),
    ("1mm-minlen", Some("40")),
    ("1mm-upfront", None),
    ("454", None),
    ("Q1", Some("q1.qual")),
    ("Q2", Some("q2.qual")),
    ("RG", Some("SM:x")),
    ("align-paired-reads", None),
    ("all", None),
    ("arg-desc", None),
    ("bwa-sw-like", None),
    ("cache", None),
    ("cachelim", Some("5")),
    ("cachesz", Some("8")),
    ("contain", None),
    ("cp-ival", Some("3")),
    ("cp-min", Some("1000")),
    ("desc-exp", Some("1.5")),
    ("desc-fmops", Some("L,100,10")),
    ("desc-kb", Some("L,1024,0")),
    ("desc-landing", Some("10")),
    ("desc-prioritize", None),
    ("dovetail", None),
    ("dp-fail-streak", Some("10")),
    ("dp-fails", Some("100")),
    ("dpad", Some("10")),
    ("ee-fail-streak", Some("10")),
    ("end-to-end", None),
    ("exact-upfront", None),
    ("extends", Some("100")),
    ("fail-streak", Some("10")),
    ("fast", None),
    ("fast-local", None),
    ("ff", None),
    ("filepar", None),
    ("fr", None),
    ("fullref", None),
    ("gbar", Some("6")),
    ("hadoopout", None),
    ("help", None),
    ("ignore-quals", None),
    ("index", Some("INDEX")),
    ("int-quals", None),
    ("integer-quals", None),
    ("interleaved", Some("INTERLEAVED")),
    ("ion-torrent", None),
    ("khits", Some("2")),
    ("local", None),
    ("local-seed-cache-sz", Some("8")),
    ("log-dp", Some("OUT")),
    ("log-dp-opp", Some("OUT")),
    ("ma", Some("0")),
    ("mapq-extra", None),
    ("mapq-print-inputs", None),
    ("mapq-v", Some("3")),
    ("maxins", Some("600")),
    ("met", Some("5")),
    ("met-file", Some("OUT")),
    ("met-read", None),
    ("met-stderr", None),
    ("metrics", Some("5")),
    ("metrics-file", Some("OUT")),
    ("metrics-per-read", None),
    ("metrics-stderr", None),
    ("min-score", Some("L,-0.7,-0.7")),
    ("minins", Some("10")),
    ("mm", None),
    ("mmsweep", None),
    ("mp", Some("5,2")),
    ("multiseed", Some("0,20,S,1,0.5")),
    ("n-ceil", Some("L,0,0.2")),
    ("no-1mm-upfront", None),
    ("no-HD", None),
    ("no-SQ", None),
    ("no-cache", None),
    ("no-contain", None),
    ("no-discordant", None),
    ("no-dovetail", None),
    ("no-exact-upfront", None),
    ("no-extend", None),
    ("no-hd", None),
    ("no-head", None),
    ("no-mixed", None),
    ("no-overlap", None),
    ("no-sq", None),
    ("no-sse8", None),
    ("no-unal", None),
    ("no-ungapped", None),
    ("nofw", None),
    ("non-deterministic", None),
    ("nondeterministic", None),
    ("norc", None),
    ("np", Some("2")),
    ("omit-sec-seq", None),
    ("orig", Some("ACGT")),
    ("output", Some("OUT")),
    ("overhang", None),
    ("overlap", None),
    ("partition", Some("2")),
    ("passthrough", None),
    ("pause", None),
    ("phred33", None),
    ("phred33-quals", None),
    ("phred64", None),
    ("phred64-quals", None),
    ("policy", Some("SEEDLEN=20;MMP=C5;IVAL=S,1,0.5")),
    ("preserve-tags", None),
    ("preset", Some("very-fast")),
    ("qc-filter", None),
    ("qseq", None),
    ("quals", Some("q.qual")),
    ("quiet", None),
    ("qupto", Some("10")),
    ("rdg", Some("6,2")),
    ("read-times", None),
    ("reads-per-batch", Some("8")),
    ("refidx", None),
    ("reorder", None),
    ("rf", None),
    ("rfg", Some("6,2")),
    ("rg", Some("SM:x")),
    ("rg-id", Some("group")),
    ("sam-RG", Some("SM:x")),
    ("sam-append-comment", None),
    ("sam-no-hd", None),
    ("sam-no-head", None),
    ("sam-no-qname-trunc", None),
    ("sam-no-sq", None),
    ("sam-noHD", None),
    ("sam-noSQ", None),
    ("sam-nohead", None),
    ("sam-nosq", None),
    ("sam-omit-sec-seq", None),
    ("sam-opt-config", Some("-md,-xs,yn")),
    ("sam-rg", Some("SM:x")),
    ("sam-rg-id", Some("group")),
    ("sample", Some("0.5")),
    ("sanity", None),
    ("scan-narrowed", None),
    ("score-min", Some("L,-0.7,-0.7")),
    ("seed", Some("3")),
    ("seed-boost", Some("100")),
    ("seed-cache-sz", Some("8")),
    ("seed-off", Some("2")),
    ("seed-rounds", Some("3")),
    ("seed-summ", None),
    ("seed-summary", None),
    ("seedival", Some("S,1,0.5")),
    ("seedlen", Some("20")),
    ("seedmms", Some("1")),
    ("sensitive", None),
    ("sensitive-local", None),
    ("shmem", None),
    ("show-rand-seed", None),
    ("skip", Some("2")),
    ("snpfrac", Some("0.001")),
    ("snpphred", Some("30")),
    ("soft-clipped-unmapped-tlen", None),
    ("solexa-quals", None),
    ("solexa1.3-quals", None),
    ("sra-acc", Some("SRR000001")),
    ("sse8", None),
    ("startverbose", None),
    ("tab5", Some("TAB5")),
    ("tab6", Some("TAB6")),
    ("test-25", None),
    ("thread-ceiling", Some("2")),
    ("thread-piddir", Some("DIR")),
    ("threads", Some("2")),
    ("tighten", Some("2")),
    ("time", None),
    ("tri", None),
    ("trim-to", Some("3:80")),
    ("trim3", Some("3")),
    ("trim5", Some("3")),
    ("ug-fail-streak", Some("10")),
    ("ug-fails", Some("100")),
    ("ungapped", None),
    ("unpaired", Some("READS")),
    ("upto", Some("10")),
    ("usage", None),
    ("verbose", None),
    ("version", None),
    ("very-fast", None),
    ("very-fast-local", None),
    ("very-sensitive", None),
    ("very-sensitive-local", None),
    ("wrapper", Some("basic-0")),
    ("xeq", None),
];

/// Options whose records must be those of a run without them: bowtie2's switches
/// without effect here, and bowtie2's defaults spelled out.
const SAME_RECORDS: [&str; 82] = [
    "1mm-minlen",
    "1mm-upfront",
    "cache",
    "cachelim",
    "cachesz",
    "contain",
    "cp-ival",
    "cp-min",
    "desc-exp",
    "desc-fmops",
    "desc-kb",
    "desc-landing",
    "desc-prioritize",
    "dovetail",
    "dp-fail-streak",
    "dp-fails",
    "dpad",
    "ee-fail-streak",
    "end-to-end",
    "exact-upfront",
    "extends",
    "ff",
    "filepar",
    "fr",
    "fullref",
    "hadoopout",
    "local-seed-cache-sz",
    "log-dp",
    "log-dp-opp",
    "mapq-extra",
    "mapq-print-inputs",
    "met",
    "met-file",
    "met-read",
    "met-stderr",
    "metrics",
    "metrics-file",
    "metrics-per-read",
    "metrics-stderr",
    "mm",
    "mmsweep",
    "no-1mm-upfront",
    "no-cache",
    "no-contain",
    "no-discordant",
    "no-dovetail",
    "no-exact-upfront",
    "no-extend",
    "no-mixed",
    "no-overlap",
    "no-sse8",
    "no-ungapped",
    "non-deterministic",
    "nondeterministic",
    "orig",
    "overhang",
    "overlap",
    "partition",
    "passthrough",
    "pause",
    "phred33",
    "phred33-quals",
    "quiet",
    "read-times",
    "reads-per-batch",
    "refidx",
    "reorder",
    "sanity",
    "seed-boost",
    "seed-cache-sz",
    "seed-off",
    "seed-summ",
    "seed-summary",
    "sensitive",
    "shmem",
    "show-rand-seed",
    "sse8",
    "startverbose",
    "test-25",
    "thread-ceiling",
    "thread-piddir",
    "tighten",
];

/// The options bowtie2's parser lists and then refuses (`--sra-acc` where it is built
/// without SRA), refused here with a message naming them.
const REFUSED: [&str; 4] = ["scan-narrowed", "snpfrac", "snpphred", "sra-acc"];

/// What every run shares: the index and the input files the options need.
struct Setup {
    dir: tempfile::TempDir,
    index: PathBuf,
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let index = index_test_genome(dir.path());
        let reads = lines_of("align_reads_100.fq.gz", 25 * 4);
        let mates = [
            lines_of("pe_sim_R1.fq.gz", 10 * 4),
            lines_of("pe_sim_R2.fq.gz", 10 * 4),
        ];
        let write = |name: &str, text: String| {
            std::fs::write(dir.path().join(name), text).expect("test input written");
        };
        write("reads.fq", reads.join("\n") + "\n");
        let fastq_with = |quality: &dyn Fn(&str) -> String| {
            let mut out = String::new();
            for (i, line) in reads.iter().enumerate() {
                out.push_str(&if i % 4 == 3 {
                    quality(line)
                } else {
                    line.clone()
                });
                out.push('\n');
            }
            out
        };
        write(
            "reads64.fq",
            fastq_with(&|q| q.bytes().map(|b| char::from(b + 31)).collect()),
        );
        write(
            "reads_int.fq",
            fastq_with(&|q| {
                let ints: Vec<String> = q.bytes().map(|b| (b - 33).to_string()).collect();
                ints.join(" ")
            }),
        );
        let fasta: String = reads
            .chunks(4)
            .map(|r| format!(">{}\n{}\n", &r[0][1..], r[1]))
            .collect();
        write("reads.fa", fasta.clone());
        write("q.qual", String::new());
        write("q1.qual", String::new());
        write("q2.qual", String::new());
        let (mut interleaved, mut tab5, mut tab6, mut qseq) =
            (String::new(), String::new(), String::new(), String::new());
        for (i, (a, b)) in mates[0].chunks(4).zip(mates[1].chunks(4)).enumerate() {
            interleaved.push_str(&format!("{}\n{}\n", a.join("\n"), b.join("\n")));
            let name = a[0][1..].split('/').next().unwrap_or("pair");
            tab5.push_str(&format!("{name}\t{}\t{}\t{}\t{}\n", a[1], a[3], b[1], b[3]));
            tab6.push_str(&format!(
                "{name}\t{}\t{}\t{name}\t{}\t{}\n",
                a[1], a[3], b[1], b[3]
            ));
            qseq.push_str(&format!(
                "M1\t1\t1\t1\t{i}\t1\t0\t1\t{}\t{}\t1\n",
                a[1], a[3]
            ));
        }
        write("interleaved.fq", interleaved);
        write("pairs.tab5", tab5);
        write("pairs.tab6", tab6);
        write("reads.qseq", qseq);
        Self { dir, index }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).to_string_lossy().into_owned()
    }

    /// `seqfarm align` on the reads with `option` (its value, and what else it needs).
    fn run(&self, option: &str, value: Option<&str>) -> Output {
        let mut reads = vec!["-U".to_string(), self.path("reads.fq")];
        let mut extra: Vec<String> = Vec::new();
        let value = value.map(|v| match v {
            "INDEX" => self.index.to_string_lossy().into_owned(),
            "READS" => self.path("reads.fq"),
            "OUT" => self.path(&format!("{option}.out")),
            "DIR" => self.path("pids"),
            "TAB5" => self.path("pairs.tab5"),
            "TAB6" => self.path("pairs.tab6"),
            "INTERLEAVED" => self.path("interleaved.fq"),
            other if other.ends_with(".qual") => self.path(other),
            other => other.to_string(),
        });
        match option {
            "phred64" | "phred64-quals" | "solexa1.3-quals" | "solexa-quals" => {
                reads[1] = self.path("reads64.fq")
            }
            "int-quals" | "integer-quals" => reads[1] = self.path("reads_int.fq"),
            "qseq" => reads[1] = self.path("reads.qseq"),
            // One format for every input, as in bowtie2: the option's file alone.
            "12" | "tab5" | "tab6" => reads.clear(),
            "quals" => reads = vec!["-f".into(), "-U".into(), self.path("reads.fa")],
            "Q1" | "Q2" => {
                reads = vec![
                    "-f".into(),
                    "-1".into(),
                    self.path("reads.fa"),
                    "-2".into(),
                    self.path("reads.fa"),
                    "--Q1".into(),
                    self.path("q1.qual"),
                    "--Q2".into(),
                    self.path("q2.qual"),
                ]
            }
            "preserve-tags" | "align-paired-reads" => {
                reads = vec![
                    "-b".into(),
                    data("bam/sarscov2.bam").to_string_lossy().into_owned(),
                ]
            }
            "soft-clipped-unmapped-tlen" => extra.push("--local".into()),
            "thread-ceiling" => extra.extend(["--thread-piddir".into(), self.path("pids")]),
            _ => {}
        }
        let out = self.path(&format!("{option}.sam"));
        let mut command = seqfarm();
        command.arg("align").arg("-x").arg(&self.index).args(&reads);
        command
            .args(["-S", &out, "-p", "1", "--force"])
            .args(&extra);
        command.arg(format!("--{option}"));
        if let Some(v) = value {
            command.arg(v);
        }
        command.output().expect("seqfarm runs")
    }

    /// The records (without header) `run` wrote for `option`.
    fn records(&self, option: &str) -> String {
        let path = self.path(&format!("{option}.sam"));
        let bytes = decompressed(file_bytes(Path::new(&path)), Path::new(&path));
        String::from_utf8_lossy(&bytes)
            .lines()
            .filter(|l| !l.starts_with('@'))
            .map(|l| format!("{l}\n"))
            .collect()
    }
}

/// The first `n` lines of a gzipped test file.
fn lines_of(name: &str, n: usize) -> Vec<String> {
    let path = data(name);
    let text = decompressed(file_bytes(&path), &path);
    String::from_utf8_lossy(&text)
        .lines()
        .take(n)
        .map(str::to_string)
        .collect()
}

#[test]
fn every_long_option_of_bowtie2_s_parser_runs() {
    let setup = Setup::new();
    let baseline = setup.run("end-to-end", None);
    assert!(baseline.status.success());
    let base_records = setup.records("end-to-end");
    assert_eq!(base_records.lines().count(), 25);
    let mut failures = Vec::new();
    for (option, value) in BOWTIE2_LONG_OPTIONS {
        let out = setup.run(option, value);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if REFUSED.contains(&option) {
            if out.status.success() || !stderr.contains(&format!("--{option}")) {
                failures.push(format!("--{option} is not refused by name: {stderr}"));
            }
            continue;
        }
        if !out.status.success() {
            failures.push(format!("--{option} {value:?} failed: {stderr}"));
            continue;
        }
        if ["help", "usage", "version", "arg-desc"].contains(&option) {
            let stdout = String::from_utf8_lossy(&out.stdout);
            let expected = match option {
                "version" => "seqfarm",
                "arg-desc" => "policy\t1",
                _ => "Usage:",
            };
            if !stdout.contains(expected) {
                failures.push(format!("--{option} printed no {expected:?}: {stdout}"));
            }
            continue;
        }
        if SAME_RECORDS.contains(&option) && setup.records(option) != base_records {
            failures.push(format!("--{option} changed the records"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_option_table_is_bowtie2_s() {
    // The installed bowtie2 prints its parser's options (`--arg-desc`): each is in the
    // table above, with a value exactly where bowtie2 takes one.
    if !peer("bowtie2") {
        return;
    }
    let out = std::process::Command::new("bowtie2")
        .arg("--arg-desc")
        .output()
        .expect("bowtie2 runs");
    let listed = String::from_utf8_lossy(&out.stdout);
    let mut missing = Vec::new();
    for line in listed.lines() {
        let Some((name, takes)) = line.split_once('\t') else {
            continue;
        };
        if name.len() < 2 {
            continue;
        }
        match BOWTIE2_LONG_OPTIONS.iter().find(|(n, _)| *n == name) {
            Some((_, value)) if value.is_some() == (takes == "1") => {}
            _ => missing.push(line.to_string()),
        }
    }
    assert!(
        listed.lines().count() > 150 && missing.is_empty(),
        "options of bowtie2's parser not in the table as bowtie2 takes them: {missing:?}"
    );
}

#[test]
fn arg_desc_lists_every_option_as_bowtie2_does() {
    let out = seqfarm()
        .args(["align", "--arg-desc"])
        .output()
        .expect("seqfarm runs");
    assert!(out.status.success());
    let listed = String::from_utf8_lossy(&out.stdout);
    for (option, value) in BOWTIE2_LONG_OPTIONS {
        let line = format!("{option}\t{}", u8::from(value.is_some()));
        assert!(
            listed.lines().any(|l| l == line),
            "--arg-desc lacks {line:?}"
        );
    }
}
