//! `seqfarm align`'s stderr summary read by MultiQC's bowtie2 module (the real MultiQC
//! from PyPI, installed by test.sh into a virtual environment): for paired, unpaired and
//! mixed input, the numbers MultiQC parses must be the summary's, and the summary's
//! must be what the SAM records say.

use std::collections::HashMap;

use crate::align_fixtures::{
    args, bowtie2_align, data_arg, expect_success, path_arg, seqfarm_align, test_dir, test_genome,
    Sam, SamRecord,
};
use crate::multiqc::{read_multiqc_table, run_multiqc};
use crate::support::multiqc;

/// The counts of bowtie2's summary, by MultiQC's names for them.
fn parse_summary(text: &str) -> HashMap<&'static str, f64> {
    let mut out = HashMap::new();
    let mut section = "";
    for line in text.lines() {
        let line = line.trim();
        let first = line.split_whitespace().next().unwrap_or("");
        let number = || first.trim_end_matches('%').parse::<f64>().ok();
        let key = if line.ends_with("reads; of these:") {
            Some("total_reads")
        } else if line.ends_with("were paired; of these:") {
            section = "paired";
            Some("paired_total")
        } else if line.ends_with("were unpaired; of these:") {
            section = "unpaired";
            Some("unpaired_total")
        } else if line.ends_with("mates make up the pairs; of these:") {
            section = "mates";
            None
        } else if line.ends_with("aligned concordantly 0 times") {
            Some("paired_aligned_none")
        } else if line.ends_with("aligned concordantly exactly 1 time") {
            Some("paired_aligned_one")
        } else if line.ends_with("aligned concordantly >1 times") {
            Some("paired_aligned_multi")
        } else if line.ends_with("aligned discordantly 1 time") {
            Some("paired_aligned_discord_one")
        } else if line.ends_with("overall alignment rate") {
            Some("overall_alignment_rate")
        } else {
            let suffix = [
                ("aligned 0 times", "none"),
                ("aligned exactly 1 time", "one"),
                ("aligned >1 times", "multi"),
            ]
            .into_iter()
            .find(|(s, _)| line.ends_with(s))
            .map(|(_, k)| k);
            match (section, suffix) {
                ("mates", Some("none")) => Some("paired_aligned_mate_none"),
                ("mates", Some("one")) => Some("paired_aligned_mate_one"),
                ("mates", Some("multi")) => Some("paired_aligned_mate_multi"),
                ("unpaired", Some("none")) => Some("unpaired_aligned_none"),
                ("unpaired", Some("one")) => Some("unpaired_aligned_one"),
                ("unpaired", Some("multi")) => Some("unpaired_aligned_multi"),
                _ => None,
            }
        };
        if let (Some(key), Some(n)) = (key, number()) {
            out.insert(key, n);
        }
    }
    out
}

/// Checks the summary's counts against the records.
fn check_against_sam(name: &str, summary: &HashMap<&str, f64>, sam: &Sam) {
    let primary: Vec<&SamRecord> = sam.records.iter().filter(|r| !r.secondary()).collect();
    let mut pairs: HashMap<&str, Vec<&SamRecord>> = HashMap::new();
    let mut unpaired = Vec::new();
    for r in &primary {
        if r.mate() == 0 {
            unpaired.push(*r);
        } else {
            pairs.entry(&r.name).or_default().push(*r);
        }
    }
    let n_pairs = pairs.len() as f64;
    let concordant = pairs.values().filter(|m| m[0].has(0x2)).count() as f64;
    let discordant = pairs
        .values()
        .filter(|m| m[0].tag("YT") == Some("DP"))
        .count() as f64;
    let rest: Vec<&SamRecord> = pairs
        .values()
        .filter(|m| !m[0].has(0x2) && m[0].tag("YT") != Some("DP"))
        .flatten()
        .copied()
        .collect();
    let mates_none = rest.iter().filter(|r| r.unmapped()).count() as f64;
    let unpaired_none = unpaired.iter().filter(|r| r.unmapped()).count() as f64;
    let aligned = primary.iter().filter(|r| !r.unmapped()).count() as f64;
    let get = |k: &str| summary.get(k).copied().unwrap_or(0.0);
    let expect = [
        ("total_reads", n_pairs + unpaired.len() as f64),
        ("paired_total", n_pairs),
        ("paired_aligned_none", n_pairs - concordant),
        (
            "paired_aligned_one+multi",
            get("paired_aligned_one") + get("paired_aligned_multi"),
        ),
        ("paired_aligned_discord_one", discordant),
        ("paired_aligned_mate_none", mates_none),
        ("unpaired_total", unpaired.len() as f64),
        ("unpaired_aligned_none", unpaired_none),
    ];
    for (key, value) in expect {
        let stated = if key == "paired_aligned_one+multi" {
            concordant
        } else {
            get(key)
        };
        assert_eq!(
            stated, value,
            "{name}: summary {key} against the SAM records"
        );
    }
    let rate = 100.0 * aligned / primary.len() as f64;
    assert!(
        (get("overall_alignment_rate") - rate).abs() < 0.006,
        "{name}: overall alignment rate {} against {rate:.2} from the records",
        get("overall_alignment_rate")
    );
}

