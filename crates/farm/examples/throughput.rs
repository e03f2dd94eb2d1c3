//! Trivial-task throughput of the farm, for quick comparisons outside criterion:
//! `cargo run --release --example throughput -- [TASKS] [WORKERS] [DEPTH] [ordered|unordered]`.

use std::time::Instant;

#[path = "../benches/support/trivial_farm.rs"]
mod trivial_farm;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let tasks: u64 = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5_000_000);
    let workers: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let depth: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(256);
    let mode = args.get(4).map(String::as_str).unwrap_or("ordered");
    let start = Instant::now();
    let sum = trivial_farm::trivial_farm(tasks, workers, depth, mode != "unordered");
    let secs = start.elapsed().as_secs_f64();
    assert_eq!(sum, tasks * (tasks + 1) / 2);
    println!(
        "{mode} workers={workers} depth={depth}: {:.2} M tasks/s",
        tasks as f64 / secs / 1e6
    );
}
