//! Trivial-task throughput of the farm, for quick comparisons outside criterion:
//! `cargo run --release --example throughput -- [TASKS] [WORKERS] [DEPTH] [ordered|unordered|channel]`.

use std::hint::black_box;
use std::time::Instant;

use seqfarm_farm::{run, FarmConfig, Fill};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tasks: u64 = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5_000_000);
    let workers: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let depth: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(256);
    let mode = args.get(4).map(String::as_str).unwrap_or("ordered");
    let config = FarmConfig::new(workers)
        .queue_depth(depth)
        .ordered(mode != "unordered");
    let start = Instant::now();
    let mut next = 0u64;
    let mut sum = 0u64;
    run(
        &config,
        || 0u64,
        &mut |t: &mut u64| -> Result<Fill, ()> {
            if next == tasks {
                return Ok(Fill::End);
            }
            *t = next;
            next += 1;
            Ok(Fill::Task)
        },
        |_| {
            Ok(|t: &mut u64| -> Result<(), ()> {
                *t = black_box(*t) + 1;
                Ok(())
            })
        },
        &mut |t: &mut u64| -> Result<(), ()> {
            sum += *t;
            Ok(())
        },
    )
    .map_err(|e| format!("{e:?}"))
    .expect("farm runs");
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(sum, tasks * (tasks + 1) / 2);
    println!(
        "{mode} workers={workers} depth={depth}: {:.2} M tasks/s",
        tasks as f64 / secs / 1e6
    );
}
