//! Threads that wait cost nothing: a farm whose input is slow parks its workers until
//! work arrives, with no timed wake-ups (Linux: the switches are read from `/proc`).

use std::io::Write;
use std::process::Stdio;
use std::time::Duration;

use crate::support::{index_test_genome, seqfarm};

/// Voluntary context switches of every worker thread of process `pid` (each wake-up
/// from a park is one).
#[cfg(target_os = "linux")]
fn worker_wake_ups(pid: u32) -> u64 {
    let mut total = 0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).expect("/proc readable") {
        let task = task.unwrap().path();
        let name = std::fs::read_to_string(task.join("comm")).unwrap_or_default();
        if !name.starts_with("seqfarm-worker") {
            continue;
        }
        let status = std::fs::read_to_string(task.join("status")).unwrap_or_default();
        total += status
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .map_or(0, |n| n.trim().parse::<u64>().unwrap());
    }
    total
}

#[cfg(target_os = "linux")]
#[test]
fn parked_workers_stay_asleep_while_the_input_is_slow() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index_test_genome(dir.path());
    let mut child = seqfarm()
        .args(["align", "-p", "8", "--no-hd", "-x"])
        .arg(&prefix)
        .args(["-U", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("seqfarm runs");
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    // One read, so that every worker has started, found no more work and parked.
    stdin
        .write_all(b"@r1\nACGTACGTACGTACGTACGTACGTACGTACGTACGTACGT\n+\nIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIIII\n")
        .unwrap();
    stdin.flush().unwrap();
    let mut before = 0;
    for _ in 0..100 {
        std::thread::sleep(Duration::from_millis(100));
        let threads = std::fs::read_dir(format!("/proc/{pid}/task"))
            .map(|d| d.count())
            .unwrap_or(0);
        if threads >= 9 {
            std::thread::sleep(Duration::from_millis(300));
            before = worker_wake_ups(pid);
            break;
        }
    }
    assert!(before > 0, "the workers never started");
    // A second with no input: a parked worker is not woken (a timed safety net of 50 ms
    // would wake each of the 8 workers about 20 times).
    std::thread::sleep(Duration::from_secs(1));
    let idle = worker_wake_ups(pid) - before;
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    assert!(
        idle <= 8,
        "8 idle workers woke {idle} times in a second without work"
    );
}
