//! Stress and failure tests of the farm runtime: every task exactly once, order kept
//! when asked, memory bounded by the pool, errors and panics stop the farm.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use seqfarm_farm::{run, FarmConfig, FarmError, Fill, Stage, WorkerInfo};

/// A small deterministic generator (splitmix64) for task costs.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Default)]
struct Job {
    id: u64,
    spin: u32,
    result: u64,
}

/// Busy work whose result depends on the task id, so a task processed twice or not
/// at all changes the checksum.
fn burn(job: &mut Job) {
    let mut x = job.id;
    for _ in 0..job.spin {
        x = x.rotate_left(5) ^ 0x5555;
    }
    job.result = x;
}

fn expected_result(id: u64, spin: u32) -> u64 {
    let mut job = Job {
        id,
        spin,
        result: 0,
    };
    burn(&mut job);
    job.result
}

/// Runs `tasks` tasks with random costs through a farm and checks that every task was
/// seen exactly once, and in order when the farm is ordered.
fn exactly_once(tasks: u64, workers: usize, depth: usize, ordered: bool, max_spin: u64) {
    let config = FarmConfig::new(workers).queue_depth(depth).ordered(ordered);
    let mut rng = 42u64;
    let mut next = 0u64;
    let mut emit = |job: &mut Job| -> Result<Fill, String> {
        if next == tasks {
            return Ok(Fill::End);
        }
        job.id = next;
        job.spin = if max_spin == 0 {
            0
        } else {
            // Mostly cheap, sometimes 100x dearer: uneven work.
            let r = splitmix(&mut rng);
            if r.is_multiple_of(100) {
                (r % max_spin) as u32 * 100
            } else {
                (r % max_spin) as u32
            }
        };
        job.result = u64::MAX;
        next += 1;
        Ok(Fill::Task)
    };
    let mut seen = vec![false; tasks as usize];
    let mut expected_next = 0u64;
    let mut collect = |job: &mut Job| -> Result<(), String> {
        let id = job.id as usize;
        assert!(!seen[id], "task {id} collected twice");
        seen[id] = true;
        assert_eq!(
            job.result,
            expected_result(job.id, job.spin),
            "task {id} result"
        );
        if ordered {
            assert_eq!(job.id, expected_next, "out of order");
            expected_next += 1;
        }
        Ok(())
    };
    let report = run(
        &config,
        Job::default,
        &mut emit,
        |_info: WorkerInfo| {
            Ok(|job: &mut Job| -> Result<(), String> {
                burn(job);
                Ok(())
            })
        },
        &mut collect,
    )
    .expect("farm succeeds");
    assert_eq!(report.tasks(), tasks);
    assert_eq!(report.tasks_per_worker().iter().sum::<u64>(), tasks);
    assert_eq!(report.workers.len(), workers);
    assert!(seen.iter().all(|&s| s), "some task was never collected");
}

#[test]
fn two_million_trivial_tasks_ordered() {
    exactly_once(2_000_000, 3, 64, true, 0);
}

#[test]
fn one_million_trivial_tasks_unordered() {
    exactly_once(1_000_000, 4, 16, false, 0);
}

#[test]
fn random_costs_ordered_many_workers() {
    exactly_once(200_000, 7, 2, true, 200);
}

#[test]
fn random_costs_unordered_depth_one() {
    exactly_once(200_000, 5, 1, false, 200);
}

#[test]
fn single_worker_depth_one() {
    exactly_once(50_000, 1, 1, true, 10);
}

#[test]
fn random_costs_ordered_depth_three() {
    exactly_once(100_000, 2, 3, true, 200);
}

#[test]
fn random_costs_unordered_deep_pool() {
    exactly_once(100_000, 3, 9, false, 200);
}

/// In an ordered farm, a worker slowed down (its core shared with another process)
/// must not hold the other to its pace: the faster one takes more tasks while the
/// slower one's oldest task holds up collection.
#[test]
fn a_slower_worker_takes_fewer_tasks_in_an_ordered_farm() {
    let config = FarmConfig::new(2).ordered(true);
    let mut next = 0u64;
    let mut expected = 0u64;
    let report = run(
        &config,
        || 0u64,
        &mut |t: &mut u64| -> Result<Fill, String> {
            if next == 200 {
                return Ok(Fill::End);
            }
            *t = next;
            next += 1;
            Ok(Fill::Task)
        },
        |info: WorkerInfo| {
            let pause = Duration::from_micros(if info.index == 0 { 4_000 } else { 400 });
            Ok(move |_: &mut u64| -> Result<(), String> {
                std::thread::sleep(pause);
                Ok(())
            })
        },
        &mut |t: &mut u64| -> Result<(), String> {
            assert_eq!(*t, expected, "out of order");
            expected += 1;
            Ok(())
        },
    )
    .unwrap();
    let per_worker = report.tasks_per_worker();
    assert_eq!(per_worker.iter().sum::<u64>(), 200);
    // Ten times faster, it takes more tasks; how many more depends on the machine's
    // load (about 2x on an idle one, 1.7x with every core busy), so only the order is
    // checked.
    assert!(
        per_worker[1] > per_worker[0],
        "tasks per worker (slow, fast): {per_worker:?}"
    );
}

#[test]
fn empty_input() {
    exactly_once(0, 4, 4, true, 0);
}

