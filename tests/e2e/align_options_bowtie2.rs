//! bowtie2's options beyond its `--help` that change the output, run through both
//! aligners on the same reads: the old spellings of the seed and scoring options
//! (`--policy`, `--multiseed`), BWA-SW's scoring (`--bwa-sw-like`), the homopolymer gaps
//! (`--454`), Solexa qualities (`--solexa-quals`), the MAPQ models (`--mapq-v`) and the
//! optional fields (`--sam-opt-config`, bowtie2 2.5.4's). For each, the reads both place
//! alike must score alike, as in `align_bowtie2.rs`, and what the option sets (QUAL, the
//! fields, MAPQ) must be bowtie2's.

use std::collections::HashMap;
use std::path::Path;

use crate::align_fixtures::{
    args, bowtie2_align, data_arg, expect_success, path_arg, seqfarm_align, test_dir, test_genome,
    Indexed, Sam, SamRecord,
};
use crate::support::{data, decompressed, file_bytes, peer};

/// Share of the compared reads that must agree.
const MIN_AGREEMENT: f64 = 0.995;

/// Whether both peers the comparisons need are installed (under CI they must be).
fn peers() -> bool {
    peer("bowtie2") && peer("bowtie2-build")
}

/// Runs both aligners with `options` (and `-p 2`), returning bowtie2's and seqfarm's SAM.
fn both(index: &Indexed, options: &[String]) -> (Sam, Sam) {
    let dir = test_dir();
    let (bt, sf) = (
        dir.path().join("bowtie2.sam"),
        dir.path().join("seqfarm.sam"),
    );
    let mut common = args(&["-p", "2"]);
    common.extend(options.iter().cloned());
    let with_output = |path: &Path| {
        let mut a = common.clone();
        a.extend(["-S".into(), path_arg(path)]);
        a
    };
    expect_success("bowtie2", &bowtie2_align(index, &with_output(&bt)));
    expect_success("seqfarm align", &seqfarm_align(index, &with_output(&sf)));
    (Sam::read(&bt), Sam::read(&sf))
}

/// seqfarm's records (no header) with `options`.
fn seqfarm_records(index: &Indexed, options: &[String]) -> Vec<String> {
    let out = seqfarm_align(index, options);
    expect_success("seqfarm align", &out);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.starts_with('@'))
        .map(str::to_string)
        .collect()
}

/// How the two outputs compare, primary record by primary record.
#[derive(Default, Debug)]
struct Agreement {
    reads: usize,
    /// Aligned by both, or by neither.
    same_outcome: usize,
    aligned_by_both: usize,
    /// Of those: same contig, strand and POS.
    placed: usize,
    /// Of those placed alike: the same AS.
    same_score: usize,
    /// Aligned by both at different places with the same AS (a tie broken apart).
    tied: usize,
    /// Placed alike with the same AS and XS: MAPQ compared, and equal.
    mapq_compared: usize,
    mapq_equal: usize,
}

impl Agreement {
    fn of(bowtie2: &Sam, seqfarm: &Sam) -> Self {
        let (bt, sf) = (bowtie2.primary(), seqfarm.primary());
        assert_eq!(bt.len(), sf.len(), "the same reads in both outputs");
        let mut a = Agreement::default();
        for (key, b) in &bt {
            let s = sf
                .get(key)
                .unwrap_or_else(|| panic!("{key:?} missing in seqfarm's"));
            a.reads += 1;
            a.same_outcome += usize::from(b.unmapped() == s.unmapped());
            if b.unmapped() || s.unmapped() {
                continue;
            }
            a.aligned_by_both += 1;
            if (b.contig.as_str(), b.pos, b.reverse()) != (s.contig.as_str(), s.pos, s.reverse()) {
                a.tied += usize::from(b.int_tag("AS") == s.int_tag("AS"));
                continue;
            }
            a.placed += 1;
            if b.int_tag("AS") == s.int_tag("AS") {
                a.same_score += 1;
                if b.int_tag("XS") == s.int_tag("XS") && b.int_tag("YS") == s.int_tag("YS") {
                    a.mapq_compared += 1;
                    a.mapq_equal += usize::from(b.mapq == s.mapq);
                }
            }
        }
        a
    }

