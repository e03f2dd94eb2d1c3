//! `--numa off|interleave|replicate|auto`: the same output under every placement, the
//! policy visible in `/proc/PID/numa_maps` while a run holds the index, and a policy the
//! kernel refuses costing one warning line, not the run.

use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::{data, index_test_genome, seqfarm, succeeded};

/// `seqfarm align -p THREADS --numa MODE -x PREFIX -U READS` to standard output, with
/// `env` set; returns the output and the standard error.
fn align(prefix: &Path, threads: &str, mode: &str, env: &[(&str, &str)]) -> (Vec<u8>, String) {
    let mut command = seqfarm();
    command
        .args(["align", "-p", threads, "--numa", mode, "-x"])
        .arg(prefix)
        .arg("-U")
        .arg(data("align_reads_100.fq.gz"))
        .envs(env.iter().copied());
    let out = command.output().expect("seqfarm runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "--numa {mode} {env:?}: {stderr}");
    (out.stdout, stderr)
}

const COPIES: &str = "SEQFARM_NUMA_COPIES_PER_NODE";
const ROOT: &str = "SEQFARM_NUMA_ROOT";

#[test]
fn align_output_is_identical_under_every_numa_mode() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index_test_genome(dir.path());
    let (expected, _) = align(&prefix, "2", "off", &[]);
    assert!(expected.len() > 100_000);
    for mode in ["interleave", "replicate", "auto"] {
        let (out, _) = align(&prefix, "2", mode, &[]);
        assert!(out == expected, "--numa {mode} changes the output");
    }
    // Two copies on one node, workers reading one or the other (3 workers: 2 and 1).
    for threads in ["2", "3"] {
        let (out, _) = align(&prefix, threads, "replicate", &[(COPIES, "2")]);
        assert!(
            out == expected,
            "two copies at -p {threads} change the output"
        );
    }
}

#[test]
fn locate_is_identical_under_every_numa_mode() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index_test_genome(dir.path());
    let locate = |mode: &str| {
        let out = succeeded(
            seqfarm()
                .args(["locate", "--numa", mode, "-x"])
                .arg(&prefix)
                .args(["ACGTACGT", "GATTACA", "CCCGGG"]),
        );
        out.stdout
    };
    let expected = locate("off");
    assert!(!expected.is_empty());
    for mode in ["interleave", "replicate", "auto"] {
        assert_eq!(locate(mode), expected, "--numa {mode}");
    }
}

#[test]
fn an_unknown_numa_mode_is_refused() {
    let out = seqfarm()
        .args(["locate", "--numa", "everywhere", "-x", "ref", "ACGT"])
        .output()
        .expect("seqfarm runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a NUMA mode"), "{stderr}");
}

/// The pages of the mappings of process `pid` whose policy starts with `policy`
/// (`interleave:`, `bind:`), from `/proc/PID/numa_maps`; `None` without that file.
fn pages_under_policy(pid: u32, policy: &str) -> Option<u64> {
    let maps = std::fs::read_to_string(format!("/proc/{pid}/numa_maps")).ok()?;
    Some(
        maps.lines()
            .filter(|l| {
                l.split_whitespace()
                    .nth(1)
                    .is_some_and(|p| p.starts_with(policy))
            })
            .flat_map(|l| l.split_whitespace())
            .filter_map(|w| w.strip_prefix("anon="))
            .filter_map(|n| n.parse::<u64>().ok())
            .sum(),
    )
}

/// Runs `align --numa MODE -U -` with its reads on a pipe that stays open until the
/// index shows in `/proc/PID/numa_maps` under `policy` with at least `copies` copies'
/// pages; then sends the reads and returns the output (`None` when this kernel has no
/// NUMA or refused the policy: nothing to see).
fn align_watching_numa_maps(
    prefix: &Path,
    mode: &str,
    env: &[(&str, &str)],
    policy: &str,
    copies: u64,
) -> Option<Vec<u8>> {
    let index_pages = std::fs::metadata(prefix.with_extension("sfi"))
        .unwrap()
        .len()
        / 4096;
    let mut child = seqfarm()
        .args(["align", "-p", "2", "--numa", mode, "-x"])
        .arg(prefix)
        .args(["-U", "-"])
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("seqfarm starts");
    let pid = child.id();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).unwrap();
        out
    });
    let started = Instant::now();
    let mut seen = None;
    while started.elapsed() < Duration::from_secs(30) {
        match pages_under_policy(pid, policy) {
            None => break,
            Some(pages) if pages >= copies * index_pages => {
                seen = Some(pages);
                break;
            }
            Some(_) => std::thread::sleep(Duration::from_millis(20)),
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
    }
    let mut stdin = child.stdin.take().unwrap();
    let reads = crate::support::file_bytes(&data("align_reads_100.fq.gz"));
    // The process may have failed already: a closed pipe is reported by its status.
    let _ = stdin.write_all(&reads);
    drop(stdin);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    let out = reader.join().unwrap();
    assert!(status.success(), "--numa {mode}: {stderr}");
    if seen.is_none() {
        let no_numa = !Path::new("/proc/self/numa_maps").exists();
        assert!(
            no_numa || stderr.contains("refused"),
            "--numa {mode} {env:?}: the index never showed under {policy} in numa_maps"
        );
        eprintln!("skipped: no NUMA policy here ({stderr})");
        return None;
    }
    Some(out)
}