#[test]
fn multiqc_reads_the_summary() {
    summaries_read_by_multiqc(false);
}

/// The same checks on bowtie2's own summary and records: they hold for the tool
/// seqfarm follows, so the checks themselves are right.
#[test]
fn multiqc_reads_bowtie2s_summary_the_same_way() {
    summaries_read_by_multiqc(true);
}

fn summaries_read_by_multiqc(bowtie2: bool) {
    let Some(multiqc) = multiqc() else {
        return;
    };
    let dir = test_dir();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    let pairs = |m: u8| {
        format!(
            "{},{}",
            data_arg(&format!("pe_sim_R{m}.fq.gz")),
            data_arg(&format!("pe_junk_R{m}.fq.gz"))
        )
    };
    let runs: [(&str, Vec<String>); 3] = [
        ("paired", vec!["-1".into(), pairs(1), "-2".into(), pairs(2)]),
        ("unpaired", vec!["-U".into(), pairs(1)]),
        (
            "mixed",
            vec![
                "-1".into(),
                data_arg("pe_sim_R1.fq.gz"),
                "-2".into(),
                data_arg("pe_sim_R2.fq.gz"),
                "-U".into(),
                data_arg("pe_junk_R1.fq.gz"),
            ],
        ),
    ];
    let mut summaries = HashMap::new();
    for (name, inputs) in &runs {
        let sam = dir.path().join(format!("{name}.sam"));
        let mut list = args(&["-p", "2"]);
        list.extend(inputs.iter().cloned());
        list.extend(["-S".into(), path_arg(&sam)]);
        let stderr = if bowtie2 {
            expect_success("bowtie2", &bowtie2_align(test_genome(), &list))
        } else {
            expect_success("seqfarm align", &seqfarm_align(test_genome(), &list))
        };
        std::fs::write(logs.join(format!("{name}.log")), &stderr).unwrap();
        let summary = parse_summary(&stderr);
        check_against_sam(name, &summary, &Sam::read(&sam));
        summaries.insert(name.to_string(), summary);
    }
    let report = run_multiqc(&multiqc, "bowtie2", &logs);
    let table = read_multiqc_table(&report.join("multiqc_bowtie2.txt"));
    for (name, summary) in &summaries {
        let row = table
            .get(name)
            .unwrap_or_else(|| panic!("MultiQC found no bowtie2 log for {name}: {table:?}"));
        let mut keys: Vec<&&str> = summary.keys().collect();
        keys.sort();
        for key in keys {
            // MultiQC leaves the unpaired part of a mixed run's summary out.
            if *name == "mixed" && key.starts_with("unpaired") {
                continue;
            }
            let parsed: f64 = row
                .get(*key)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name}: MultiQC parsed no {key}: {row:?}"));
            assert_eq!(
                parsed, summary[key],
                "{name}: MultiQC's {key} against the summary"
            );
        }
        println!("MultiQC parsed {name}: {row:?}");
    }
}