    /// Asserts the scores agree: the same outcome, the same place or a tie, and the
    /// same AS where placed alike, each for [`MIN_AGREEMENT`] of the reads.
    fn assert_scores(&self, case: &str) {
        println!("{case}: {self:?}");
        let rate = |n: usize, of: usize| n as f64 / of.max(1) as f64;
        assert!(
            self.aligned_by_both * 2 > self.reads,
            "{case}: too few aligned reads"
        );
        assert!(
            rate(self.same_outcome, self.reads) >= MIN_AGREEMENT,
            "{case}: aligned by one aligner only: {self:?}"
        );
        assert!(
            rate(self.placed + self.tied, self.aligned_by_both) >= MIN_AGREEMENT,
            "{case}: placed apart: {self:?}"
        );
        assert!(
            rate(self.same_score, self.placed) >= MIN_AGREEMENT,
            "{case}: AS differs: {self:?}"
        );
    }

    /// Asserts MAPQ is bowtie2's wherever the scores it is computed from are.
    fn assert_mapq(&self, case: &str) {
        assert!(
            self.mapq_compared * 2 > self.reads
                && self.mapq_equal as f64 >= MIN_AGREEMENT * self.mapq_compared as f64,
            "{case}: MAPQ differs where AS, XS and YS are equal: {self:?}"
        );
    }
}

fn single() -> Vec<String> {
    vec!["-U".into(), data_arg("pe_sim_R1.fq.gz")]
}

fn paired() -> Vec<String> {
    vec![
        "-1".into(),
        data_arg("pe_sim_R1.fq.gz"),
        "-2".into(),
        data_arg("pe_sim_R2.fq.gz"),
    ]
}

fn with(reads: Vec<String>, options: &[&str]) -> Vec<String> {
    let mut all = reads;
    all.extend(args(options));
    all
}

#[test]
fn policy_and_multiseed_are_the_seed_and_scoring_options() {
    if !peers() {
        return;
    }
    let index = test_genome();
    let policy = "SEED=0;SEEDLEN=18;IVAL=S,1,0.5;MMP=Q,4,2;RDG=6,2;MIN=L,-1,-0.8";
    let spelled = [
        "-N",
        "0",
        "-L",
        "18",
        "-i",
        "S,1,0.5",
        "--mp",
        "4,2",
        "--rdg",
        "6,2",
        "--score-min",
        "L,-1,-0.8",
    ];
    let multiseed = [
        "--multiseed",
        "0,18,S,1,0.5",
        "--mp",
        "4,2",
        "--rdg",
        "6,2",
        "--score-min",
        "L,-1,-0.8",
    ];
    let by_options = seqfarm_records(index, &with(single(), &spelled));
    assert_eq!(
        seqfarm_records(index, &with(single(), &["--policy", policy])),
        by_options
    );
    assert_eq!(
        seqfarm_records(index, &with(single(), &multiseed)),
        by_options
    );
    // The later of -L and --policy's SEEDLEN counts, as in bowtie2.
    assert_eq!(
        seqfarm_records(
            index,
            &with(single(), &["-L", "10", "--policy", "SEEDLEN=18"])
        ),
        seqfarm_records(index, &with(single(), &["-L", "18"]))
    );
    // bowtie2's wrapper hands its arguments to a shell, which would split a `;` list:
    // one --policy per setting (they add up, in both aligners).
    let one_each: Vec<String> = policy
        .split(';')
        .flat_map(|setting| ["--policy".to_string(), setting.to_string()])
        .collect();
    assert_eq!(
        seqfarm_records(index, &[single(), one_each.clone()].concat()),
        by_options
    );
    let (bt, sf) = both(index, &[single(), one_each].concat());
    Agreement::of(&bt, &sf).assert_scores("--policy");
    let (bt, sf) = both(
        index,
        &with(
            paired(),
            &[
                "--multiseed",
                "0,20",
                "--policy",
                "MMP=C4",
                "--policy",
                "NP=C3",
                "--policy",
                "RFG=4,2",
            ],
        ),
    );
    Agreement::of(&bt, &sf).assert_scores("--multiseed --policy, paired");
}

