//! Defect: a failed write to standard error (`2>/dev/full`, a closed pipe) panicked
//! with exit status 101 ("failed printing to stderr") in every command. Each command
//! now loses the message and exits with its run's own status.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::process::{Command, Stdio};

use crate::support::{data, seqfarm};

/// `/dev/full`, where every write fails with "no space left on device", as a child's
/// standard error.
fn full_device() -> Stdio {
    Stdio::from(
        File::options()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full opens"),
    )
}

/// `seqfarm ARGS`.
fn seqfarm_with<I, S>(args: I) -> Command
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut command = seqfarm();
    command.args(args);
    command
}

/// Runs `command` with standard error on `/dev/full` and standard output discarded;
/// returns its exit code.
fn exit_code_with_full_stderr(mut command: Command) -> i32 {
    let status = command
        .stdout(Stdio::null())
        .stderr(full_device())
        .status()
        .expect("seqfarm runs");
    status.code().expect("an exit code, not a signal")
}

#[test]
fn full_stderr_does_not_panic_any_command() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).into_os_string();
    let data = |name: &str| data(name).into_os_string();
    let prefix = path("ref");
    let bam = data("bam/sarscov2.bam");
    let snp = |name: &str| data(&format!("snp-pileup/{name}"));
    // The index first: align reads it.
    let runs: [(&str, Vec<OsString>); 7] = [
        (
            "index",
            vec![
                "index".into(),
                "-t".into(),
                "2".into(),
                "-o".into(),
                prefix.clone(),
                data("index_ref.fa.gz"),
            ],
        ),
        (
            "align",
            vec![
                "align".into(),
                "-p".into(),
                "2".into(),
                "-t".into(),
                "-x".into(),
                prefix,
                "-U".into(),
                data("align_reads_100.fq.gz"),
                "-S".into(),
                path("out.sam"),
            ],
        ),
        ("flagstat", vec!["flagstat".into(), bam.clone()]),
        (
            "count",
            vec![
                "count".into(),
                "--window".into(),
                "1000".into(),
                bam.clone(),
            ],
        ),
        (
            "depth",
            vec![
                "depth".into(),
                "--window".into(),
                "100".into(),
                "-o".into(),
                path("depth"),
                bam,
            ],
        ),
        (
            "snp-pileup",
            vec![
                "snp-pileup".into(),
                "-v".into(),
                snp("sites_slice.vcf.gz"),
                path("pileup.csv"),
                snp("normal_slice.bam"),
                snp("tumor_slice.bam"),
            ],
        ),
        (
            "search",
            vec![
                "search".into(),
                "-t".into(),
                "2".into(),
                data("sw_q10.fa"),
                data("sw_db1500.fa.gz"),
            ],
        ),
    ];
    for (name, args) in runs {
        assert_eq!(exit_code_with_full_stderr(seqfarm_with(args)), 0, "{name}");
    }
}

#[test]
fn full_stderr_keeps_a_failed_runs_status() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).into_os_string();
    let flagstat = seqfarm_with([OsString::from("flagstat"), path("missing.bam")]);
    assert_eq!(exit_code_with_full_stderr(flagstat), 1);
    let align = seqfarm_with([
        "align".into(),
        "-x".into(),
        path("no-index"),
        "-U".into(),
        path("missing.fq"),
        "-S".into(),
        path("out.sam"),
    ]);
    assert_eq!(exit_code_with_full_stderr(align), 1);
}
