//! `seqfarm align --sort --markdup`: the sorted, indexed BAM with its duplicates marked
//! in one run, record for record what `align --sort` then `seqfarm markdup` write, with
//! Picard MarkDuplicates' flags and metrics on the same alignments; its option rules;
//! no scratch file left behind.

use std::path::Path;
use std::process::Output;

use crate::align_fixtures::{chm1_genome, require, test_dir};
use crate::markdup::{metrics_rows, names_and_flags, picard};
use crate::support::{data, entry_names, peer, seqfarm, succeeded};

/// `seqfarm align -p 2` of the CHM1 pairs on `prefix`, with `extra`.
fn align(prefix: &Path, extra: &[&str]) -> Output {
    seqfarm()
        .arg("align")
        .args(["-p", "2", "-x"])
        .arg(prefix)
        .arg("-1")
        .arg(data("pe_chm1_R1.fq.gz"))
        .arg("-2")
        .arg(data("pe_chm1_R2.fq.gz"))
        .args(extra)
        .output()
        .expect("seqfarm runs")
}

/// The records of a BAM as SAM lines without the header (samtools view).
fn sam_records(path: &Path) -> Vec<u8> {
    require("samtools");
    succeeded(std::process::Command::new("samtools").arg("view").arg(path)).stdout
}

#[test]
fn one_run_marks_as_sort_then_markdup_and_as_picard() {
    let dir = test_dir();
    let dir = dir.path();
    let prefix = &chm1_genome().seqfarm;
    let path = |name: &str| dir.join(name);
    let text = |p: &Path| p.to_str().unwrap().to_string();
    let (sorted, marked, one) = (path("sorted.bam"), path("marked.bam"), path("one.bam"));
    let (marked_metrics, one_metrics) = (path("marked.txt"), path("one.txt"));
    succeeded(&mut {
        let mut c = seqfarm();
        c.arg("align").args(["-p", "2", "-x"]).arg(prefix);
        c.arg("-1").arg(data("pe_chm1_R1.fq.gz"));
        c.arg("-2").arg(data("pe_chm1_R2.fq.gz"));
        c.args(["--sort", "-o", &text(&sorted)]);
        c
    });
    succeeded(seqfarm().arg("markdup").arg(&sorted).args([
        "-t",
        "2",
        "-o",
        &text(&marked),
        "--metrics",
        &text(&marked_metrics),
    ]));
    let out = align(
        prefix,
        &[
            "--sort",
            "--markdup",
            "-o",
            &text(&one),
            "--markdup-metrics",
            &text(&one_metrics),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The summary is bowtie2's, as without --markdup.
    assert!(String::from_utf8_lossy(&out.stderr).contains("overall alignment rate"));
    let flags = names_and_flags(&one);
    assert!(
        flags.iter().filter(|(_, f)| f & 0x400 != 0).count() > 10,
        "duplicates found"
    );
    assert_eq!(sam_records(&one), sam_records(&marked));
    assert_eq!(metrics_rows(&one_metrics), metrics_rows(&marked_metrics));
    // The index: its offsets differ by the header (the @PG command line), its counts not.
    let idxstats = |bam: &Path| {
        succeeded(
            std::process::Command::new("samtools")
                .arg("idxstats")
                .arg(bam),
        )
        .stdout
    };
    assert!(path("one.bam.bai").exists());
    assert_eq!(idxstats(&one), idxstats(&marked));
    // Nothing else is left beside the outputs: no scratch BAM, index or temporary file.
    let expected = [
        "marked.bam",
        "marked.bam.bai",
        "marked.txt",
        "one.bam",
        "one.bam.bai",
        "one.txt",
        "sorted.bam",
        "sorted.bam.bai",
    ];
    assert_eq!(entry_names(dir), expected);
    if peer("PicardCommandLine") {
        let (theirs, their_metrics) = (path("picard.bam"), path("picard.txt"));
        picard(&sorted, &theirs, &their_metrics);
        assert_eq!(flags, names_and_flags(&theirs));
        assert_eq!(metrics_rows(&one_metrics), metrics_rows(&their_metrics));
    }
}

#[test]
fn markdup_needs_sort_and_its_metrics_need_markdup() {
    let dir = test_dir();
    let dir = dir.path();
    let prefix = &chm1_genome().seqfarm;
    let out = dir.join("x.bam");
    let out = out.to_str().unwrap();
    let refused = align(prefix, &["--markdup", "-o", out]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--sort"));
    let refused = align(prefix, &["--sort", "-o", out, "--markdup-metrics", "m.txt"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--markdup"));
    // A metrics file that cannot be written fails before any work, leaving nothing.
    let missing = dir.join("no/such/dir/m.txt");
    let failed = align(
        prefix,
        &[
            "--sort",
            "--markdup",
            "-o",
            out,
            "--markdup-metrics",
            missing.to_str().unwrap(),
        ],
    );
    assert_eq!(failed.status.code(), Some(1));
    assert!(entry_names(dir).is_empty());
}