#[cfg(target_os = "linux")]
#[test]
fn numa_policy_is_visible_in_numa_maps_during_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index_test_genome(dir.path());
    let expected = align_watching_numa_maps(&prefix, "off", &[], "", 0)
        .expect("an unplaced run shows its mappings");
    let two_copies = [(COPIES, "2")];
    let runs = [
        ("interleave", &[][..], "interleave:", 1),
        ("replicate", &[][..], "bind:", 1),
        ("replicate", &two_copies[..], "bind:", 2),
    ];
    for (mode, env, policy, copies) in runs {
        if let Some(out) = align_watching_numa_maps(&prefix, mode, env, policy, copies) {
            assert!(out == expected, "--numa {mode} {env:?} changes the output");
        }
    }
}

/// The CPUs this process may run on (`Cpus_allowed_list` of `/proc/self/status`).
fn allowed_cpus() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let Some(list) = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
    else {
        return Vec::new();
    };
    let mut cpus = Vec::new();
    for part in list.trim().split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// A node tree of two nodes, the second (63) existing nowhere: the kernel refuses any
/// policy naming it.
fn tree_with_a_missing_node(root: &Path, cpus: [usize; 2]) {
    let meminfo =
        |n: usize| format!("Node {n} MemTotal: 67108864 kB\nNode {n} MemFree: 33554432 kB\n");
    for (node, cpu) in [(0, cpus[0]), (63, cpus[1])] {
        let dir = root.join(format!("node{node}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cpulist"), format!("{cpu}\n")).unwrap();
        std::fs::write(dir.join("meminfo"), meminfo(node)).unwrap();
    }
    std::fs::write(root.join("online"), "0,63\n").unwrap();
    std::fs::write(root.join("has_memory"), "0,63\n").unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn a_refused_memory_policy_is_one_warning_and_the_run_goes_on() {
    let cpus = allowed_cpus();
    if cpus.len() < 2 {
        eprintln!("skipped: one CPU allowed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let prefix = index_test_genome(dir.path());
    let root = dir.path().join("nodes");
    tree_with_a_missing_node(&root, [cpus[0], cpus[1]]);
    let (expected, _) = align(&prefix, "2", "off", &[]);
    let root = root.to_str().unwrap();
    // auto sees two nodes with room for a copy each: replicate. The copy bound to node
    // 63 is refused; interleaving over nodes 0 and 63 is not (the kernel drops the node
    // it lacks from the set and interleaves over node 0).
    for (mode, refused) in [("interleave", 0), ("replicate", 1), ("auto", 1)] {
        let (out, stderr) = align(&prefix, "2", mode, &[(ROOT, root)]);
        assert!(
            out == expected,
            "--numa {mode} on a refused node changes the output"
        );
        let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("warning")).collect();
        assert_eq!(warnings.len(), refused, "--numa {mode}: {stderr}");
        if refused == 0 {
            continue;
        }
        assert!(
            warnings[0].contains("--numa") && warnings[0].contains("refused"),
            "{stderr}"
        );
    }
    // --stats says what auto chose, and why.
    let stats = numa_stats(dir.path(), &prefix, &[], &[(ROOT, root)]);
    let numa = &stats["numa"];
    assert_eq!(numa["mode"], "replicate", "{numa}");
    assert_eq!(numa["copies"], 2, "{numa}");
    assert_eq!(numa["nodes"], serde_json::json!([0, 63]), "{numa}");
    assert!(
        numa["reason"].as_str().unwrap().contains("2 nodes in use"),
        "{numa}"
    );
}

/// The `--stats` document of `seqfarm align -p 2 ARGS` on the test reads, with `env` set.
fn numa_stats(dir: &Path, prefix: &Path, args: &[&str], env: &[(&str, &str)]) -> serde_json::Value {
    let stats = dir.join("stats.json");
    succeeded(
        seqfarm()
            .args(["align", "-p", "2"])
            .args(args)
            .arg("-x")
            .arg(prefix)
            .arg("-U")
            .arg(data("align_reads_100.fq.gz"))
            .args(["-S", "/dev/null", "--stats"])
            .arg(&stats)
            .envs(env.iter().copied()),
    );
    serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap()
}

#[test]
fn stats_say_numa_off_when_asked_and_the_index_copied_into_memory() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index_test_genome(dir.path());
    let stats = numa_stats(dir.path(), &prefix, &["--numa", "off"], &[]);
    let numa = &stats["numa"];
    assert_eq!(numa["mode"], "off", "{numa}");
    assert_eq!(numa["reason"], "asked for", "{numa}");
    assert_eq!(numa["copies"], 1, "{numa}");
    assert_eq!(numa["nodes"], serde_json::Value::Null, "{numa}");
    assert_eq!(numa["index"], "copied", "{numa}");
    let reason = numa["index_reason"].as_str().unwrap();
    assert!(reason.contains("at least twice the index"), "{numa}");
}

#[test]
fn with_mm_the_index_is_memory_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = index_test_genome(dir.path());
    let stats = numa_stats(dir.path(), &prefix, &["--numa", "off", "--mm"], &[]);
    let numa = &stats["numa"];
    assert_eq!(numa["index"], "mapped", "{numa}");
    assert_eq!(numa["index_reason"], "asked for", "{numa}");
}