#[test]
fn bwa_sw_like_scores_and_filters_as_bowtie2() {
    if !peers() {
        return;
    }
    let index = test_genome();
    let (bt, sf) = both(index, &with(single(), &["--bwa-sw-like"]));
    Agreement::of(&bt, &sf).assert_scores("--bwa-sw-like");
    // 35-base reads: their alignments lie around BWA-SW's minimum of 30 (without the
    // option, the local minimum of 48 leaves all of them unaligned).
    let (bt, sf) = both(index, &with(single(), &["--bwa-sw-like", "-3", "115"]));
    let a = Agreement::of(&bt, &sf);
    a.assert_scores("--bwa-sw-like -3 115");
    assert!(
        a.same_outcome > a.aligned_by_both + 50,
        "some reads unaligned: {a:?}"
    );
    assert!(sf
        .records
        .iter()
        .all(|r| r.unmapped() || r.int_tag("AS") >= Some(30)));
}

#[test]
fn homopolymer_gaps_score_as_bowtie2() {
    if !peers() {
        return;
    }
    let (bt, sf) = both(test_genome(), &with(single(), &["--454"]));
    Agreement::of(&bt, &sf).assert_scores("--454");
}

#[test]
fn mapq_models_are_bowtie2_s() {
    if !peers() {
        return;
    }
    let index = test_genome();
    // (bowtie2's default model, 2, is compared by every other test of bowtie2's MAPQ.)
    for v in ["1", "3", "7"] {
        for (reads, what) in [(single(), "single"), (paired(), "paired")] {
            let case = format!("--mapq-v {v}, {what}");
            let (bt, sf) = both(index, &with(reads, &["--mapq-v", v]));
            let a = Agreement::of(&bt, &sf);
            a.assert_scores(&case);
            a.assert_mapq(&case);
        }
    }
}

#[test]
fn solexa_qualities_are_converted_as_bowtie2_converts_them() {
    if !peers() {
        return;
    }
    // The simulated reads' Phred qualities written on Solexa's scale (Q 0 and 1 as
    // Solexa's lowest, -5).
    let path = data("pe_sim_R1.fq.gz");
    let text = decompressed(file_bytes(&path), &path);
    let mut solexa = String::new();
    for (i, line) in String::from_utf8_lossy(&text).lines().enumerate() {
        if i % 4 == 3 {
            solexa.extend(line.bytes().map(|c| {
                let q = f64::from(c - 33);
                let score = if q <= 1.0 {
                    -5.0
                } else {
                    (10.0 * (10f64.powf(q / 10.0) - 1.0).log10())
                        .round()
                        .max(-5.0)
                };
                char::from((score + 64.0) as u8)
            }));
        } else {
            solexa.push_str(line);
        }
        solexa.push('\n');
    }
    let dir = test_dir();
    let reads = dir.path().join("solexa.fq");
    std::fs::write(&reads, solexa).expect("reads written");
    let index = test_genome();
    for mode in ["--end-to-end", "--local"] {
        let options = vec![
            "-U".into(),
            path_arg(&reads),
            "--solexa-quals".into(),
            mode.into(),
        ];
        let (bt, sf) = both(index, &options);
        Agreement::of(&bt, &sf).assert_scores(&format!("--solexa-quals {mode}"));
        let qualities = |sam: &Sam| -> HashMap<String, String> {
            sam.records
                .iter()
                .filter(|r| !r.secondary())
                .map(|r| (r.name.clone(), forward_qualities(r)))
                .collect()
        };
        assert_eq!(qualities(&sf), qualities(&bt), "QUAL after --solexa-quals");
    }
}