#[test]
fn pool_is_bounded_whatever_the_input_size() {
    let made = AtomicUsize::new(0);
    let config = FarmConfig::new(3).queue_depth(5);
    let mut left = 100_000u32;
    run(
        &config,
        || {
            made.fetch_add(1, Ordering::Relaxed);
            vec![0u8; 1024]
        },
        &mut |buf: &mut Vec<u8>| -> Result<Fill, String> {
            if left == 0 {
                return Ok(Fill::End);
            }
            left -= 1;
            buf[0] = 1;
            Ok(Fill::Task)
        },
        |_| {
            Ok(|buf: &mut Vec<u8>| -> Result<(), String> {
                buf[1] = buf[0];
                Ok(())
            })
        },
        &mut |_: &mut Vec<u8>| -> Result<(), String> { Ok(()) },
    )
    .unwrap();
    assert_eq!(made.load(Ordering::Relaxed), 15);
}

/// A farm whose worker fails on task `bad` (with an error, or a panic) must stop with
/// that error, promptly, without hanging and without collecting every task.
fn failing_worker(panic: bool, ordered: bool) {
    let config = FarmConfig::new(3).queue_depth(4).ordered(ordered);
    let mut next = 0u64;
    let mut collected = 0u64;
    let result = run(
        &config,
        || 0u64,
        &mut |t: &mut u64| -> Result<Fill, String> {
            // An endless input: only the failure can stop this farm.
            *t = next;
            next += 1;
            Ok(Fill::Task)
        },
        |_| {
            Ok(move |t: &mut u64| -> Result<(), String> {
                if *t == 5000 {
                    if panic {
                        panic!("boom at {t}");
                    }
                    return Err(format!("bad record {t}"));
                }
                Ok(())
            })
        },
        &mut |_: &mut u64| -> Result<(), String> {
            collected += 1;
            Ok(())
        },
    );
    let err = result.expect_err("the farm must fail");
    match (&err, panic) {
        (FarmError::Failed { stage, source }, false) => {
            assert_eq!(source, "bad record 5000");
            assert!(matches!(
                stage,
                Stage::Worker {
                    task: Some(5000),
                    ..
                }
            ));
        }
        (FarmError::Panicked { stage, message }, true) => {
            assert_eq!(message, "boom at 5000");
            assert!(matches!(
                stage,
                Stage::Worker {
                    task: Some(5000),
                    ..
                }
            ));
            assert!(err.to_string().contains("panicked: boom at 5000"));
        }
        other => panic!("unexpected error {other:?}"),
    }
    if ordered {
        assert!(collected <= 5000, "ordered farm collected past the failure");
    }
}

#[test]
fn worker_error_stops_the_farm() {
    failing_worker(false, true);
    failing_worker(false, false);
}

#[test]
fn worker_panic_becomes_an_error() {
    failing_worker(true, true);
    failing_worker(true, false);
}

#[test]
fn emitter_error_stops_the_farm() {
    let config = FarmConfig::new(2);
    let mut n = 0u32;
    let err = run(
        &config,
        || 0u32,
        &mut |t: &mut u32| -> Result<Fill, String> {
            n += 1;
            if n == 100 {
                return Err("truncated input at byte 1234".into());
            }
            *t = n;
            Ok(Fill::Task)
        },
        |_| {
            Ok(|_: &mut u32| -> Result<(), String> {
                std::thread::sleep(Duration::from_micros(10));
                Ok(())
            })
        },
        &mut |_: &mut u32| -> Result<(), String> { Ok(()) },
    )
    .unwrap_err();
    assert_eq!(err.stage(), Some(Stage::Emitter));
    assert_eq!(err.to_string(), "truncated input at byte 1234");
}

#[test]
fn collector_panic_stops_the_farm() {
    let config = FarmConfig::new(2);
    let err = run(
        &config,
        || 0u32,
        &mut |t: &mut u32| -> Result<Fill, String> {
            *t += 1;
            Ok(Fill::Task)
        },
        |_| Ok(|_: &mut u32| -> Result<(), String> { Ok(()) }),
        &mut |_: &mut u32| -> Result<(), String> { panic!("collector bug") },
    )
    .unwrap_err();
    assert!(matches!(
        err,
        FarmError::Panicked {
            stage: Stage::Collector,
            ..
        }
    ));
}

#[test]
fn worker_setup_error_is_reported() {
    let config = FarmConfig::new(4);
    let err = run(
        &config,
        || 0u32,
        &mut |_: &mut u32| -> Result<Fill, String> { Ok(Fill::Task) },
        |info: WorkerInfo| {
            if info.index == 2 {
                return Err("cannot allocate worker buffers".to_string());
            }
            Ok(|_: &mut u32| -> Result<(), String> { Ok(()) })
        },
        &mut |_: &mut u32| -> Result<(), String> { Ok(()) },
    )
    .unwrap_err();
    assert_eq!(
        err.stage(),
        Some(Stage::Worker {
            index: 2,
            task: None
        })
    );
}

#[test]
fn per_worker_state_is_returned_for_merging() {
    let config = FarmConfig::new(3).pin(true);
    let mut next = 0u64;
    let report = run(
        &config,
        || 0u64,
        &mut |t: &mut u64| -> Result<Fill, String> {
            if next == 10_000 {
                return Ok(Fill::End);
            }
            next += 1;
            *t = next;
            Ok(Fill::Task)
        },
        |_| Ok(Sum(0)),
        &mut |_: &mut u64| -> Result<(), String> { Ok(()) },
    )
    .unwrap();
    let total: u64 = report.workers.iter().map(|s| s.0).sum();
    assert_eq!(total, 10_000 * 10_001 / 2);
}

/// A worker whose private state is a running sum.
struct Sum(u64);

impl seqfarm_farm::Worker<u64, String> for Sum {
    fn process(&mut self, task: &mut u64) -> Result<(), String> {
        self.0 += *task;
        Ok(())
    }
}
