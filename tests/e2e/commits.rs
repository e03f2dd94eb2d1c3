//! A run's files that belong together move into place as one set: two `align --sort`
//! runs onto one output at once, or one stopped by SIGTERM at any moment, leave a BAM
//! and an index of the same run (`samtools idxstats` counts what the BAM holds); output
//! names as long as the filesystem takes work.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::align_fixtures::test_genome;
use crate::support::{data, entry_names, peer, seqfarm, succeeded};

/// `align --sort -o OUT` on `reads`: the single-end reads, or the simulated pairs (more
/// records: a BAM of one run and an index of the other would not count alike).
fn sort_run(out: &Path, paired: bool) -> Command {
    let mut command = seqfarm();
    command
        .arg("align")
        .arg("-x")
        .arg(&test_genome().seqfarm)
        .args(["-p", "1", "--sort", "--sort-memory", "1M", "-o"])
        .arg(out)
        .stderr(Stdio::null());
    if paired {
        command
            .arg("-1")
            .arg(data("pe_sim_R1.fq.gz"))
            .arg("-2")
            .arg(data("pe_sim_R2.fq.gz"));
    } else {
        command.arg("-U").arg(data("align_reads_150.fq.gz"));
    }
    command
}

/// The records of `bam` as its index counts them (`samtools idxstats`, mapped and
/// unmapped placed and unplaced), and as reading it counts them.
fn counts(bam: &Path) -> (u64, u64) {
    let stats = succeeded(Command::new("samtools").arg("idxstats").arg(bam)).stdout;
    let indexed = String::from_utf8(stats)
        .unwrap()
        .lines()
        .flat_map(|l| l.split('\t').skip(2).map(|n| n.parse::<u64>().unwrap()))
        .sum();
    let view = succeeded(Command::new("samtools").args(["view", "-c"]).arg(bam)).stdout;
    let read = String::from_utf8(view).unwrap().trim().parse().unwrap();
    (indexed, read)
}

/// The BAM `bam` and its index belong to one run, and nothing else is left beside them.
fn belong_together(bam: &Path, when: &str) {
    let (indexed, read) = counts(bam);
    assert_eq!(indexed, read, "{when}: the index counts another run's BAM");
    let left = entry_names(bam.parent().unwrap());
    let name = bam.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(left, [name.clone(), format!("{name}.bai")], "{when}");
}

fn finished(mut child: Child) {
    assert!(child.wait().unwrap().success());
}

#[test]
fn align_sort_runs_at_once_onto_one_output_end_with_one_runs_bam_and_index() {
    assert!(peer("samtools"));
    let dir = tempfile::tempdir().unwrap();
    let bam = dir.path().join("x.bam");
    for round in 0..4 {
        let (first, second) = (round % 2 == 0, round % 2 == 1);
        let a = sort_run(&bam, first).spawn().unwrap();
        let b = sort_run(&bam, second).spawn().unwrap();
        finished(a);
        finished(b);
        belong_together(&bam, &format!("round {round}"));
    }
}

#[test]
fn align_sort_stopped_by_sigterm_leaves_a_bam_and_index_of_one_run() {
    assert!(peer("samtools"));
    let dir = tempfile::tempdir().unwrap();
    let bam = dir.path().join("x.bam");
    finished(sort_run(&bam, false).spawn().unwrap());
    // Stopped at moments spread over the run, its end (the moves) among them.
    let whole = {
        let started = std::time::Instant::now();
        finished(sort_run(&bam, true).spawn().unwrap());
        started.elapsed()
    };
    for step in 0..12u32 {
        let child = sort_run(&bam, step % 2 == 0).spawn().unwrap();
        std::thread::sleep(whole * (step + 1) / 12);
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .status();
        let mut child = child;
        child.wait().unwrap();
        belong_together(&bam, &format!("stopped at {}/12 of a run", step + 1));
    }
}

#[test]
fn output_names_as_long_as_the_filesystem_takes_work() {
    assert!(peer("samtools"));
    let dir = tempfile::tempdir().unwrap();
    // 251 bytes with `.bam`: the index's name has the filesystem's 255.
    let bam = dir.path().join(format!("{}.bam", "n".repeat(247)));
    finished(sort_run(&bam, true).spawn().unwrap());
    belong_together(&bam, "a 251-byte name");
    let sam = dir.path().join("s".repeat(255));
    succeeded(
        seqfarm()
            .arg("align")
            .arg("-x")
            .arg(&test_genome().seqfarm)
            .arg("-U")
            .arg(data("align_reads_100.fq.gz"))
            .arg("-S")
            .arg(&sam),
    );
    assert!(sam.exists());
}

#[test]
fn an_index_place_that_is_a_directory_leaves_the_old_bam() {
    let dir = tempfile::tempdir().unwrap();
    let bam = dir.path().join("x.bam");
    std::fs::write(&bam, b"the old BAM").unwrap();
    std::fs::create_dir(dir.path().join("x.bam.bai")).unwrap();
    let out = sort_run(&bam, false)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let message = String::from_utf8_lossy(&out.stderr);
    assert!(message.contains("x.bam.bai"), "{message}");
    assert_eq!(std::fs::read(&bam).unwrap(), b"the old BAM");
}