/// A record's QUAL in the read's own orientation.
fn forward_qualities(r: &SamRecord) -> String {
    if r.reverse() {
        r.qual.chars().rev().collect()
    } else {
        r.qual.clone()
    }
}

/// The FLAG and the optional fields' names of each primary record, in order, by read
/// and mate.
fn field_names(text: &str) -> HashMap<(String, u32), (u32, Vec<String>)> {
    text.lines()
        .filter(|l| !l.starts_with('@'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let flag: u32 = f[1].parse().ok()?;
            (flag & 0x900 == 0).then(|| {
                (
                    (f[0].to_string(), flag & 0xc0),
                    (flag, f[11..].iter().map(|t| t[..2].to_string()).collect()),
                )
            })
        })
        .collect()
}

#[test]
fn sam_opt_config_writes_bowtie2_2_5_4_s_fields() {
    if !peers() {
        return;
    }
    let index = test_genome();
    let dir = test_dir();
    let config = "-md,-xs,-XN,yn,-yf";
    let configured = with(paired(), &["--sam-opt-config", config]);
    let output = |name: &str, options: &[String]| {
        let mut a = options.to_vec();
        a.extend(["-S".into(), path_arg(&dir.path().join(name))]);
        a
    };
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).expect("SAM");
    expect_success(
        "seqfarm align",
        &seqfarm_align(index, &output("seqfarm.sam", &configured)),
    );
    let text = read("seqfarm.sam");
    let names = field_names(&text);
    // bowtie2 2.5.4 has the option; older ones (Debian's 2.5.0) refuse it: then their
    // fields are turned off here as 2.5.4 turns them off, YN/Yn (and ZN/Zn beside YS)
    // put where 2.5.4 puts them, and their values checked below.
    let direct = bowtie2_align(index, &output("bowtie2.sam", &configured));
    let bowtie2 = if direct.status.success() {
        field_names(&read("bowtie2.sam"))
    } else {
        expect_success(
            "bowtie2",
            &bowtie2_align(index, &output("bowtie2.sam", &paired())),
        );
        field_names(&read("bowtie2.sam"))
            .into_iter()
            .map(|(key, (flag, fields))| {
                let mut kept: Vec<String> = fields
                    .into_iter()
                    .filter(|t| !["MD", "XS", "XN", "YF"].contains(&t.as_str()))
                    .collect();
                let at = kept.iter().position(|t| t == "YT").unwrap_or(kept.len());
                let added = if kept.iter().any(|t| t == "YS") {
                    &["YN", "Yn", "ZN", "Zn"][..]
                } else {
                    &["YN", "Yn"][..]
                };
                for (i, t) in added.iter().enumerate() {
                    kept.insert(at + i, t.to_string());
                }
                (key, (flag, kept))
            })
            .collect()
    };
    // The records both aligners flag alike (the same pairing: the two differ on
    // fragments around -X) carry the same fields.
    assert_eq!(names.len(), bowtie2.len());
    let alike: Vec<_> = names
        .iter()
        .filter(|(key, (flag, _))| bowtie2.get(*key).is_some_and(|b| b.0 == *flag))
        .collect();
    let same = alike
        .iter()
        .filter(|(key, fields)| bowtie2.get(*key) == Some(*fields))
        .count();
    assert!(
        alike.len() * 2 >= names.len() && same as f64 >= MIN_AGREEMENT * alike.len() as f64,
        "--sam-opt-config {config}: the fields of {same} of {} records flagged alike (of {}) \
         are bowtie2's",
        alike.len(),
        names.len()
    );
    for r in Sam::parse(&text).records.iter().filter(|r| !r.secondary()) {
        let len = r.seq.len() as f64;
        assert_eq!(
            r.int_tag("YN"),
            Some((-0.6 - 0.6 * len) as i64),
            "{}",
            r.brief()
        );
        assert_eq!(r.int_tag("Yn"), Some(0));
        assert!(r.tag("MD").is_none() && r.tag("XS").is_none() && r.tag("XN").is_none());
        assert!(r.tag("AS").is_some() || r.unmapped());
    }
}
