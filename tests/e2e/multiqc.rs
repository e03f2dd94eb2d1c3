//! MultiQC (the real one from PyPI, installed by test.sh) reads `seqfarm flagstat` and
//! `seqfarm depth` outputs as it reads samtools flagstat's and mosdepth's: the same
//! tool's module run on both tools' files of the same BAMs must give the same tables,
//! and the tables must hold the numbers the files state.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{data, multiqc, peer, seqfarm, succeeded, window_for};

const BAMS: [&str; 4] = [
    "bam/chm1",
    "bam/na12878_chrM",
    "bam/sarscov2",
    "snp-pileup/normal_slice",
];

/// The sample name MultiQC gives a BAM's outputs (its file stem).
fn sample(bam: &str) -> &str {
    bam.rsplit('/').next().unwrap()
}

fn bam_path(bam: &str) -> PathBuf {
    data(&format!("{bam}.bam"))
}

/// Runs MultiQC's `module` on `logs` and returns its data directory.
pub fn run_multiqc(multiqc: &Path, module: &str, logs: &Path) -> PathBuf {
    let report = logs.with_extension("multiqc");
    succeeded(
        Command::new(multiqc)
            .args(["-q", "--no-version-check", "--no-report", "-m", module])
            .arg("-o")
            .arg(&report)
            .arg(logs),
    );
    report.join("multiqc_data")
}

/// A MultiQC data table (tab-separated, one row per sample): sample → column → value.
pub fn read_multiqc_table(path: &Path) -> HashMap<String, HashMap<String, String>> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("MultiQC wrote no {}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let row = header
                .iter()
                .zip(&f)
                .skip(1)
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect();
            (f[0].to_string(), row)
        })
        .collect()
}

/// Asserts that MultiQC wrote `tables` for both tools, each with the same bytes.
fn assert_same_tables(theirs: &Path, ours: &Path, tables: &[&str]) {
    for table in tables {
        let read = |dir: &Path| {
            std::fs::read_to_string(dir.join(table))
                .unwrap_or_else(|e| panic!("MultiQC wrote no {table} in {}: {e}", dir.display()))
        };
        let (want, got) = (read(theirs), read(ours));
        assert_eq!(got, want, "MultiQC's {table} differs between the tools");
    }
}

/// A fresh directory `name` under `dir`.
fn logs_dir(dir: &Path, name: &str) -> PathBuf {
    let logs = dir.join(name);
    std::fs::create_dir(&logs).unwrap();
    logs
}

#[test]
fn multiqc_reads_flagstat_as_samtools_flagstat() {
    let Some(multiqc) = multiqc() else {
        return;
    };
    if !peer("samtools") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (theirs, ours) = (
        logs_dir(dir.path(), "samtools"),
        logs_dir(dir.path(), "seqfarm"),
    );
    let mut totals = HashMap::new();
    for bam in BAMS {
        let file = format!("{}.flagstat", sample(bam));
        let peer = succeeded(Command::new("samtools").arg("flagstat").arg(bam_path(bam)));
        std::fs::write(theirs.join(&file), &peer.stdout).unwrap();
        let text = succeeded(seqfarm().args(["flagstat", "-@", "2"]).arg(bam_path(bam))).stdout;
        let text = String::from_utf8(text).unwrap();
        let first = text.split_whitespace().next().unwrap().to_string();
        totals.insert(sample(bam).to_string(), first);
        std::fs::write(ours.join(&file), text).unwrap();
    }
    let (theirs, ours) = (
        run_multiqc(&multiqc, "samtools", &theirs),
        run_multiqc(&multiqc, "samtools", &ours),
    );
    assert_same_tables(
        &theirs,
        &ours,
        &[
            "multiqc_samtools_flagstat.txt",
            "samtools-flagstat-table.txt",
            "samtools-flagstat-pct-table.txt",
            "multiqc_general_stats.txt",
        ],
    );
    let table = read_multiqc_table(&ours.join("multiqc_samtools_flagstat.txt"));
    for (name, total) in &totals {
        let row = table
            .get(name)
            .unwrap_or_else(|| panic!("MultiQC found no flagstat of {name}: {table:?}"));
        assert_eq!(
            row.get("total_passed"),
            Some(total),
            "{name}: MultiQC's total against the file's first line"
        );
    }
}

#[test]
fn multiqc_reads_depth_as_mosdepth() {
    let Some(multiqc) = multiqc() else {
        return;
    };
    if !peer("mosdepth") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (theirs, ours) = (
        logs_dir(dir.path(), "mosdepth"),
        logs_dir(dir.path(), "seqfarm"),
    );
    let mut means = HashMap::new();
    for bam in BAMS {
        let name = sample(bam);
        let window = window_for(&bam_path(bam), 500);
        succeeded(
            Command::new("mosdepth")
                .args(["-n", "--by", &window, "-T", "1,10,20"])
                .arg(theirs.join(name))
                .arg(bam_path(bam)),
        );
        succeeded(
            seqfarm()
                .args([
                    "depth",
                    "-t",
                    "2",
                    "--window",
                    &window,
                    "--thresholds",
                    "1,10,20",
                ])
                .arg("-o")
                .arg(ours.join(name))
                .arg(bam_path(bam)),
        );
        let summary =
            std::fs::read_to_string(ours.join(format!("{name}.mosdepth.summary.txt"))).unwrap();
        let total = summary
            .lines()
            .find(|l| l.starts_with("total\t"))
            .expect("a total line");
        let mean: f64 = total.split('\t').nth(3).unwrap().parse().unwrap();
        means.insert(name.to_string(), mean);
    }
    let (theirs, ours) = (
        run_multiqc(&multiqc, "mosdepth", &theirs),
        run_multiqc(&multiqc, "mosdepth", &ours),
    );
    assert_same_tables(
        &theirs,
        &ours,
        &[
            "mosdepth_cov_dist.txt",
            "mosdepth_cumcov_dist.txt",
            "mosdepth_perchrom.txt",
            "mosdepth-cumcoverage-dist-id.txt",
            "multiqc_general_stats.txt",
        ],
    );
    let stats = read_multiqc_table(&ours.join("multiqc_general_stats.txt"));
    for (name, mean) in &means {
        let row = stats
            .get(name)
            .unwrap_or_else(|| panic!("MultiQC found no mosdepth output of {name}: {stats:?}"));
        let parsed: f64 = row
            .iter()
            .find(|(k, _)| k.ends_with("mean_coverage"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no mean coverage in {row:?}"));
        assert!(
            (parsed - mean).abs() < 0.01,
            "{name}: MultiQC's mean coverage {parsed} against the summary's {mean}"
        );
    }
}
